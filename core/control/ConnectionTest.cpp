#include "control/ConnectionTest.h"

#include "common/SecretMask.h"
#include "net/UpstreamClient.h"
#include "providers/ProviderRegistry.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QUrlQuery>

#include <algorithm>

namespace sb {

namespace {

// A provider may echo the key it rejected ("Incorrect API key provided: sk-…"); the dialog line,
// like every log, may only ever carry the masked form.
QString scrub(QString text, const QString &secret)
{
    if (!secret.isEmpty())
        text.replace(secret, maskSecret(secret));
    return text.simplified();
}

QString seconds(std::chrono::milliseconds ms)
{
    return QStringLiteral("%1 s").arg(double(ms.count()) / 1000.0, 0, 'g', 3);
}

} // namespace

QString ConnectionTest::Result::text() const
{
    const QString time = QStringLiteral("%1 ms").arg(elapsed.count());
    switch (verdict) {
    case Verdict::Passed: {
        QString line = QStringLiteral("✓ %1 in %2").arg(httpStatus).arg(time);
        if (tokenGranted)
            line += QStringLiteral(", the API key and secret key got an access token");
        if (modelCount >= 0)
            line += modelCount == 1 ? QStringLiteral(", 1 model listed") : QStringLiteral(", %1 models listed").arg(modelCount);
        return line;
    }
    case Verdict::Warning:
        return QStringLiteral("⚠ %1 %2 in %3: %4 — the URL and key answer; try again later")
            .arg(httpStatus).arg(kindText(kind), time, message);
    case Verdict::Failed:
        break;
    }
    if (httpStatus == 0)
        return QStringLiteral("✗ %1: %2").arg(kindText(kind), message);
    return QStringLiteral("✗ %1 %2: %3").arg(httpStatus).arg(kindText(kind), message);
}

ConnectionTest::ConnectionTest(Clock &clock, QObject *parent)
    : QObject(parent), m_clock(clock), m_upstream(std::make_unique<UpstreamClient>(clock))
{
    qRegisterMetaType<sb::ConnectionTest::Result>();
}

ConnectionTest::~ConnectionTest() = default; // the client aborts a running probe without callbacks

QString ConnectionTest::kindText(OutcomeKind kind)
{
    switch (kind) {
    case OutcomeKind::Success: return QStringLiteral("ok");
    case OutcomeKind::RetryableRateLimit: return QStringLiteral("rate limited");
    case OutcomeKind::NonRetryableParamError: return QStringLiteral("request refused");
    case OutcomeKind::ProviderDown: return QStringLiteral("provider down");
    case OutcomeKind::AuthError: return QStringLiteral("auth error");
    case OutcomeKind::Timeout: return QStringLiteral("timeout");
    case OutcomeKind::ConnectFailed: return QStringLiteral("connection failed");
    }
    return QString();
}

int ConnectionTest::countModels(const QByteArray &body)
{
    const QJsonObject root = QJsonDocument::fromJson(body).object();
    for (const char *field : {"data", "models"}) {
        const QJsonValue list = root.value(QLatin1String(field));
        if (list.isArray())
            return int(list.toArray().size());
    }
    return -1;
}

void ConnectionTest::start(const ProviderConfig &provider, const QString &secret, const QString &upstreamModel,
                           std::chrono::milliseconds timeout)
{
    cancel();
    const ProviderAdapter *adapter = ProviderRegistry::find(provider.dialect);
    if (!adapter) {
        // Reported like every other result: later, through finished().
        Result r;
        r.kind = OutcomeKind::NonRetryableParamError;
        r.message = QStringLiteral("unknown dialect \"%1\"; choose one from the list").arg(provider.dialect);
        QMetaObject::invokeMethod(this, [this, r] { emit finished(r); }, Qt::QueuedConnection);
        return;
    }
    ChannelConfig channel;
    channel.providerId = provider.id;
    channel.upstreamModel = upstreamModel;
    const AdapterContext context{&provider, &channel, secret};
    // A key exchanged for access tokens (ERNIE's API key + secret key) is tested by its exchange,
    // which proves the pair and the host; a raw ERNIE token by the dialect's probe, a tiny chat.
    const std::optional<UpstreamRequest> exchange = adapter->tokenRequest(context);
    const UpstreamRequest request = exchange ? *exchange : adapter->probeRequest(context);
    // The exchange's URL holds the secret key: that, too, is masked out of whatever is shown.
    QString secretKey;
    if (exchange)
        secretKey = QUrlQuery(exchange->url).queryItemValue(QStringLiteral("client_secret"), QUrl::FullyDecoded);

    TransferOptions options;
    options.connectTimeout = std::min(provider.connectTimeout, timeout);
    options.totalTimeout = timeout;
    options.proxyUrl = provider.domain.egressProxy;
    applyProviderTls(options, provider);
    options.maxResponseBytes = 4 * 1024 * 1024; // a model list, not a download

    struct State {
        int status = 0;
        HttpHeaders headers;
        QByteArray body;
    };
    auto state = std::make_shared<State>();
    const Clock::TimePoint started = m_clock.now();
    TransferCallbacks callbacks;
    callbacks.onHeaders = [state](int status, const HttpHeaders &headers) {
        state->status = status;
        state->headers = headers;
    };
    callbacks.onData = [state](QByteArrayView chunk) { state->body.append(chunk.data(), chunk.size()); };
    const bool exchanging = exchange.has_value();
    callbacks.onComplete = [this, state, started, adapter, secret, secretKey, exchanging, timeout](TransferError error, const QString &message) {
        Result r;
        r.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(m_clock.now() - started);
        if (error != TransferError::None) {
            r.kind = error == TransferError::Timeout ? OutcomeKind::Timeout : OutcomeKind::ConnectFailed;
            r.message = error == TransferError::Timeout
                            ? QStringLiteral("no answer within %1").arg(seconds(timeout))
                            : scrub(scrub(message, secret), secretKey);
            finish(r);
            return;
        }
        if (exchanging) {
            const AccessTokenGrant grant = adapter->readTokenAnswer(state->status, state->headers, state->body);
            r.httpStatus = state->status;
            r.tokenGranted = grant.granted();
            if (grant.granted()) {
                r.verdict = Verdict::Passed;
                r.kind = OutcomeKind::Success;
            } else {
                r.kind = grant.failure->kind;
                r.message = scrub(scrub(grant.failure->message, secret), secretKey);
                if (r.kind == OutcomeKind::RetryableRateLimit)
                    r.verdict = Verdict::Warning;
            }
            finish(r);
            return;
        }
        const Outcome outcome = adapter->classifyProbe(state->status, state->headers, state->body);
        const int listed = countModels(state->body);
        r.httpStatus = state->status;
        r.kind = outcome.kind;
        r.message = scrub(outcome.message, secret);
        if (outcome.isSuccess()) {
            r.verdict = Verdict::Passed;
            r.modelCount = listed;
        } else if (outcome.kind == OutcomeKind::RetryableRateLimit) {
            // Rate limited means the provider knew the key: worth a warning, not a red cross.
            r.verdict = Verdict::Warning;
        }
        if (r.message.isEmpty() && r.verdict != Verdict::Passed)
            r.message = QStringLiteral("HTTP %1").arg(state->status);
        finish(r);
    };
    m_transferId = m_upstream->start(request, options, std::move(callbacks));
}

void ConnectionTest::cancel()
{
    if (m_transferId != 0)
        m_upstream->cancel(m_transferId);
    m_transferId = 0;
}

void ConnectionTest::finish(Result result)
{
    m_transferId = 0;
    emit finished(result);
}

} // namespace sb
