// "Test connection" against real sockets on loopback: the simulator's fake providers for every
// dialect's success and outage, and a tiny canned-response server for the answers the simulator's
// probe endpoint does not give (401 that echoes the key, 429, a server that never answers).
#include "sim/FakeProvider.h"
#include "FakeProviderSpecs.h"
#include "common/SecretMask.h"
#include "control/ConnectionTest.h"

#include <QtTest>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>

using namespace sb;
using namespace sb::sim;
using namespace sb::test;
using namespace std::chrono_literals;

namespace {

const QString Secret = QStringLiteral("sk-test-0123456789abcdefWXYZ");

// Answers every request with one canned response (or never, when it is empty) and keeps what it received.
class CannedServer : public QObject {
public:
    explicit CannedServer(QByteArray response) : m_response(std::move(response))
    {
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = m_server.nextPendingConnection()) {
                connect(socket, &QTcpSocket::readyRead, this, [this, socket] {
                    m_received += socket->readAll();
                    if (!m_response.isEmpty() && m_received.contains("\r\n\r\n")) {
                        socket->write(m_response);
                        socket->disconnectFromHost();
                    }
                });
            }
        });
    }
    bool listen() { return m_server.listen(QHostAddress::LocalHost, 0); }
    QString baseUrl() const { return QStringLiteral("http://127.0.0.1:%1/v1").arg(m_server.serverPort()); }
    QByteArray received() const { return m_received; }

private:
    QTcpServer m_server;
    QByteArray m_response;
    QByteArray m_received;
};

QByteArray httpResponse(int status, const QByteArray &reason, const QByteArray &body, const QByteArray &extra = {})
{
    return "HTTP/1.1 " + QByteArray::number(status) + " " + reason + "\r\nContent-Type: application/json\r\n" + extra
           + "Content-Length: " + QByteArray::number(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
}

ProviderConfig providerFor(const QString &dialect, const QString &baseUrl)
{
    ProviderConfig p;
    p.id = 1;
    p.name = QStringLiteral("under-test");
    p.dialect = dialect;
    p.baseUrl = baseUrl;
    p.connectTimeout = 2s;
    return p;
}

ConnectionTest::Result run(ConnectionTest &test, const ProviderConfig &provider, const QString &model = QStringLiteral("m-1"),
                           std::chrono::milliseconds timeout = 10s)
{
    QSignalSpy spy(&test, &ConnectionTest::finished);
    test.start(provider, Secret, model, timeout);
    if (!spy.wait(20000))
        return {};
    return spy.at(0).at(0).value<ConnectionTest::Result>();
}

} // namespace

class tst_ConnectionTest : public QObject {
    Q_OBJECT

private:
    SystemClock &m_clock = SystemClock::instance();
    SplitMixRandom m_random{7};
    ScenarioClock m_scenarioClock{m_clock, 1.0};

    std::unique_ptr<FakeProvider> fake(const QString &dialect, std::vector<FaultSpec> faults = {})
    {
        ProviderSpec spec = fakeProviderSpec(dialect, std::move(faults));
        spec.dialect = dialect;
        spec.models = {QStringLiteral("m-1"), QStringLiteral("m-2"), QStringLiteral("m-3")};
        auto provider = std::make_unique<FakeProvider>(spec, m_scenarioClock, m_random, 1);
        QString error;
        if (!provider->start(&error))
            qWarning("fake provider did not start: %s", qPrintable(error));
        return provider;
    }

    // What a finished test reports: its verdict, the HTTP status, the outcome and how its line starts.
    void checkResult(const ConnectionTest::Result &r, ConnectionTest::Verdict verdict, int httpStatus, OutcomeKind kind,
                     const QString &textStart)
    {
        QCOMPARE(r.verdict, verdict);
        QCOMPARE(r.httpStatus, httpStatus);
        QCOMPARE(r.kind, kind);
        QVERIFY2(r.text().startsWith(textStart), qPrintable(r.text()));
    }

private slots:
    void succeedsAndCountsTheListedModels_data()
    {
        QTest::addColumn<QString>("dialect");
        QTest::addColumn<int>("models"); // -1: the dialect's probe is not a listing
        QTest::newRow("openai_compat") << QStringLiteral("openai_compat") << 3;
        QTest::newRow("anthropic") << QStringLiteral("anthropic") << 3;
        QTest::newRow("gemini") << QStringLiteral("gemini") << 3;
        QTest::newRow("dashscope") << QStringLiteral("dashscope") << 3;
        QTest::newRow("ernie") << QStringLiteral("ernie") << -1;
    }

