// The engine's proxy port serving HTTPS from proxy.tls_cert_file / tls_key_file: chat answers and
// streams over TLS to a client that trusts the certificate, a plain-HTTP client told in the API's
// words, a certificate renewed at the same paths served after a reload while the old connection
// finishes, HTTPS turned off and on again live, and files that cannot serve refused without losing
// the port.
#include "FakeProviderSpecs.h"
#include "ProxyUnderTest.h"
#include "RawHttp.h"
#include "TestCertificate.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslSocket>
#include <QtTest>

using namespace sb;
using namespace sb::sim;
using namespace sb::test;

class tst_ProxyHttps : public QObject {
    Q_OBJECT

    SystemClock &m_clock = SystemClock::instance();
    SplitMixRandom m_random{443};
    ProxyUnderTest m_proxy{m_clock, m_random};
    TestCertificate m_certificate;
    QNetworkAccessManager m_network;

    void startServingTls()
    {
        ProviderSpec spec = fakeProviderSpec(QStringLiteral("only"));
        spec.completionTokens = 12;
        QString error;
        QVERIFY2(m_proxy.start(spec,
                               [this](EngineConfig &config) {
                                   config.proxy.tlsCertFile = m_certificate.certificateFile();
                                   config.proxy.tlsKeyFile = m_certificate.keyFile();
                               },
                               &error),
                 qPrintable(error));
    }

    // Status and body of a chat completion through the proxy's base URL, trusting `caFile`.
    std::pair<int, QByteArray> chat(const QString &caFile, bool stream)
    {
        QNetworkRequest request(QUrl(m_proxy.gateway->baseUrl() + QStringLiteral("/chat/completions")));
        QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
        tls.setCaCertificates(QSslCertificate::fromPath(caFile));
        request.setSslConfiguration(tls);
        request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
        const QJsonObject body{{"model", "gpt-4o"},
                               {"stream", stream},
                               {"messages", QJsonArray{QJsonObject{{"role", "user"}, {"content", "hello over TLS"}}}}};
        QNetworkReply *reply = m_network.post(request, QJsonDocument(body).toJson());
        if (!QTest::qWaitFor([reply] { return reply->isFinished(); }, 30000))
            qWarning("no answer in 30 s");
        if (reply->error() != QNetworkReply::NoError && reply->error() < QNetworkReply::ContentAccessDenied)
            qWarning("%s", qPrintable(reply->errorString()));
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        const QByteArray answer = reply->readAll();
        reply->deleteLater();
        return {status, answer};
    }

    QString presentedSubject()
    {
        QSslSocket socket;
        socket.setPeerVerifyMode(QSslSocket::QueryPeer); // only looking at what is presented
        socket.connectToHostEncrypted(QStringLiteral("127.0.0.1"), m_proxy.gateway->port());
        if (!socket.waitForEncrypted(5000))
            return QStringLiteral("no handshake: ") + socket.errorString();
        return socket.peerCertificate().subjectInfo(QSslCertificate::CommonName).value(0);
    }

private slots:
    void initTestCase()
    {
        QString why;
        QVERIFY2(m_certificate.make(&why, QStringLiteral("first")), qPrintable(why));
    }

    void cleanup()
    {
        m_network.clearConnectionCache();
        m_proxy.stop();
    }

    void chatAnswersAndStreamsOverHttps()
    {
        startServingTls();
        QVERIFY2(m_proxy.gateway->baseUrl().startsWith(QStringLiteral("https://127.0.0.1:")), qPrintable(m_proxy.gateway->baseUrl()));
        QCOMPARE(m_proxy.gateway->tlsCertificate().value_or(TlsCertificateInfo{}).subject, QStringLiteral("CN=first"));

        const auto [status, body] = chat(m_certificate.certificateFile(), false);
        QCOMPARE(status, 200);
        QVERIFY2(QJsonDocument::fromJson(body).object().contains(QStringLiteral("choices")), body.constData());
        const auto [streamStatus, events] = chat(m_certificate.certificateFile(), true);
        QCOMPARE(streamStatus, 200);
        QVERIFY2(events.contains("data: ") && events.trimmed().endsWith("data: [DONE]"), events.constData());
    }

    void plainHttpIsToldToUseHttps()
    {
        startServingTls();
        const QByteArray answer = exchangeUntilClose(m_proxy.gateway->port(), rawRequest("GET", "/v1/models", {}, "Connection: close\r\n"));
        QVERIFY2(answer.startsWith("HTTP/1.1 400"), answer.constData());
        const QJsonObject error = QJsonDocument::fromJson(answer.mid(answer.indexOf("\r\n\r\n") + 4)).object().value("error").toObject();
        QCOMPARE(error.value("code").toString(), QStringLiteral("https_required"));
        QVERIFY(error.value("message").toString().contains(QStringLiteral("https://")));
    }

