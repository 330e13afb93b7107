// Settings → listen address applies to the running engine: Gateway::applyConfig opens the new
// address, stops accepting on the old one while its connections finish, and refuses an address it
// may not or cannot use without losing the port it has.
#include "FakeProviderSpecs.h"
#include "ProxyClient.h"
#include "ProxyUnderTest.h"
#include "RawHttp.h"

#include <QtTest>
#include <QTcpServer>
#include <QTcpSocket>

using namespace sb;
using namespace sb::sim;
using namespace sb::test;
using namespace std::chrono_literals;

namespace {

// One HTTP/1.1 exchange on a raw socket; empty when nothing could connect.
QByteArray httpGet(quint16 port, const QByteArray &path)
{
    return exchangeUntilClose(port, rawRequest("GET", path, {}, "Connection: close\r\n"));
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
    ProxyUnderTest m_proxy{m_clock, m_random};

    void startAll(int tokensPerSecond = 2000)
    {
        ProviderSpec spec = fakeProviderSpec(QStringLiteral("only"));
        spec.tokensPerSecond = Distribution::constant(tokensPerSecond);
        spec.completionTokens = 20;
        QString error;
        QVERIFY2(m_proxy.start(spec, {}, &error), qPrintable(error));
    }

    std::shared_ptr<EngineConfig> editedConfig()
    {
        return std::make_shared<EngineConfig>(*m_proxy.gateway->config());
    }

private slots:
    void cleanup() { m_proxy.stop(); }

    void newPortAnswersAndOldPortRefuses()
    {
        startAll();
        const quint16 oldPort = m_proxy.gateway->port();
        QVERIFY(httpGet(oldPort, "/healthz").startsWith("HTTP/1.1 200"));
        QSignalSpy changed(m_proxy.gateway.get(), &Gateway::listenAddressChanged);
        QSignalSpy failed(m_proxy.gateway.get(), &Gateway::listenFailed);

        auto config = editedConfig();
        const quint16 wanted = freePort();
        config->proxy.listenPort = wanted;
        m_proxy.gateway->applyConfig(config);

        QCOMPARE(failed.count(), 0);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(m_proxy.gateway->port(), wanted);
        QCOMPARE(m_proxy.gateway->config()->proxy.listenPort, int(wanted));
        QVERIFY(changed.first().first().toString().contains(QString::number(wanted)));
        QVERIFY(httpGet(wanted, "/healthz").startsWith("HTTP/1.1 200"));
        QTRY_VERIFY_WITH_TIMEOUT(refusesConnections(oldPort), 10000);
    }

    void streamOnTheOldPortFinishes()
    {
        startAll(40); // 20 tokens at 40/s: the stream is still running when the port moves
        const quint16 oldPort = m_proxy.gateway->port();
        QTcpSocket client;
        client.connectToHost(QHostAddress::LocalHost, oldPort);
        QVERIFY(client.waitForConnected(5000));
        client.write(rawRequest("POST", "/v1/chat/completions", chatBody(true)));
        QByteArray raw;
        while (!raw.contains("data: ") && client.waitForReadyRead(5000))
            raw += client.readAll();
        QVERIFY2(raw.contains("data: "), raw.constData()); // the stream has begun

        auto config = editedConfig();
        config->proxy.listenPort = freePort();
        m_proxy.gateway->applyConfig(config);
        QVERIFY(m_proxy.gateway->port() != oldPort);

        while (!raw.contains("data: [DONE]") && client.waitForReadyRead(10000))
            raw += client.readAll();
        QVERIFY2(raw.contains("data: [DONE]"), raw.right(300).constData());
        QVERIFY(!raw.contains("\"error\""));
    }

    void addressInUseKeepsTheOldPort()
    {
        startAll();
        const quint16 oldPort = m_proxy.gateway->port();
        QTcpServer squatter;
        QVERIFY(squatter.listen(QHostAddress::LocalHost, 0));
        QSignalSpy failed(m_proxy.gateway.get(), &Gateway::listenFailed);

        auto config = editedConfig();
        config->proxy.listenPort = squatter.serverPort();
        config->retry.maxAttempts = 2; // the rest of the configuration still applies
        m_proxy.gateway->applyConfig(config);

        QCOMPARE(failed.count(), 1);
        const QString message = failed.first().first().toString();
        QVERIFY2(message.contains(QString::number(squatter.serverPort())) && message.contains(QString::number(oldPort)), qPrintable(message));
        QCOMPARE(m_proxy.gateway->port(), oldPort);
        QCOMPARE(m_proxy.gateway->config()->proxy.listenPort, 0); // still the address it really has
        QCOMPARE(m_proxy.gateway->config()->retry.maxAttempts, 2);
        QVERIFY(httpGet(oldPort, "/healthz").startsWith("HTTP/1.1 200"));
    }

    void nonLoopbackWithoutTokenIsRefused()
    {
        startAll();
        const quint16 oldPort = m_proxy.gateway->port();
        QSignalSpy failed(m_proxy.gateway.get(), &Gateway::listenFailed);
        auto config = editedConfig();
        config->proxy.listenHost = QStringLiteral("0.0.0.0");
        m_proxy.gateway->applyConfig(config);
        QCOMPARE(failed.count(), 1);
        QVERIFY(failed.first().first().toString().contains("local token"));
        QCOMPARE(m_proxy.gateway->config()->proxy.listenHost, QStringLiteral("127.0.0.1"));
        QCOMPARE(m_proxy.gateway->port(), oldPort);
        QVERIFY(httpGet(oldPort, "/healthz").startsWith("HTTP/1.1 200"));
    }

    void sameAddressDoesNotRebind()
    {
        startAll();
        const quint16 port = m_proxy.gateway->port();
        QSignalSpy changed(m_proxy.gateway.get(), &Gateway::listenAddressChanged);
        auto config = editedConfig();
        config->retry.maxAttempts = 3;
        m_proxy.gateway->applyConfig(config);
        QCOMPARE(changed.count(), 0);
        QCOMPARE(m_proxy.gateway->port(), port);
    }
};

QTEST_GUILESS_MAIN(tst_ListenRebind)
#include "tst_ListenRebind.moc"
