// Settings → listen address applies to the running engine: Gateway::applyConfig opens the new
// address, stops accepting on the old one while its connections finish, and refuses an address it
// may not or cannot use without losing the port it has.
#include "FakeProvider.h"
#include "engine/Gateway.h"

#include <QtTest>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTcpServer>
#include <QTcpSocket>

using namespace sb;
using namespace sb::sim;
using namespace std::chrono_literals;

namespace {

std::shared_ptr<EngineConfig> oneChannelConfig(const QString &url)
{
    auto config = std::make_shared<EngineConfig>();
    config->proxy.listenPort = 0;
    ProviderConfig p;
    p.id = 1;
    p.name = QStringLiteral("only");
    p.dialect = QStringLiteral("openai_compat");
    p.baseUrl = url;
    p.keys = {ApiKeyConfig{1, QStringLiteral("key"), QStringLiteral("sk-only-0001"), true, {}}};
    config->providers = {p};
    ChannelConfig c;
    c.id = 1;
    c.name = QStringLiteral("gpt-4o/A");
    c.providerId = 1;
    c.upstreamModel = QStringLiteral("gpt-4o");
    config->channels = {c};
    RouteConfig r;
    r.id = 1;
    r.logicalModel = QStringLiteral("gpt-4o");
    r.channelIds = {1};
    config->routes = {r};
    return config;
}

// One HTTP/1.1 exchange on a raw socket; empty when nothing could connect.
QByteArray httpGet(quint16 port, const QByteArray &path)
{
    QTcpSocket socket;
    socket.connectToHost(QHostAddress::LocalHost, port);
    if (!socket.waitForConnected(5000))
        return {};
    socket.write("GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    QByteArray raw;
    while (socket.waitForReadyRead(5000) || socket.bytesAvailable())
        raw += socket.readAll();
    return raw;
}

bool refusesConnections(quint16 port)
{
    QTcpSocket socket;
    socket.connectToHost(QHostAddress::LocalHost, port);
    const bool connected = socket.waitForConnected(5000);
    return !connected && socket.error() == QAbstractSocket::ConnectionRefusedError;
}

quint16 freePort()
{
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost, 0);
    return probe.serverPort(); // closed again on return; the Gateway takes it next
}

} // namespace

class tst_ListenRebind : public QObject {
    Q_OBJECT

private:
    SystemClock &m_clock = SystemClock::instance();
    SplitMixRandom m_random{99};
    std::unique_ptr<ScenarioClock> m_scenarioClock;
    std::unique_ptr<FakeProvider> m_provider;
    std::unique_ptr<Gateway> m_gateway;

    void startAll(int tokensPerSecond = 2000)
    {
        m_scenarioClock = std::make_unique<ScenarioClock>(m_clock, 1.0);
        ProviderSpec spec;
        spec.name = QStringLiteral("only");
        spec.dialect = QStringLiteral("openai_compat");
        spec.models = {QStringLiteral("gpt-4o")};
        spec.ttftMs = Distribution::constant(5);
        spec.tokensPerSecond = Distribution::constant(tokensPerSecond);
        spec.completionTokens = 20;
        m_provider = std::make_unique<FakeProvider>(spec, *m_scenarioClock, m_random);
        QString error;
        QVERIFY2(m_provider->start(&error), qPrintable(error));
        m_gateway = std::make_unique<Gateway>(m_clock, m_random, oneChannelConfig(m_provider->baseUrl()));
        QVERIFY2(m_gateway->start(&error), qPrintable(error));
    }

    std::shared_ptr<EngineConfig> editedConfig()
    {
        return std::make_shared<EngineConfig>(*m_gateway->config());
    }

private slots:
    void cleanup()
    {
        if (m_gateway)
            m_gateway->stop(500ms);
        m_gateway.reset();
        m_provider.reset();
    }