    void succeedsAndCountsTheListedModels()
    {
        QFETCH(QString, dialect);
        QFETCH(int, models);
        auto provider = fake(dialect);
        QVERIFY(provider->isListening());
        ConnectionTest test(m_clock);
        const auto r = run(test, providerFor(dialect, provider->baseUrl()));
        QVERIFY2(r.verdict == ConnectionTest::Verdict::Passed, qPrintable(r.text()));
        QCOMPARE(r.httpStatus, 200);
        QCOMPARE(r.kind, OutcomeKind::Success);
        QCOMPARE(r.modelCount, models);
        QVERIFY2(r.text().startsWith(QStringLiteral("✓ 200 in ")), qPrintable(r.text()));
        if (models == 3)
            QVERIFY2(r.text().endsWith(QStringLiteral(" ms, 3 models listed")), qPrintable(r.text()));
        QVERIFY(!test.isRunning());
    }

    // ERNIE with Baidu's API key + secret key: the test is the token exchange (no chat spent), a
    // wrong secret key is an auth error that never shows it.
    void ernieCredentialPairIsTestedByItsExchange()
    {
        ProviderSpec spec = fakeProviderSpec(QStringLiteral("ernie"));
        spec.dialect = QStringLiteral("ernie");
        spec.keys = {KeySpec{"AKtest0001", 0, "SKtest0001"}};
        FakeProvider provider(spec, m_scenarioClock, m_random, 1);
        QString error;
        QVERIFY2(provider.start(&error), qPrintable(error));
        const ProviderConfig config = providerFor(QStringLiteral("ernie"), provider.baseUrl());
        ConnectionTest test(m_clock);
        QSignalSpy spy(&test, &ConnectionTest::finished);
        test.start(config, QStringLiteral("AKtest0001:SKtest0001"), QStringLiteral("m-1"));
        QVERIFY(spy.wait(20000));
        auto r = spy.takeFirst().at(0).value<ConnectionTest::Result>();
        QVERIFY2(r.verdict == ConnectionTest::Verdict::Passed && r.tokenGranted, qPrintable(r.text()));
        QVERIFY2(r.text().endsWith(QStringLiteral("the API key and secret key got an access token")), qPrintable(r.text()));
        QCOMPARE(provider.stats().chat, 0u);
        QCOMPARE(provider.stats().tokensGranted, 1u);

        test.start(config, QStringLiteral("AKtest0001:WRONGsecret99"), QStringLiteral("m-1"));
        QVERIFY(spy.wait(20000));
        r = spy.takeFirst().at(0).value<ConnectionTest::Result>();
        checkResult(r, ConnectionTest::Verdict::Failed, 401, OutcomeKind::AuthError, QStringLiteral("✗ 401 auth error: "));
        QVERIFY2(r.text().contains(QStringLiteral("invalid_client")) && !r.text().contains(QStringLiteral("WRONGsecret99")),
                 qPrintable(r.text()));
        QCOMPARE(provider.stats().chat, 0u);
    }

    void providerInAnOutageIsProviderDown()
    {
        FaultSpec blackout;
        blackout.type = FaultSpec::Type::Blackout;
        blackout.from = 0;
        blackout.mix = {ErrorMixEntry{SimError::Http503, 1.0}};
        auto provider = fake(QStringLiteral("openai_compat"), {blackout});
        ConnectionTest test(m_clock);
        const auto r = run(test, providerFor(QStringLiteral("openai_compat"), provider->baseUrl()));
        checkResult(r, ConnectionTest::Verdict::Failed, 503, OutcomeKind::ProviderDown, QStringLiteral("✗ 503 provider down: "));
    }

