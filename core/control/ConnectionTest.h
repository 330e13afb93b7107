#pragma once

#include "common/Clock.h"
#include "model/Outcome.h"
#include "model/ProviderConfig.h"

#include <QMetaType>
#include <QObject>
#include <QString>

#include <chrono>
#include <memory>

namespace sb {

class UpstreamClient;

// The provider dialog's "Test connection": one probe (the dialect's light request, usually a model
// list) sent with one key, judged by the dialect's ErrorMap, so the user sees the same verdict the
// engine would reach — and a 401 says "auth error" whatever the provider's wire format. Runs on the
// calling thread's event loop (UpstreamClient), never blocks; one test at a time per object.
class ConnectionTest : public QObject {
    Q_OBJECT
public:
    enum class Verdict { Passed, Warning, Failed };

    struct Result {
        Verdict verdict = Verdict::Failed;
        int httpStatus = 0; // 0 when no response arrived (refused, timeout)
        std::chrono::milliseconds elapsed{0};
        OutcomeKind kind = OutcomeKind::ConnectFailed;
        QString message;    // the provider's or the transport's reason; the key is masked out of it
        int modelCount = -1; // models the listing named, -1 when the probe is not a listing
        bool tokenGranted = false; // the probe was a token exchange (ERNIE's credential pair), and it answered with a token

        // One line for the dialog: "✓ 200 in 182 ms, 42 models listed", "✗ 401 auth error: …".
        QString text() const;
    };

    explicit ConnectionTest(Clock &clock, QObject *parent = nullptr);
    ~ConnectionTest() override;

    // Probes `provider` (its dialect, base URL, connect timeout and egress proxy) with `secret`.
    // `upstreamModel` is for dialects whose probe is a tiny chat call (ERNIE with a raw access token);
    // others ignore it. A key the dialect exchanges for tokens (ERNIE's "API_KEY:SECRET_KEY") is
    // tested by that exchange alone.
    // A test still running is cancelled without a result. The result arrives through finished(),
    // never from inside start().
    void start(const ProviderConfig &provider, const QString &secret, const QString &upstreamModel = QString(),
               std::chrono::milliseconds timeout = std::chrono::seconds(10));
    void cancel();
    bool isRunning() const { return m_transferId != 0; }

    static QString kindText(OutcomeKind kind); // "auth error", "rate limited", …
    // Entries in a model listing (OpenAI/Anthropic "data", Gemini "models"); -1 if the body is no listing.
    static int countModels(const QByteArray &body);

signals:
    void finished(const sb::ConnectionTest::Result &result);

private:
    void finish(Result result);

    Clock &m_clock;
    std::unique_ptr<UpstreamClient> m_upstream;
    quint64 m_transferId = 0;
};

} // namespace sb

Q_DECLARE_METATYPE(sb::ConnectionTest::Result)
