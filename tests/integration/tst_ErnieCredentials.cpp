// ERNIE with the credentials Baidu gives: a key written "API_KEY:SECRET_KEY" is exchanged for an
// access token (the simulator's /oauth/2.0/token checks the pair it was configured with), the token
// is fetched once and shared by every call and worker, an expired or revoked token (error_code 111,
// 110) is exchanged anew and the call retried once, a wrong secret is an auth error that names the
// provider and the key and disables the key, a raw access token still works as given, and the
// heartbeat of a pair is its token exchange, never a chat call. Real sockets, a real Gateway.
#include "sim/FakeProvider.h"
#include "FakeProviderSpecs.h"
#include "ProxyClient.h"
#include "ProxyConfigs.h"

#include "control/Gateway.h"
#include "routing/KeyRing.h"
#include "routing/Router.h"

#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QtTest>

using namespace sb;
using namespace sb::sim;
using namespace sb::test;
using namespace std::chrono_literals;

namespace {

const QByteArray kApiKey = "Kq7sApiKey0001";
const QByteArray kSecretKey = "Ws9secretKey0001";

ProviderSpec ernieSpec(std::vector<KeySpec> keys)
{
    ProviderSpec spec = fakeProviderSpec(QStringLiteral("qianfan"));
    spec.dialect = QStringLiteral("ernie");
    spec.models = {QStringLiteral("ernie-4.0-8k")};
    spec.keys = std::move(keys);
    return spec;
}

KeySpec pair()
{
    KeySpec key;
    key.secret = kApiKey;
    key.clientSecret = kSecretKey;
    return key;
}

} // namespace

class tst_ErnieCredentials : public QObject {
    Q_OBJECT

    SystemClock &m_clock = SystemClock::instance();
    SplitMixRandom m_random{2404};
    ScenarioClock m_scenarioClock{m_clock, 1.0};
    ProxyClient m_client;
    std::unique_ptr<FakeProvider> m_provider;
    std::unique_ptr<Gateway> m_gateway;

    // Route m over one ERNIE channel whose one key, labelled "prod pair", is `secret`.
    void start(ProviderSpec spec, const QString &secret, std::chrono::seconds probeInterval = 3600s)
    {
        m_provider = std::make_unique<FakeProvider>(std::move(spec), m_scenarioClock, m_random, 2);
        QString error;
        QVERIFY2(m_provider->start(&error), qPrintable(error));
        auto config = oneChannelConfig(QStringLiteral("qianfan"), m_provider->baseUrl(), QStringLiteral("m"));
        config->providers.front().dialect = QStringLiteral("ernie");
        config->providers.front().keys = {ApiKeyConfig{1, QStringLiteral("prod pair"), secret, true, {}}};
        config->channels.front().upstreamModel = QStringLiteral("ernie-4.0-8k");
        config->probe.interval = probeInterval;
        m_gateway = std::make_unique<Gateway>(m_clock, m_random, config);
        QVERIFY2(m_gateway->start(&error), qPrintable(error));
    }

    Reply chat() { return m_client.postChat(m_gateway->port(), chatBody(false, QStringLiteral("m"))); }

    // `n` calls at once, each on its own connection; their statuses.
    QList<int> concurrentChats(int n)
    {
        QNetworkAccessManager http;
        QList<QNetworkReply *> replies;
        for (int i = 0; i < n; ++i) {
            QNetworkRequest request(QUrl(QStringLiteral("http://127.0.0.1:%1/v1/chat/completions").arg(m_gateway->port())));
            request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
            replies << http.post(request, chatBody(false, QStringLiteral("m")));
        }
        if (!QTest::qWaitFor([&] { return std::all_of(replies.begin(), replies.end(), [](QNetworkReply *r) { return r->isFinished(); }); }, 20000))
            qWarning("not every concurrent call finished within 20 s");
        QList<int> statuses;
        for (QNetworkReply *r : replies) {
            statuses << r->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
            r->deleteLater();
        }
        return statuses;
    }

    KeyRing::KeyState keyState()
    {
        return m_gateway->router().keyRing(1)->status().front().state;
    }

    // The heartbeats started so far, once every one of them has reported.
    std::uint64_t heartbeatsDone()
    {
        if (!QTest::qWaitFor([&] { const auto s = m_gateway->snapshot().prober; return s.succeeded + s.failed == s.started; }, 10000))
            qWarning("a heartbeat did not report within 10 s");
        return m_gateway->snapshot().prober.started;
    }

private slots:
    void cleanup()
    {
        if (m_gateway)
            m_gateway->stop();
        m_gateway.reset();
        if (m_provider)
            m_provider->stop();
        m_provider.reset();
    }

