#pragma once

#include <QByteArray>

#include <memory>

class QObject;

namespace sb {

class ResponseWriter;
struct HttpRequest;

// The paths of the proxy port that belong to the control plane (/admin/*, /metrics). The data
// plane hands them over without knowing what they do, so it never depends on the control plane.
class ControlRoutes {
public:
    virtual ~ControlRoutes() = default;
    virtual bool handles(const QByteArray &path) const = 0;
    // Runs on the worker that received the request; `worker` is that worker's QObject, for
    // answers that come back to it later.
    virtual void handle(const HttpRequest &request, std::shared_ptr<ResponseWriter> response, QObject *worker) const = 0;
};

} // namespace sb
