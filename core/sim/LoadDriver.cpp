#include "sim/LoadDriver.h"

#include "net/UpstreamClient.h"
#include "stream/SseParser.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>

namespace sb::sim {

struct LoadDriver::InFlight {
    quint64 transfer = 0;
    Clock::TimePoint sentAt;
    SseParser parser;
    QByteArray body; // non-stream only
    bool sawDone = false;
    bool sawFinish = false;
    bool sawError = false;
    std::optional<Clock::TimePoint> lastText; // when the last piece of text came
};

namespace {

bool truthy(const QByteArray &v)
{
    return v == "1" || v.compare("true", Qt::CaseInsensitive) == 0 || v.compare("yes", Qt::CaseInsensitive) == 0;
}

// The tool a load that offers tools sends with every request, in OpenAI's shape.
QJsonArray searchTool()
{
    const QJsonObject parameters{{"type", "object"},
                                 {"properties", QJsonObject{{"query", QJsonObject{{"type", "string"}}}, {"limit", QJsonObject{{"type", "integer"}}}}}};
    return QJsonArray{QJsonObject{{"type", "function"},
                                  {"function", QJsonObject{{"name", "search"}, {"description", "Search the notes"}, {"parameters", parameters}}}}};
}

} // namespace

LoadDriver::LoadDriver(LoadSpec load, const ScenarioClock &clock, Random &random, QUrl endpoint, QByteArray apiKey,
                       QObject *parent)
    : QObject(parent), m_load(std::move(load)), m_clock(clock), m_random(random), m_endpoint(std::move(endpoint)),
      m_apiKey(std::move(apiKey)), m_client(std::make_unique<UpstreamClient>(clock.clock())),
      m_timer(clock.clock().createTimer([this] { scheduleNext(); }))
{
}

LoadDriver::~LoadDriver() = default;

void LoadDriver::start()
{
    if (m_started)
        return;
    m_started = true;
    m_plan = LoadSchedule::plan(m_load, m_random);
    m_records.reserve(m_plan.size());
    m_inFlight.reserve(m_plan.size());
    scheduleNext();
}

void LoadDriver::scheduleNext()
{
    const double now = m_clock.now();
    while (m_nextPlanned < m_plan.size() && m_plan[m_nextPlanned].at <= now)
        send(m_plan[m_nextPlanned++]);
    if (m_nextPlanned < m_plan.size()) {
        const double waitMs = m_clock.toRealMs((m_plan[m_nextPlanned].at - now) * 1000.0);
        m_timer->start(std::chrono::microseconds(std::max<qint64>(0, std::llround(std::floor(waitMs) * 1000.0))));
    }
    checkFinished();
}

void LoadDriver::send(const PlannedRequest &planned)
{
    const std::size_t index = m_records.size();
    RequestRecord rec;
    rec.at = planned.at;
    rec.model = planned.model;
    rec.stream = planned.stream;
    m_records.push_back(rec);
    if (m_stats.inFlight >= static_cast<quint64>(m_load.concurrency)) {
        m_records.back().dropped = true;
        m_inFlight.emplace_back();
        ++m_stats.dropped;
        return;
    }
    ++m_stats.sent;
    ++m_stats.inFlight;
    auto state = std::make_unique<InFlight>();
    InFlight *st = state.get();
    m_inFlight.push_back(std::move(state));

    UpstreamRequest request;
    request.method = "POST";
    request.url = m_endpoint;
    request.stream = planned.stream;
    request.headers.add("content-type", "application/json");
    if (!m_apiKey.isEmpty())
        request.headers.add("authorization", "Bearer " + m_apiKey);
    QJsonObject body{{"model", planned.model},
                     {"messages", QJsonArray{QJsonObject{{"role", "user"}, {"content", "Say something about failover."}}}},
                     {"stream", planned.stream}};
    if (m_load.tools)
        body.insert(QStringLiteral("tools"), searchTool());
    request.body = QJsonDocument(body).toJson(QJsonDocument::Compact);

    TransferOptions options;
    options.connectTimeout = std::chrono::milliseconds(static_cast<qint64>(std::ceil(m_clock.toRealMs(m_load.timeoutSeconds * 1000.0))));
    options.totalTimeout = options.connectTimeout;
    options.allowHttp2 = false;
    options.caBundlePath = m_caBundle;

    TransferCallbacks callbacks;
    callbacks.onHeaders = [this, index](int status, const HttpHeaders &headers) {
        RequestRecord &r = m_records[index];
        r.status = status;
        r.channel = QString::fromUtf8(headers.value("x-switchboard-channel"));
        if (r.channel.isEmpty())
            r.channel = QString::fromUtf8(headers.value("x-sim-provider"));
        bool ok = false;
        const int attempts = headers.value("x-switchboard-attempts").toInt(&ok);
        r.attempts = ok ? attempts : 1;
        r.failover = truthy(headers.value("x-switchboard-failover"));
    };
    callbacks.onData = [this, index, st](QByteArrayView chunk) {
        RequestRecord &r = m_records[index];
        if (!r.stream || r.status != 200) {
            st->body.append(chunk.data(), chunk.size());
            return;
        }
        for (const SseEvent &e : st->parser.feed(chunk)) {
            if (e.data == "[DONE]") {
                st->sawDone = true;
                continue;
            }
            const QJsonObject o = QJsonDocument::fromJson(e.data).object();
            if (o.contains(QLatin1String("error"))) {
                st->sawError = true;
                continue;
            }
            const QJsonObject choice = o.value(QLatin1String("choices")).toArray().at(0).toObject();
            const QString content = choice.value(QLatin1String("delta")).toObject().value(QLatin1String("content")).toString();
            if (!content.isEmpty()) {
                const Clock::TimePoint now = m_clock.clock().now();
                if (r.ttftMs < 0)
                    r.ttftMs = m_clock.toScenarioMs(toMillis(now - st->sentAt));
                if (st->lastText)
                    r.maxGapMs = std::max(r.maxGapMs, m_clock.toScenarioMs(toMillis(now - *st->lastText)));
                st->lastText = now;
                r.text += content.toUtf8();
            }
            for (const QJsonValue &call : choice.value(QLatin1String("delta")).toObject().value(QLatin1String("tool_calls")).toArray()) {
                if (r.ttftMs < 0) // a call is content too: an answer may be nothing else
                    r.ttftMs = m_clock.toScenarioMs(toMillis(m_clock.clock().now() - st->sentAt));
                r.toolCalls += call.toObject().contains(QLatin1String("id"));
                r.toolArguments += call.toObject().value(QLatin1String("function")).toObject().value(QLatin1String("arguments")).toString().toUtf8();
            }
            if (choice.value(QLatin1String("finish_reason")).isString())
                st->sawFinish = true;
        }
    };
    callbacks.onComplete = [this, index, st](TransferError error, const QString &) {
        RequestRecord &r = m_records[index];
        r.latencyMs = m_clock.toScenarioMs(toMillis(m_clock.clock().now() - st->sentAt));
        if (error != TransferError::None) {
            r.ok = false;
            r.error = transferErrorName(error);
        } else if (r.status != 200) {
            r.ok = false;
            r.error = QStringLiteral("http_%1").arg(r.status);
        } else if (r.stream) {
            // A direct run against a provider has no [DONE] from a proxy only when the dialect omits it;
            // OpenAI-compatible streams always end with it.
            r.ok = !st->sawError && st->sawDone && r.ttftMs >= 0;
            if (!r.ok)
                r.error = st->sawError ? QStringLiteral("stream_error") : QStringLiteral("stream_incomplete");
        } else {
            const QJsonObject o = QJsonDocument::fromJson(st->body).object();
            r.ok = !o.contains(QLatin1String("error")) && o.value(QLatin1String("choices")).toArray().size() > 0;
            if (!r.ok)
                r.error = o.contains(QLatin1String("error")) ? QStringLiteral("error_body") : QStringLiteral("bad_body");
            else
                r.ttftMs = r.latencyMs; // no tokens before the whole body
        }
        complete(index);
    };
    st->sentAt = m_clock.clock().now();
    st->transfer = m_client->start(request, options, std::move(callbacks));
}

void LoadDriver::complete(std::size_t index)
{
    ++m_stats.completed;
    --m_stats.inFlight;
    // Freed later: this runs inside the transfer's own callback.
    std::unique_ptr<InFlight> done = std::move(m_inFlight[index]);
    QMetaObject::invokeMethod(this, [d = std::shared_ptr<InFlight>(std::move(done))] {}, Qt::QueuedConnection);
    checkFinished();
}

void LoadDriver::checkFinished()
{
    if (m_finished || !m_started || m_nextPlanned < m_plan.size() || m_stats.inFlight > 0)
        return;
    m_finished = true;
    QMetaObject::invokeMethod(this, &LoadDriver::finished, Qt::QueuedConnection);
}

} // namespace sb::sim
