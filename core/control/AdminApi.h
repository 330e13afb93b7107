#pragma once

#include "proxy/ControlRoutes.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>

#include <memory>
#include <optional>

class QObject;

namespace sb {

class AdminControls;
class EngineContext;
class ResponseWriter;
struct ApiError;
struct HttpRequest;

// The admin API and /metrics on the proxy port, so a headless instance can be watched and steered;
// answered on the worker that received the request:
//   GET  /admin/channels                     every channel: route(s), provider, state, score, error rates, p95, TTFT, in flight, keys
//   GET  /admin/channels/{id}                one of them
//   POST /admin/channels/{id}/eject          take it out of the pool by hand (the console's "drain")
//   POST /admin/channels/{id}/readmit        put it back
//   POST /admin/channels/{id}/probe          send it a heartbeat probe now (202; the result shows in the next snapshot)
//   GET  /admin/events?since=ID&limit=N      recent health events, oldest first, from an in-memory ring
//   GET  /admin/incidents                    open and recent incidents derived from those events
//   GET  /admin/snapshot                     the whole MetricsSnapshot (what an attached console reads)
//   POST /admin/reload                       re-read the stored configuration and apply it live
//   POST /admin/keys/{id}/enable             take back an API key the provider refused (its stored refusal is forgotten)
//   GET  /metrics                            Prometheus text format 0.0.4
// Access: with a local token set, every admin path and /metrics need `Authorization: Bearer <token>`;
// without one they answer loopback peers only (the proxy itself may then listen on loopback only, so
// this is a second fence, not the first). Errors are OpenAI-format JSON like the rest of the port.
// Short-lived: ProxyHandler makes one per request; `context` is that worker's QObject, used to come
// back to the worker thread after an asynchronous reload.
class AdminApi {
public:
    AdminApi(EngineContext &engine, AdminControls &controls, QObject *context);

    static bool handles(const QByteArray &path);
    void handle(const HttpRequest &request, std::shared_ptr<ResponseWriter> response);

private:
    bool authorized(const HttpRequest &request, ApiError *error) const;
    void channels(const HttpRequest &request, const std::shared_ptr<ResponseWriter> &response, const QByteArray &rest);
    void channelAction(const HttpRequest &request, const std::shared_ptr<ResponseWriter> &response, int channelId,
                       const QByteArray &action);
    void events(const HttpRequest &request, const std::shared_ptr<ResponseWriter> &response);
    void incidents(const std::shared_ptr<ResponseWriter> &response);
    void snapshot(const std::shared_ptr<ResponseWriter> &response);
    void reload(const std::shared_ptr<ResponseWriter> &response);
    void fleet(const std::shared_ptr<ResponseWriter> &response);
    void keys(const HttpRequest &request, const std::shared_ptr<ResponseWriter> &response, const QByteArray &rest);
    void metrics(const std::shared_ptr<ResponseWriter> &response);
    QJsonObject channelJson(int channelId) const;
    bool requireMethod(const HttpRequest &request, const std::shared_ptr<ResponseWriter> &response, const QByteArray &method);

    static void sendJson(const std::shared_ptr<ResponseWriter> &response, int status, const QJsonObject &body);
    static void sendError(const std::shared_ptr<ResponseWriter> &response, const ApiError &error);
    static void notFound(const std::shared_ptr<ResponseWriter> &response, const QString &what);

    EngineContext &m_engine;
    AdminControls &m_controls;
    QObject *m_context;
};

// What the proxy's workers hand /admin/* and /metrics to: one AdminApi per request.
class AdminRoutes final : public ControlRoutes {
public:
    AdminRoutes(EngineContext &engine, AdminControls &controls) : m_engine(engine), m_controls(controls) {}
    bool handles(const QByteArray &path) const override { return AdminApi::handles(path); }
    void handle(const HttpRequest &request, std::shared_ptr<ResponseWriter> response, QObject *worker) const override;

private:
    EngineContext &m_engine;
    AdminControls &m_controls;
};

} // namespace sb
