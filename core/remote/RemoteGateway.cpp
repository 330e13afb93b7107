#include "remote/RemoteGateway.h"

#include "control/SnapshotJson.h"

#include <QHash>
#include <QHostAddress>
#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QSslConfiguration>

namespace sb {

namespace {

// The first poll asks for this many past events, so an attached console starts with some context.
constexpr int initialEvents = 200;

} // namespace

RemoteGateway::RemoteGateway(const Clock &clock, Target target, QObject *parent)
    : QObject(parent)
    , m_clock(clock)
    , m_target(std::move(target))
    , m_http(new QNetworkAccessManager(this))
    , m_timer(clock.createTimer([this] { poll(); }, TimerKind::Repeating))
{
    qRegisterMetaType<sb::MetricsSnapshot>();
    qRegisterMetaType<sb::HealthEvent>();
    if (m_target.tls && !m_target.trustFile.isEmpty()) {
        if (auto trusted = TrustedCertificates::read(m_target.trustFile, &m_trustProblem))
            m_trusted = std::move(*trusted);
    }
}

RemoteGateway::~RemoteGateway()
{
    stop();
}

void RemoteGateway::start(std::chrono::milliseconds interval)
{
    // Every start is a new watch: its first poll brings the recent events again, so a console that
    // takes over a gateway someone else started (the Attach dialog) still gets the context.
    m_haveEvents = false;
    m_lastEventId = 0;
    m_contextKnown = false;
    m_namedChannels.clear();
    setState(State::Connecting, QStringLiteral("Connecting to %1 …").arg(displayName()));
    m_timer->start(interval);
    poll();
}

void RemoteGateway::stop()
{
    m_timer->stop();
    // Every request of this watch — the poll, a names query, an action still waiting for its answer —
    // is aborted on purpose: no handler may report on a watch that ended (an action's would even
    // poll again), and none of its requests may stay open on the instance.
    for (QNetworkReply *reply : m_http->findChildren<QNetworkReply *>()) {
        reply->disconnect(this);
        reply->abort();
        reply->deleteLater();
    }
    m_inFlight = nullptr; // a start() right after must poll at once, not wait for the aborted one to go
    m_namesInFlight = nullptr;
    m_http->clearConnectionCache(); // and the kept-alive connection goes too, not when this object does
    setState(State::Disconnected, QStringLiteral("Not attached."));
}

QString RemoteGateway::displayName() const
{
    const QString host = m_target.host.contains(QLatin1Char(':')) ? QStringLiteral("[%1]").arg(m_target.host) : m_target.host;
    return QStringLiteral("%1://%2:%3").arg(m_target.tls ? QStringLiteral("https") : QStringLiteral("http"), host).arg(m_target.port);
}

bool RemoteGateway::Target::isLoopback() const
{
    if (host.compare(QLatin1String("localhost"), Qt::CaseInsensitive) == 0)
        return true;
    const QHostAddress address(host);
    return !address.isNull() && address.isLoopback();
}

void RemoteGateway::requestFleet(QObject *context, std::function<void(const QJsonObject &)> reply)
{
    QNetworkReply *answer = send("GET", QStringLiteral("/admin/fleet"));
    QPointer<QObject> guard(context);
    connect(answer, &QNetworkReply::finished, this, [answer, guard, reply = std::move(reply)] {
        answer->deleteLater();
        const int status = answer->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        const QJsonObject body = QJsonDocument::fromJson(answer->readAll()).object();
        // The poll reports an unreachable or refusing instance; this one only answers when it can.
        if (guard && status == 200 && !body.isEmpty())
            reply(body);
    });
}

QNetworkReply *RemoteGateway::send(const QByteArray &method, const QString &pathAndQuery)
{
    QNetworkRequest request(QUrl(displayName() + pathAndQuery));
    request.setTransferTimeout(10000); // a remote that stops answering must show as unreachable, not hang the poll
    if (m_target.tls && !m_trusted.certificates.isEmpty()) {
        // Added to the system's CAs, never replacing them: an instance whose certificate is renewed
        // by a public CA later still verifies. The host name is checked as always.
        QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
        tls.addCaCertificates(m_trusted.certificates);
        request.setSslConfiguration(tls);
    }
    if (!m_target.token.isEmpty())
        request.setRawHeader("Authorization", "Bearer " + m_target.token.toUtf8());
    if (method == "POST")
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    QNetworkReply *reply = m_http->sendCustomRequest(request, method, method == "POST" ? QByteArrayLiteral("{}") : QByteArray());
    if (m_target.tls)
        connect(reply, &QNetworkReply::sslErrors, this, [this](const QList<QSslError> &errors) {
            m_tlsAdvice = untrustedCertificateAdvice(errors);
        });
    return reply;
}

bool RemoteGateway::readReply(QNetworkReply *reply, QJsonObject *json)
{
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const QByteArray body = reply->readAll();
    const QJsonObject parsed = QJsonDocument::fromJson(body).object();
    if (status == 401 || status == 403) {
        setState(State::Refused, QStringLiteral("%1 refused the token: %2").arg(displayName(),
                 parsed.value(QStringLiteral("error")).toObject().value(QStringLiteral("message")).toString()));
        return false;
    }
    if (reply->error() != QNetworkReply::NoError && status == 0) {
        const bool untrusted = reply->error() == QNetworkReply::SslHandshakeFailedError && !m_tlsAdvice.isEmpty();
        setState(State::Unreachable, QStringLiteral("Cannot reach %1: %2").arg(displayName(), untrusted ? m_tlsAdvice : reply->errorString()));
        return false;
    }
    if (status != 200 || parsed.isEmpty()) {
        setState(State::Unreachable, QStringLiteral("%1 did not answer like a Switchboard admin API (HTTP %2).").arg(displayName()).arg(status));
        return false;
    }
    *json = parsed;
    return true;
}

void RemoteGateway::poll()
{
    if (m_inFlight)
        return; // the previous poll is still waiting; never pile requests up on a slow instance
    if (!m_trustProblem.isEmpty()) {
        setState(State::Unreachable, QStringLiteral("Cannot attach to %1: the certificate file to trust: %2").arg(displayName(), m_trustProblem));
        return;
    }
    QNetworkReply *reply = send("GET", QStringLiteral("/admin/snapshot"));
    m_inFlight = reply;
    connect(reply, &QNetworkReply::finished, this, [this, reply] {
        reply->deleteLater();
        QJsonObject json;
        if (!readReply(reply, &json))
            return;
        m_last = SnapshotJson::snapshotFromJson(json);
        const auto remoteLast = static_cast<std::uint64_t>(json.value(QStringLiteral("lastEventId")).toDouble());
        if (!m_contextKnown) { // the first answer: whatever the instance had logged so far is context
            m_contextUntil = remoteLast;
            m_contextKnown = true;
        }
        if (remoteLast < m_lastEventId) { // the instance restarted: its event numbers began again,
            m_haveEvents = false;         // and all of them happened while we watched
            m_contextUntil = 0;
        }
        setState(State::Connected, QStringLiteral("Watching %1.").arg(displayName()));
        std::vector<int> ids;
        for (const ChannelSnapshot &channel : m_last.channels)
            ids.push_back(channel.channelId);
        if (ids != m_namedChannels)
            fetchNames(std::move(ids));
        emit snapshotReady(m_last);
        if (!m_haveEvents || remoteLast > m_lastEventId)
            pollEvents();
    });
}

void RemoteGateway::pollEvents()
{
    const QString query = m_haveEvents ? QStringLiteral("/admin/events?since=%1&limit=1000").arg(m_lastEventId)
                                       : QStringLiteral("/admin/events?since=0&limit=%1").arg(initialEvents);
    QNetworkReply *reply = send("GET", query);
    m_inFlight = reply;
    connect(reply, &QNetworkReply::finished, this, [this, reply] {
        reply->deleteLater();
        QJsonObject json;
        if (!readReply(reply, &json))
            return;
        if (!m_haveEvents)
            m_lastEventId = 0;
        m_haveEvents = true;
        for (const QJsonValue &value : json.value(QStringLiteral("data")).toArray()) {
            auto entry = SnapshotJson::eventFromJson(value.toObject());
            if (!entry || entry->sequence <= m_lastEventId)
                continue;
            m_lastEventId = entry->sequence;
            entry->event.at = m_clock.now(); // the remote's steady clock means nothing here
            emit healthEvent(entry->event);
            if (entry->sequence > m_contextUntil)
                emit newHealthEvent(entry->event);
        }
    });
}

void RemoteGateway::fetchNames(std::vector<int> channelIds)
{
    if (m_namesInFlight)
        return; // the answer on its way is checked against the next snapshot's channels
    QNetworkReply *reply = send("GET", QStringLiteral("/admin/channels"));
    m_namesInFlight = reply;
    connect(reply, &QNetworkReply::finished, this, [this, reply, channelIds = std::move(channelIds)] {
        reply->deleteLater();
        QJsonObject json;
        if (!readReply(reply, &json))
            return;
        auto names = std::make_shared<EngineConfig>();
        QHash<QString, std::size_t> routeIndex;
        for (const QJsonValue &value : json.value(QStringLiteral("data")).toArray()) {
            const QJsonObject channel = value.toObject();
            ChannelConfig c;
            c.id = channel.value(QStringLiteral("channelId")).toInt();
            c.name = channel.value(QStringLiteral("name")).toString();
            c.providerId = channel.value(QStringLiteral("providerId")).toInt();
            names->channels.push_back(c);
            if (!names->provider(c.providerId)) {
                ProviderConfig provider;
                provider.id = c.providerId;
                provider.name = channel.value(QStringLiteral("provider")).toString();
                names->providers.push_back(provider);
            }
            for (const QJsonValue &route : channel.value(QStringLiteral("routes")).toArray()) {
                const QString model = route.toString();
                if (!routeIndex.contains(model)) {
                    routeIndex.insert(model, names->routes.size());
                    RouteConfig r;
                    r.logicalModel = model;
                    names->routes.push_back(r);
                }
                names->routes[routeIndex.value(model)].channelIds.push_back(c.id);
            }
        }
        m_namedChannels = channelIds;
        m_names = names;
        emit namesReady(names);
    });
}

void RemoteGateway::post(const QString &path, const QString &what)
{
    QNetworkReply *reply = send("POST", path);
    connect(reply, &QNetworkReply::finished, this, [this, reply, what] {
        reply->deleteLater();
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        const QJsonObject json = QJsonDocument::fromJson(reply->readAll()).object();
        if (status >= 200 && status < 300) {
            emit actionFinished(true, QStringLiteral("%1 on %2: done.").arg(what, displayName()));
            poll(); // show the effect without waiting for the next interval
            return;
        }
        const QString reason = status == 0 ? reply->errorString()
                                           : json.value(QStringLiteral("error")).toObject().value(QStringLiteral("message")).toString();
        emit actionFinished(false, QStringLiteral("%1 on %2 failed: %3").arg(what, displayName(), reason));
    });
}

void RemoteGateway::eject(int channelId)
{
    post(QStringLiteral("/admin/channels/%1/eject").arg(channelId), QStringLiteral("Eject channel %1").arg(channelId));
}

void RemoteGateway::readmit(int channelId)
{
    post(QStringLiteral("/admin/channels/%1/readmit").arg(channelId), QStringLiteral("Re-admit channel %1").arg(channelId));
}

void RemoteGateway::probeNow(int channelId)
{
    post(QStringLiteral("/admin/channels/%1/probe").arg(channelId), QStringLiteral("Probe channel %1").arg(channelId));
}

void RemoteGateway::reload()
{
    post(QStringLiteral("/admin/reload"), QStringLiteral("Reload"));
}

void RemoteGateway::setState(State state, const QString &message)
{
    // A steady state is reported once; the same failure every second would flood the status bar.
    if (state == m_state)
        return;
    m_state = state;
    emit stateChanged(state, message);
}

} // namespace sb