    void pairIsExchangedOnceForManyCalls()
    {
        start(ernieSpec({pair()}), QString::fromLatin1(kApiKey + ':' + kSecretKey));
        // The first calls arrive together, on several workers, before any token exists: one exchange.
        for (int status : concurrentChats(8))
            QCOMPARE(status, 200);
        QCOMPARE(m_provider->stats().tokensGranted, 1u);
        for (int i = 0; i < 12; ++i)
            QCOMPARE(chat().status, 200);
        QCOMPARE(m_provider->stats().chat, 20u);
        // Heartbeats exchange on their own (their probe); calls never exchange again.
        const std::uint64_t heartbeats = heartbeatsDone();
        QCOMPARE(m_provider->stats().tokensGranted, 1u + heartbeats);
        QCOMPARE(m_provider->stats().tokenExchanges, 1u + heartbeats);
        QCOMPARE(keyState(), KeyRing::KeyState::Active);
    }

    void refusedTokenIsExchangedAnewAndTheCallRetried_data()
    {
        QTest::addColumn<bool>("expired");
        QTest::newRow("110 invalid") << false;
        QTest::newRow("111 expired") << true;
    }

    void refusedTokenIsExchangedAnewAndTheCallRetried()
    {
        QFETCH(bool, expired);
        start(ernieSpec({pair()}), QString::fromLatin1(kApiKey + ':' + kSecretKey));
        QCOMPARE(chat().status, 200);
        const std::uint64_t heartbeats = heartbeatsDone();
        QCOMPARE(m_provider->stats().tokensGranted, 1u + heartbeats);
        if (expired)
            m_provider->expireTokens();
        else
            m_provider->revokeTokens();

        const Reply reply = chat();
        QCOMPARE(reply.status, 200);
        QCOMPARE(reply.headers.value("x-switchboard-attempts"), QByteArray("1")); // the same attempt, sent again
        QCOMPARE(m_provider->stats().tokensRefused, 1u);
        QCOMPARE(m_provider->stats().tokensGranted, 2u + heartbeats);
        QCOMPARE(keyState(), KeyRing::KeyState::Active); // the token's refusal is not the key's
        QCOMPARE(chat().status, 200);
        QCOMPARE(m_provider->stats().tokensGranted, 2u + heartbeatsDone());
    }

    void wrongSecretIsAnAuthErrorThatDisablesTheKey()
    {
        start(ernieSpec({pair()}), QString::fromLatin1(kApiKey + ":not-the-secret-key"));
        const Reply reply = chat();
        QCOMPARE(reply.status, 502);
        QCOMPARE(reply.errorCode(), QStringLiteral("upstream_auth_error"));
        const QString message = reply.error().value(QLatin1String("message")).toString();
        QVERIFY2(message.contains(QLatin1String("qianfan")) && message.contains(QLatin1String("\"prod pair\""))
                     && message.contains(QLatin1String("invalid_client")),
                 qPrintable(message));
        QVERIFY2(!message.contains(QLatin1String("not-the-secret-key")), qPrintable(message));
        QCOMPARE(keyState(), KeyRing::KeyState::Disabled);
        QCOMPARE(m_provider->stats().chat, 0u); // no call went out without a token
        QCOMPARE(m_provider->stats().tokensGranted, 0u);
    }

    void rawTokenIsSentAsGiven()
    {
        KeySpec raw;
        raw.secret = "24.6c5e6d3a0f1b4e2a9d8c7b6a5f4e3d2c.2592000.1767225600.282335-44110011";
        start(ernieSpec({raw}), QString::fromLatin1(raw.secret));
        for (int i = 0; i < 3; ++i)
            QCOMPARE(chat().status, 200);
        QCOMPARE(m_provider->stats().tokenExchanges, 0u);
        QCOMPARE(m_provider->stats().chat, 3u);
    }

    void heartbeatOfAPairIsItsExchange()
    {
        start(ernieSpec({pair()}), QString::fromLatin1(kApiKey + ':' + kSecretKey), 1s);
        QVERIFY(QTest::qWaitFor([&] { return m_gateway->snapshot().prober.succeeded >= 3; }, 15000));
        QCOMPARE(m_gateway->snapshot().prober.failed, 0u);
        QCOMPARE(m_provider->stats().chat, 0u);
        QVERIFY(m_provider->stats().tokensGranted >= 3);
        // The heartbeat's token serves the next call: no exchange of its own.
        const quint64 granted = m_provider->stats().tokensGranted;
        QCOMPARE(chat().status, 200);
        QVERIFY(m_provider->stats().tokensGranted <= granted + 1); // at most a heartbeat's, in between
        QCOMPARE(m_provider->stats().chat, 1u);
    }

    void heartbeatOfAWrongPairFails()
    {
        start(ernieSpec({pair()}), QString::fromLatin1(kApiKey + ":not-the-secret-key"), 1s);
        QVERIFY(QTest::qWaitFor([&] { return m_gateway->snapshot().prober.failed >= 1; }, 15000));
        QCOMPARE(m_gateway->snapshot().prober.succeeded, 0u);
        QCOMPARE(m_provider->stats().chat, 0u);
    }
};

QTEST_GUILESS_MAIN(tst_ErnieCredentials)
#include "tst_ErnieCredentials.moc"