    void newPortAnswersAndOldPortRefuses()
    {
        startAll();
        const quint16 oldPort = m_gateway->port();
        QVERIFY(httpGet(oldPort, "/healthz").startsWith("HTTP/1.1 200"));
        QSignalSpy changed(m_gateway.get(), &Gateway::listenAddressChanged);
        QSignalSpy failed(m_gateway.get(), &Gateway::listenFailed);

        auto config = editedConfig();
        const quint16 wanted = freePort();
        config->proxy.listenPort = wanted;
        m_gateway->applyConfig(config);

        QCOMPARE(failed.count(), 0);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(m_gateway->port(), wanted);
        QCOMPARE(m_gateway->config()->proxy.listenPort, int(wanted));
        QVERIFY(changed.first().first().toString().contains(QString::number(wanted)));
        QVERIFY(httpGet(wanted, "/healthz").startsWith("HTTP/1.1 200"));
        QTRY_VERIFY_WITH_TIMEOUT(refusesConnections(oldPort), 10000);
    }

    void streamOnTheOldPortFinishes()
    {
        startAll(40); // 20 tokens at 40/s: the stream is still running when the port moves
        const quint16 oldPort = m_gateway->port();
        QTcpSocket client;
        client.connectToHost(QHostAddress::LocalHost, oldPort);
        QVERIFY(client.waitForConnected(5000));
        const QByteArray body = QJsonDocument(QJsonObject{{"model", "gpt-4o"},
                                                          {"stream", true},
                                                          {"messages", QJsonArray{QJsonObject{{"role", "user"}, {"content", "hi"}}}}})
                                    .toJson(QJsonDocument::Compact);
        client.write("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: "
                     + QByteArray::number(body.size()) + "\r\n\r\n" + body);
        QByteArray raw;
        while (!raw.contains("data: ") && client.waitForReadyRead(5000))
            raw += client.readAll();
        QVERIFY2(raw.contains("data: "), raw.constData()); // the stream has begun

        auto config = editedConfig();
        config->proxy.listenPort = freePort();
        m_gateway->applyConfig(config);
        QVERIFY(m_gateway->port() != oldPort);

        while (!raw.contains("data: [DONE]") && client.waitForReadyRead(10000))
            raw += client.readAll();
        QVERIFY2(raw.contains("data: [DONE]"), raw.right(300).constData());
        QVERIFY(!raw.contains("\"error\""));
    }

    void addressInUseKeepsTheOldPort()
    {
        startAll();
        const quint16 oldPort = m_gateway->port();
        QTcpServer squatter;
        QVERIFY(squatter.listen(QHostAddress::LocalHost, 0));
        QSignalSpy failed(m_gateway.get(), &Gateway::listenFailed);

        auto config = editedConfig();
        config->proxy.listenPort = squatter.serverPort();
        config->retry.maxAttempts = 2; // the rest of the configuration still applies
        m_gateway->applyConfig(config);

        QCOMPARE(failed.count(), 1);
        const QString message = failed.first().first().toString();
        QVERIFY2(message.contains(QString::number(squatter.serverPort())) && message.contains(QString::number(oldPort)), qPrintable(message));
        QCOMPARE(m_gateway->port(), oldPort);
        QCOMPARE(m_gateway->config()->proxy.listenPort, 0); // still the address it really has
        QCOMPARE(m_gateway->config()->retry.maxAttempts, 2);
        QVERIFY(httpGet(oldPort, "/healthz").startsWith("HTTP/1.1 200"));
    }

    void nonLoopbackWithoutTokenIsRefused()
    {
        startAll();
        const quint16 oldPort = m_gateway->port();
        QSignalSpy failed(m_gateway.get(), &Gateway::listenFailed);
        auto config = editedConfig();
        config->proxy.listenHost = QStringLiteral("0.0.0.0");
        m_gateway->applyConfig(config);
        QCOMPARE(failed.count(), 1);
        QVERIFY(failed.first().first().toString().contains("local token"));
        QCOMPARE(m_gateway->config()->proxy.listenHost, QStringLiteral("127.0.0.1"));
        QCOMPARE(m_gateway->port(), oldPort);
        QVERIFY(httpGet(oldPort, "/healthz").startsWith("HTTP/1.1 200"));
    }

    void sameAddressDoesNotRebind()
    {
        startAll();
        const quint16 port = m_gateway->port();
        QSignalSpy changed(m_gateway.get(), &Gateway::listenAddressChanged);
        auto config = editedConfig();
        config->retry.maxAttempts = 3;
        m_gateway->applyConfig(config);
        QCOMPARE(changed.count(), 0);
        QCOMPARE(m_gateway->port(), port);
    }
};

QTEST_GUILESS_MAIN(tst_ListenRebind)
#include "tst_ListenRebind.moc"
