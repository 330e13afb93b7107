#pragma once

#include "sim/DialectWire.h"
#include "sim/FaultTimeline.h"
#include "sim/Scenario.h"
#include "sim/ScenarioClock.h"
#include "sim/TokenIssuer.h"

#include <QObject>
#include <QString>

#include <array>
#include <deque>
#include <mutex>
#include <atomic>
#include <memory>

namespace sb {
class HttpServer;
class TlsServerContext;
}

namespace sb::sim {

// One scripted provider: answers its dialect's chat and probe endpoints on 127.0.0.1 with the fault
// program of its ProviderSpec, on the local HTTP server's worker threads. Pacing (TTFT, tokens/s) runs
// on QTimers in real time = scenario time / time scale; fault decisions read the scenario clock.
class FakeProvider : public QObject {
    Q_OBJECT
public:
    // What one chat exchange put on the wire: the partial answer it was asked to continue (empty
    // for a fresh answer) and the answer's text in the events it sent whole.
    struct SentAnswer {
        QByteArray partial;
        QByteArray text;
        bool complete = false; // it ended the answer the dialect's way
        QByteArray toolArguments; // a complete answer's tool call, its arguments as sent
    };
    static constexpr std::size_t kSentAnswersKept = 4096;

    struct Stats {
        quint64 requests = 0;    // every HTTP request
        quint64 chat = 0;        // chat requests
        quint64 embeddings = 0;  // embeddings requests
        quint64 probes = 0;      // heartbeat / model-list requests
        quint64 probesFailed = 0;
        quint64 succeeded = 0;   // chat answers completed without an injected fault
        quint64 keyRejected = 0; // unknown key or per-key rate limit
        quint64 listenerClosures = 0; // connect_refused windows entered
        quint64 tokenExchanges = 0;   // ERNIE: requests to /oauth/2.0/token (granted or refused)
        quint64 tokensGranted = 0;
        quint64 tokensRefused = 0;    // ERNIE: chat or embeddings calls with an expired or revoked token
        std::array<quint64, SimErrorCount> injected{}; // by SimError
        std::vector<SentAnswer> answers; // the last kSentAnswersKept chat exchanges, oldest first
    };

    // `random` must be thread-safe (sb::SplitMixRandom is); workers draw from it concurrently.
    FakeProvider(ProviderSpec spec, const ScenarioClock &clock, Random &random, int workerCount = 2,
                 QObject *parent = nullptr);
    ~FakeProvider() override;

    bool start(QString *error = nullptr);
    void stop();
    quint16 port() const { return m_port; }
    bool isListening() const;
    // What a proxy's provider config puts in base_url: "http://127.0.0.1:PORT/v1" and the like.
    QString baseUrl() const;
    const ProviderSpec &spec() const { return m_shared->spec; }
    Stats stats() const;
    const KeyLimiter &keyLimiter() const { return m_shared->keys; }
    // ERNIE: the access tokens granted so far answer 110 (revoked) or 111 (expired) from now on.
    void revokeTokens() { m_shared->tokens.revokeAll(); }
    void expireTokens() { m_shared->tokens.expireAll(); }

    // State shared by the per-worker handlers; public only so the handler (in the .cpp) can name it.
    struct Shared {
        Shared(ProviderSpec s, const ScenarioClock &c, Random &r);
        ProviderSpec spec;
        DialectWire wire;
        FaultTimeline timeline;
        KeyLimiter keys;
        TokenIssuer tokens;
        const ScenarioClock &clock;
        Random &random;
        std::atomic<quint64> nextId{1};
        std::atomic<quint64> requests{0};
        std::atomic<quint64> chat{0};
        std::atomic<quint64> embeddings{0};
        std::atomic<quint64> probes{0};
        std::atomic<quint64> probesFailed{0};
        std::atomic<quint64> succeeded{0};
        std::atomic<quint64> keyRejected{0};
        std::atomic<quint64> tokensRefused{0};
        std::array<std::atomic<quint64>, SimErrorCount> injected{};
        std::mutex answersMutex;
        std::deque<SentAnswer> answers;
        void recordAnswer(SentAnswer answer);
    };

private:
    bool openListener(QString *error);
    void closeListener();
    void checkListener();

    std::shared_ptr<Shared> m_shared;
    int m_workerCount;
    quint16 m_port = 0;
    std::unique_ptr<HttpServer> m_server;
    std::shared_ptr<const TlsServerContext> m_tls; // when the spec serves HTTPS; kept across listener reopenings
    std::unique_ptr<Timer> m_listenerTimer;
    quint64 m_listenerClosures = 0;
    bool m_running = false;
};

} // namespace sb::sim