    void aRenewedCertificateIsServedAfterAReload()
    {
        startServingTls();
        QCOMPARE(presentedSubject(), QStringLiteral("first"));
        // certbot's way: new files over the old paths, then a reload (here: the same configuration again).
        TestCertificate renewed;
        QString why;
        QVERIFY2(renewed.make(&why, QStringLiteral("renewed")), qPrintable(why));
        QFile::remove(m_certificate.certificateFile());
        QFile::remove(m_certificate.keyFile());
        QVERIFY(QFile::copy(renewed.certificateFile(), m_certificate.certificateFile()));
        QVERIFY(QFile::copy(renewed.keyFile(), m_certificate.keyFile()));
        QSignalSpy failed(m_proxy.gateway.get(), &Gateway::listenFailed);
        m_proxy.gateway->applyConfig(std::make_shared<EngineConfig>(*m_proxy.gateway->config()));
        QCOMPARE(failed.count(), 0);
        QCOMPARE(presentedSubject(), QStringLiteral("renewed"));
        QCOMPARE(chat(m_certificate.certificateFile(), false).first, 200);
    }

    void httpsTurnsOffAndOnLive()
    {
        startServingTls();
        QSignalSpy moved(m_proxy.gateway.get(), &Gateway::listenAddressChanged);
        auto plain = std::make_shared<EngineConfig>(*m_proxy.gateway->config());
        plain->proxy.tlsCertFile.clear();
        plain->proxy.tlsKeyFile.clear();
        m_proxy.gateway->applyConfig(plain);
        QCOMPARE(moved.count(), 1);
        QVERIFY(moved.last().at(0).toString().startsWith(QStringLiteral("http://")));
        QVERIFY(!m_proxy.gateway->tlsCertificate());
        QVERIFY(exchangeUntilClose(m_proxy.gateway->port(), rawRequest("GET", "/healthz", {}, "Connection: close\r\n")).startsWith("HTTP/1.1 200"));

        auto https = std::make_shared<EngineConfig>(*plain);
        https->proxy.tlsCertFile = m_certificate.certificateFile();
        https->proxy.tlsKeyFile = m_certificate.keyFile();
        m_proxy.gateway->applyConfig(https);
        QCOMPARE(moved.count(), 2);
        QVERIFY(moved.last().at(0).toString().startsWith(QStringLiteral("https://")));
        QCOMPARE(chat(m_certificate.certificateFile(), false).first, 200);
    }

    void filesThatCannotServeKeepThePortAsItWas()
    {
        startServingTls();
        const quint16 port = m_proxy.gateway->port();
        QSignalSpy failed(m_proxy.gateway.get(), &Gateway::listenFailed);
        auto broken = std::make_shared<EngineConfig>(*m_proxy.gateway->config());
        broken->proxy.tlsKeyFile = QStringLiteral("/nonexistent/key.pem");
        broken->retry.maxAttempts = 3; // the rest of the configuration still applies
        m_proxy.gateway->applyConfig(broken);
        QCOMPARE(failed.count(), 1);
        const QString message = failed.first().at(0).toString();
        QVERIFY2(message.contains(QStringLiteral("/nonexistent/key.pem does not exist")), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("keeps serving HTTPS")), qPrintable(message));
        QCOMPARE(m_proxy.gateway->config()->proxy.tlsKeyFile, m_certificate.keyFile());
        QCOMPARE(m_proxy.gateway->config()->retry.maxAttempts, 3);
        QCOMPARE(m_proxy.gateway->port(), port);
        QCOMPARE(chat(m_certificate.certificateFile(), false).first, 200);
        m_proxy.stop();

        // At start, the same files refuse to open the port at all, with the reason.
        ProviderSpec spec = fakeProviderSpec(QStringLiteral("only"));
        QString error;
        QVERIFY(!m_proxy.start(spec,
                               [](EngineConfig &config) {
                                   config.proxy.tlsCertFile = QStringLiteral("/nonexistent/cert.pem");
                                   config.proxy.tlsKeyFile = QStringLiteral("/nonexistent/key.pem");
                               },
                               &error));
        QVERIFY2(error.contains(QStringLiteral("Cannot serve HTTPS on the proxy port")), qPrintable(error));
    }
};

QTEST_MAIN(tst_ProxyHttps)
#include "tst_ProxyHttps.moc"