    void rejectedKeyIsAnAuthErrorAndTheKeyNeverAppears()
    {
        // Providers echo the rejected key in their message; the result line must carry only the mask.
        const QByteArray body = "{\"error\":{\"message\":\"Incorrect API key provided: " + Secret.toUtf8()
                                + ".\",\"type\":\"invalid_request_error\",\"code\":\"invalid_api_key\"}}";
        CannedServer server(httpResponse(401, "Unauthorized", body));
        QVERIFY(server.listen());
        ConnectionTest test(m_clock);
        const auto r = run(test, providerFor(QStringLiteral("openai_compat"), server.baseUrl()));
        checkResult(r, ConnectionTest::Verdict::Failed, 401, OutcomeKind::AuthError, QStringLiteral("✗ 401 auth error: "));
        QVERIFY2(!r.text().contains(Secret), qPrintable(r.text()));
        QVERIFY2(r.text().contains(QStringLiteral("sk-…")), qPrintable(r.text())); // the mask stays, to tell keys apart
        // The key did go out, in the header the dialect uses.
        QVERIFY(server.received().contains("Bearer " + Secret.toUtf8()));
    }

    void rateLimitIsAWarningNotAFailure()
    {
        CannedServer server(httpResponse(429, "Too Many Requests",
                                         "{\"error\":{\"message\":\"Rate limit reached\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}",
                                         "Retry-After: 2\r\n"));
        QVERIFY(server.listen());
        ConnectionTest test(m_clock);
        const auto r = run(test, providerFor(QStringLiteral("openai_compat"), server.baseUrl()));
        checkResult(r, ConnectionTest::Verdict::Warning, 429, OutcomeKind::RetryableRateLimit, QStringLiteral("⚠ 429 rate limited in "));
    }

    void refusedConnectionSaysSo()
    {
        auto provider = fake(QStringLiteral("openai_compat"));
        const QString url = provider->baseUrl();
        provider->stop(); // nothing listens on that port any more
        ConnectionTest test(m_clock);
        const auto r = run(test, providerFor(QStringLiteral("openai_compat"), url));
        checkResult(r, ConnectionTest::Verdict::Failed, 0, OutcomeKind::ConnectFailed, QStringLiteral("✗ connection failed: "));
    }

    void silentServerTimesOut()
    {
        CannedServer server{QByteArray()}; // accepts, reads, never answers
        QVERIFY(server.listen());
        ConnectionTest test(m_clock);
        const auto r = run(test, providerFor(QStringLiteral("openai_compat"), server.baseUrl()), QString(), 300ms);
        QCOMPARE(r.kind, OutcomeKind::Timeout);
        QCOMPARE(r.verdict, ConnectionTest::Verdict::Failed);
        QCOMPARE(r.text(), QStringLiteral("✗ timeout: no answer within 0.3 s"));
    }

    void unknownDialectIsRefusedLater()
    {
        ConnectionTest test(m_clock);
        QSignalSpy spy(&test, &ConnectionTest::finished);
        test.start(providerFor(QStringLiteral("no-such-dialect"), QStringLiteral("http://127.0.0.1:1/v1")), Secret);
        QCOMPARE(spy.count(), 0); // never from inside start()
        QVERIFY(spy.wait(5000));
        const auto r = spy.at(0).at(0).value<ConnectionTest::Result>();
        QCOMPARE(r.verdict, ConnectionTest::Verdict::Failed);
        QVERIFY(r.text().contains(QStringLiteral("no-such-dialect")));
    }

    void cancelledTestNeverReports()
    {
        CannedServer server{QByteArray()};
        QVERIFY(server.listen());
        ConnectionTest test(m_clock);
        QSignalSpy spy(&test, &ConnectionTest::finished);
        test.start(providerFor(QStringLiteral("openai_compat"), server.baseUrl()), Secret, QString(), 200ms);
        QVERIFY(test.isRunning());
        test.cancel();
        QVERIFY(!test.isRunning());
        QVERIFY(!spy.wait(600)); // past the test's own timeout: still nothing
        QCOMPARE(spy.count(), 0);
    }
};

QTEST_GUILESS_MAIN(tst_ConnectionTest)
#include "tst_ConnectionTest.moc"
