#pragma once

#include "common/Clock.h"
#include "control/MetricsSnapshot.h"
#include "health/HealthEvent.h"
#include "model/EngineConfig.h"
#include "remote/TrustedCertificates.h"

#include <QObject>
#include <QPointer>
#include <QString>
#include <QJsonObject>
#include <QUrl>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>

class QNetworkAccessManager;
class QNetworkReply;

namespace sb {

// Attach: watches a running Switchboard — usually a headless one on a server —
// through its admin API, and offers the console the same signals as the embedded Gateway
// (snapshotReady once a poll, healthEvent for each new event), so the same pages can show it.
// One poll at a time (GET /admin/snapshot, then GET /admin/events?since=…) on one connection.
// The token is sent as a bearer token and never logged or shown. Lives on the GUI thread.
class RemoteGateway : public QObject {
    Q_OBJECT
public:
    enum class State {
        Disconnected, // not started, or stopped
        Connecting,   // started, no answer yet
        Connected,    // the last poll succeeded
        Unreachable,  // the last poll failed (refused, timed out, not a Switchboard); retried every interval
        Refused,      // 401/403: the token is wrong or missing; retried, in case it is fixed on the other side
    };
    Q_ENUM(State)

    struct Target {
        QString host = QStringLiteral("127.0.0.1");
        quint16 port = 8400;
        QString token; // the instance's local token; empty when it has none (it then answers loopback only)
        bool tls = false; // https: the instance's proxy port serves TLS
        // With tls: a PEM file of certificates trusted besides the system's CAs (the instance's own
        // certificate when it is self-signed, or the private CA that signed it); empty for none.
        QString trustFile{};
        // True for 127.0.0.0/8, ::1 and "localhost": a token sent there never leaves the machine.
        bool isLoopback() const;
    };

    RemoteGateway(const Clock &clock, Target target, QObject *parent = nullptr);
    ~RemoteGateway() override;

    // Polls now and then every `interval`; a restart after stop() begins with the recent events again.
    void start(std::chrono::milliseconds interval = std::chrono::seconds(1));
    // Ends the watch: every request of it is aborted and its connection to the instance closed.
    void stop();

    State state() const { return m_state; }
    // "http://host:port" (https with TLS) — for the console's "which instance is shown" indicator (no token in it).
    QString displayName() const;
    const MetricsSnapshot &lastSnapshot() const { return m_last; }
    // Names only (see namesReady); null until the instance has told them.
    EngineConfigPtr names() const { return m_names; }

    // The console's channel actions, sent to the remote instance; actionFinished reports each.
    void eject(int channelId);
    void readmit(int channelId);
    void probeNow(int channelId);
    void reload();
    // GET /admin/fleet, outside the poll; `reply` gets the body (on `context`'s thread, never after
    // `context` is gone), or nothing when the instance did not answer it.
    void requestFleet(QObject *context, std::function<void(const QJsonObject &)> reply);

signals:
    void snapshotReady(const sb::MetricsSnapshot &snapshot);
    void healthEvent(const sb::HealthEvent &event);
    // The subset of healthEvent that happened while this watch ran: after the instance's first
    // answer, or after it restarted. The recent events a first poll brings are context for the
    // pages, not news — the tray must not announce an hour-old circuit as if it had just opened.
    void newHealthEvent(const sb::HealthEvent &event);
    // Every change of state, with a sentence for the status bar ("Connected to …", "Cannot reach …: …").
    void stateChanged(sb::RemoteGateway::State state, const QString &message);
    void actionFinished(bool ok, const QString &message);
    // The instance's provider and route names per channel (GET /admin/channels), as a configuration
    // that holds nothing else: no URLs, no keys, no thresholds. A snapshot carries channel ids and
    // names only, and the Channels page wants to say "gpt-4o · openai-main" as it does for the
    // embedded engine. Asked again whenever the set of channels changes.
    void namesReady(sb::EngineConfigPtr names);

private:
    void poll();
    void pollEvents();
    void post(const QString &path, const QString &what);
    void fetchNames(std::vector<int> channelIds);
    QNetworkReply *send(const QByteArray &method, const QString &pathAndQuery);
    // False (and the state updated) when the reply is an error; *json is the parsed body otherwise.
    bool readReply(QNetworkReply *reply, QJsonObject *json);
    void setState(State state, const QString &message);

    const Clock &m_clock;
    const Target m_target;
    // The certificates trusted besides the system's (read once from Target::trustFile), or why the
    // file cannot serve: then no request is sent, since it would fail or trust less than asked.
    TrustedCertificates m_trusted;
    QString m_trustProblem;
    // Why the last TLS handshake refused the instance's certificate, for the state's sentence.
    QString m_tlsAdvice;
    QNetworkAccessManager *m_http;
    std::unique_ptr<Timer> m_timer;
    QPointer<QNetworkReply> m_inFlight;
    QPointer<QNetworkReply> m_namesInFlight;
    std::vector<int> m_namedChannels; // the channel ids m_names describes
    EngineConfigPtr m_names;
    State m_state = State::Disconnected;
    MetricsSnapshot m_last;
    std::uint64_t m_lastEventId = 0;
    bool m_haveEvents = false;
    // Events up to this sequence number happened before the watch began (newHealthEvent skips them).
    std::uint64_t m_contextUntil = 0;
    bool m_contextKnown = false;
};

} // namespace sb
