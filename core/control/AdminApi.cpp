#include "control/AdminApi.h"

#include "common/SecretMask.h"
#include "frontends/openai_chat/ChatRequest.h"
#include "proxy/EngineContext.h"
#include "control/AdminControls.h"
#include "control/HealthEventRecord.h"
#include "control/MetricsExposition.h"
#include "control/SnapshotJson.h"
#include "net/HttpRequest.h"
#include "net/ResponseWriter.h"
#include "telemetry/IncidentBuilder.h"
#include "telemetry/PrometheusExporter.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QUrlQuery>

#include <algorithm>
#include <map>

namespace sb {

namespace {

const QByteArray adminPrefix = QByteArrayLiteral("/admin/");
constexpr std::size_t maxEventsPerPage = 1000;

// A channel id as a path segment: 1 to 9 ASCII digits, nothing else (no signs, spaces or escapes).
std::optional<int> parseId(const QByteArray &segment)
{
    if (segment.isEmpty() || segment.size() > 9)
        return std::nullopt;
    for (char c : segment)
        if (c < '0' || c > '9')
            return std::nullopt;
    return segment.toInt();
}

QString stateOf(const ChannelSnapshot &c)
{
    if (c.pool == PoolState::Ejected || c.pool == PoolState::Drained || c.pool == PoolState::Misconfigured)
        return QLatin1String(toString(c.pool));
    if (c.breaker != BreakerState::Closed)
        return QLatin1String(toString(c.breaker));
    return QLatin1String(toString(c.pool));
}

// An incident as /admin/incidents shows it. The failovers are the requests that moved away from
// the channel while it lasted, which only the event log knows (a history row names the channel
// that answered, not the one that was left).
QJsonObject incidentJson(const Incident &i, const std::vector<EventLog::Entry> &log)
{
    int failovers = 0;
    for (const EventLog::Entry &entry : log) {
        const HealthEvent &e = entry.event;
        if (e.type == HealthEvent::Type::Failover && e.fromChannelId == i.channelId && e.wallMillis >= i.startMs
            && (i.isOpen() || e.wallMillis <= i.endMs))
            ++failovers;
    }
    const std::uint64_t id = i.events.empty() ? 0 : static_cast<std::uint64_t>(i.events.front().id);
    QJsonObject json{{QStringLiteral("id"), double(id)},
                     {QStringLiteral("channelId"), i.channelId},
                     {QStringLiteral("channelName"), i.channelName},
                     {QStringLiteral("cause"), i.cause},
                     {QStringLiteral("open"), i.isOpen()},
                     {QStringLiteral("openedAtMs"), double(i.startMs)},
                     {QStringLiteral("worstState"), i.worstState},
                     {QStringLiteral("transitions"), i.transitions},
                     {QStringLiteral("events"), static_cast<int>(i.events.size())},
                     {QStringLiteral("failovers"), failovers},
                     {QStringLiteral("breaker"), i.breaker},
                     {QStringLiteral("pool"), i.pool}};
    if (!i.isOpen())
        json.insert(QStringLiteral("closedAtMs"), double(i.endMs));
    return json;
}

} // namespace

AdminApi::AdminApi(EngineContext &engine, AdminControls &controls, QObject *context)
    : m_engine(engine), m_controls(controls), m_context(context)
{
}

void AdminRoutes::handle(const HttpRequest &request, std::shared_ptr<ResponseWriter> response, QObject *worker) const
{
    AdminApi(m_engine, m_controls, worker).handle(request, std::move(response));
}

bool AdminApi::handles(const QByteArray &path)
{
    return path == "/metrics" || path == "/admin" || path.startsWith(adminPrefix);
}

void AdminApi::handle(const HttpRequest &request, std::shared_ptr<ResponseWriter> response)
{
    ApiError denied;
    if (!authorized(request, &denied)) {
        sendError(response, denied);
        return;
    }
    const QByteArray &path = request.path;
    if (path == "/metrics") {
        if (requireMethod(request, response, "GET"))
            metrics(response);
        return;
    }
    const QByteArray rest = path.mid(adminPrefix.size());
    // Exact segments only: "..", "//", a trailing slash or an escaped byte never names a resource.
    if (path == "/admin" || rest.isEmpty() || rest.contains("//") || rest.endsWith('/') || rest.contains('%')
        || rest.contains("..")) {
        notFound(response, QString::fromUtf8(path.left(200)));
        return;
    }
    if (rest == "channels" || rest.startsWith("channels/")) {
        channels(request, response, rest.mid(8));
    } else if (rest == "events") {
        if (requireMethod(request, response, "GET"))
            events(request, response);
    } else if (rest == "incidents") {
        if (requireMethod(request, response, "GET"))
            incidents(response);
    } else if (rest == "snapshot") {
        if (requireMethod(request, response, "GET"))
            snapshot(response);
    } else if (rest == "reload") {
        if (requireMethod(request, response, "POST"))
            reload(response);
    } else if (rest == "fleet") {
        if (requireMethod(request, response, "GET"))
            fleet(response);
    } else if (rest.startsWith("keys/")) {
        keys(request, response, rest.mid(5));
    } else {
        notFound(response, QString::fromUtf8(path.left(200)));
    }
}

bool AdminApi::authorized(const HttpRequest &request, ApiError *error) const
{
    if (const QString unreadable = m_engine.config()->proxy.localTokenUnreadable; !unreadable.isEmpty()) {
        *error = ApiError{503, QStringLiteral("Switchboard cannot read its local token (%1), so the admin API refuses every request until it can.").arg(unreadable),
                          QStringLiteral("service_unavailable"), {}, QStringLiteral("local_token_unreadable")};
        return false;
    }
    const QString token = m_engine.config()->proxy.localToken;
    if (token.isEmpty()) {
        if (request.peer.isLoopback())
            return true;
        *error = ApiError{403, QStringLiteral("The admin API answers only this machine when no local token is set. Set a local token in Settings to use it from elsewhere."),
                          QStringLiteral("invalid_request_error"), {}, QStringLiteral("forbidden")};
        return false;
    }
    QByteArray given = request.headers.value("authorization").trimmed();
    if ((given.startsWith("Bearer ") || given.startsWith("bearer ")) && sameSecret(given.mid(7).trimmed(), token.toUtf8()))
        return true;
    *error = ApiError{401, QStringLiteral("Missing or wrong local token. Send 'Authorization: Bearer <token>' with the token set in Switchboard's Settings."),
                      QStringLiteral("invalid_request_error"), {}, QStringLiteral("invalid_api_key")};
    return false;
}

bool AdminApi::requireMethod(const HttpRequest &request, const std::shared_ptr<ResponseWriter> &response, const QByteArray &method)
{
    if (request.method == method)
        return true;
    ApiError error{405, QStringLiteral("%1 is not allowed on %2; use %3.")
                            .arg(QString::fromLatin1(request.method.left(20)), QString::fromUtf8(request.path.left(200)),
                                 QString::fromLatin1(method)),
                   QStringLiteral("invalid_request_error"), {}, QStringLiteral("method_not_allowed")};
    HttpHeaders headers;
    headers.set("Content-Type", "application/json");
    headers.set("Allow", method);
    response->send(405, headers, error.toJson());
    return false;
}

void AdminApi::channels(const HttpRequest &request, const std::shared_ptr<ResponseWriter> &response, const QByteArray &rest)
{
    if (rest.isEmpty()) { // GET /admin/channels
        if (!requireMethod(request, response, "GET"))
            return;
        QJsonArray data;
        for (const ChannelSnapshot &c : m_engine.router().snapshots())
            data.append(channelJson(c.channelId));
        sendJson(response, 200, QJsonObject{{QStringLiteral("object"), QStringLiteral("list")}, {QStringLiteral("data"), data}});
        return;
    }
    // rest is "/{id}" or "/{id}/{action}"
    const QList<QByteArray> parts = rest.mid(1).split('/');
    const std::optional<int> id = parseId(parts.value(0));
    if (!id || parts.size() > 2) {
        notFound(response, QString::fromUtf8(request.path.left(200)));
        return;
    }
    if (!m_engine.router().pool().channel(*id)) {
        notFound(response, QStringLiteral("channel %1").arg(*id));
        return;
    }
    if (parts.size() == 1) {
        if (requireMethod(request, response, "GET"))
            sendJson(response, 200, channelJson(*id));
        return;
    }
    const QByteArray &action = parts[1];
    if (action != "eject" && action != "readmit" && action != "probe") {
        notFound(response, QString::fromUtf8(request.path.left(200)));
        return;
    }
    if (requireMethod(request, response, "POST"))
        channelAction(request, response, *id, action);
}

void AdminApi::channelAction(const HttpRequest &, const std::shared_ptr<ResponseWriter> &response, int channelId, const QByteArray &action)
{
    if (action == "probe") {
        if (!m_controls.probeNow(channelId)) {
            sendError(response, ApiError{409, QStringLiteral("A probe of channel %1 is already running; its result shows in the next snapshot.").arg(channelId),
                                         QStringLiteral("invalid_request_error"), {}, QStringLiteral("probe_in_progress")});
            return;
        }
        QJsonObject body = channelJson(channelId);
        body.insert(QStringLiteral("probe"), QStringLiteral("started"));
        sendJson(response, 202, body);
        return;
    }
    // Both are idempotent: ejecting an ejected channel or re-admitting an active one changes nothing.
    if (action == "eject")
        m_engine.router().drain(channelId, QStringLiteral("ejected through the admin API"));
    else
        m_engine.router().readmit(channelId, QStringLiteral("re-admitted through the admin API"));
    sendJson(response, 200, channelJson(channelId));
}

QJsonObject AdminApi::channelJson(int channelId) const
{
    const auto config = m_engine.config();
    for (const ChannelSnapshot &c : m_engine.router().snapshots()) {
        if (c.channelId != channelId)
            continue;
        QJsonObject json = SnapshotJson::toJson(c);
        QJsonArray routes;
        for (const RouteConfig &route : config->routes)
            if (std::find(route.channelIds.begin(), route.channelIds.end(), channelId) != route.channelIds.end())
                routes.append(route.logicalModel);
        json.insert(QStringLiteral("routes"), routes);
        const ChannelConfig *channel = config->channel(channelId);
        const ProviderConfig *provider = channel ? config->provider(channel->providerId) : nullptr;
        json.insert(QStringLiteral("provider"), provider ? provider->name : QString());
        json.insert(QStringLiteral("upstreamModel"), channel ? channel->upstreamModel : QString());
        json.insert(QStringLiteral("state"), stateOf(c));
        return json;
    }
    return {};
}

void AdminApi::events(const HttpRequest &request, const std::shared_ptr<ResponseWriter> &response)
{
    const QUrlQuery query(QString::fromUtf8(request.query));
    auto number = [&](const QString &name, qulonglong fallback, qulonglong *out) {
        const QString text = query.queryItemValue(name);
        if (text.isEmpty() && !query.hasQueryItem(name)) {
            *out = fallback;
            return true;
        }
        bool ok = false;
        *out = text.toULongLong(&ok);
        if (!ok)
            sendError(response, ApiError{400, QStringLiteral("'%1' must be a non-negative whole number.").arg(name),
                                         QStringLiteral("invalid_request_error"), name, QStringLiteral("invalid_value")});
        return ok;
    };
    qulonglong since = 0;
    qulonglong limit = 0;
    if (!number(QStringLiteral("since"), 0, &since) || !number(QStringLiteral("limit"), 100, &limit))
        return;
    limit = std::clamp<qulonglong>(limit, 1, maxEventsPerPage);
    QJsonArray data;
    const EventLog &log = m_controls.eventLog();
    for (const EventLog::Entry &entry : log.since(since, limit))
        data.append(SnapshotJson::toJson(entry));
    sendJson(response, 200, QJsonObject{{QStringLiteral("object"), QStringLiteral("list")},
                                        {QStringLiteral("data"), data},
                                        {QStringLiteral("lastId"), double(log.lastSequence())}});
}

void AdminApi::incidents(const std::shared_ptr<ResponseWriter> &response)
{
    QJsonArray data;
    const std::vector<EventLog::Entry> log = m_controls.eventLog().all();
    std::vector<EventRecord> records;
    records.reserve(log.size());
    std::map<int, QString> names;
    for (const EventLog::Entry &entry : log) {
        EventRecord record = toEventRecord(entry.event);
        record.id = static_cast<qint64>(entry.sequence);
        records.push_back(std::move(record));
        if (entry.event.channelId != 0 && !entry.event.channelName.isEmpty())
            names[entry.event.channelId] = entry.event.channelName;
    }
    for (const Incident &incident : IncidentBuilder().build(std::move(records), names))
        data.append(incidentJson(incident, log));
    sendJson(response, 200, QJsonObject{{QStringLiteral("object"), QStringLiteral("list")}, {QStringLiteral("data"), data}});
}

void AdminApi::snapshot(const std::shared_ptr<ResponseWriter> &response)
{
    QJsonObject body = SnapshotJson::toJson(m_controls.snapshot());
    body.insert(QStringLiteral("baseUrl"), m_controls.baseUrl());
    body.insert(QStringLiteral("lastEventId"), double(m_controls.eventLog().lastSequence()));
    sendJson(response, 200, body);
}

void AdminApi::reload(const std::shared_ptr<ResponseWriter> &response)
{
    // The configuration is read on the Gateway's thread (it owns the store); this worker answers
    // when that is done and never blocks meanwhile.
    m_controls.requestReload(m_context, [response](bool ok, const QString &message) {
        if (!response->isOpen())
            return;
        if (ok)
            sendJson(response, 200, QJsonObject{{QStringLiteral("reloaded"), true}, {QStringLiteral("message"), message}});
        else
            sendError(response, ApiError{500, message, QStringLiteral("server_error"), {}, QStringLiteral("reload_failed")});
    });
}

void AdminApi::fleet(const std::shared_ptr<ResponseWriter> &response)
{
    // Listing the instances is a Redis round trip on the control thread; this worker answers when
    // it is in, and never blocks meanwhile.
    m_controls.requestFleet(m_context, [response](const QJsonObject &body) {
        if (response->isOpen())
            sendJson(response, 200, body);
    });
}

void AdminApi::keys(const HttpRequest &request, const std::shared_ptr<ResponseWriter> &response, const QByteArray &rest)
{
    // rest is "{id}/enable"
    const QList<QByteArray> parts = rest.split('/');
    const std::optional<int> id = parseId(parts.value(0));
    if (!id || parts.size() != 2 || parts[1] != "enable") {
        notFound(response, QString::fromUtf8(request.path.left(200)));
        return;
    }
    if (!requireMethod(request, response, "POST"))
        return;
    // Like a reload: the store lives on the Gateway's thread; this worker answers when it is done.
    m_controls.requestKeyReenable(*id, m_context, [response, keyId = *id](bool ok, const QString &message) {
        if (!response->isOpen())
            return;
        if (ok)
            sendJson(response, 200, QJsonObject{{QStringLiteral("keyId"), keyId}, {QStringLiteral("enabled"), true}});
        else
            sendError(response, ApiError{409, message, QStringLiteral("invalid_request_error"), {}, QStringLiteral("key_not_refused")});
    });
}

void AdminApi::metrics(const std::shared_ptr<ResponseWriter> &response)
{
    HttpHeaders headers;
    headers.set("Content-Type", PrometheusExporter::contentType);
    response->send(200, headers,
                   renderPrometheusMetrics(m_controls.snapshot(), m_engine.requestMetrics().snapshot(), *m_engine.config(),
                                           m_controls.fleetStatus()));
}

void AdminApi::sendJson(const std::shared_ptr<ResponseWriter> &response, int status, const QJsonObject &body)
{
    HttpHeaders headers;
    headers.set("Content-Type", "application/json");
    response->send(status, headers, QJsonDocument(body).toJson(QJsonDocument::Compact));
}

void AdminApi::sendError(const std::shared_ptr<ResponseWriter> &response, const ApiError &error)
{
    HttpHeaders headers;
    headers.set("Content-Type", "application/json");
    response->send(error.status, headers, error.toJson());
}

void AdminApi::notFound(const std::shared_ptr<ResponseWriter> &response, const QString &what)
{
    sendError(response, ApiError{404, QStringLiteral("No such admin resource: %1. See the README's Admin API section for the paths.").arg(what),
                                 QStringLiteral("invalid_request_error"), {}, QStringLiteral("not_found")});
}

} // namespace sb
