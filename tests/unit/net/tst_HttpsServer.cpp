// The proxy port's HTTPS: HttpServer with a TlsServerContext, on loopback, reached by Qt's own TLS
// client (an independent implementation on OpenSSL) and by raw sockets. A request and a keep-alive
// second one, an upload and an answer far larger than the read buffer, a plain-HTTP client told
// in words, a broken handshake that costs only its connection, a renewed certificate that serves
// new connections while an open one goes on, and the files a certificate can be refused for.
#include "net/HttpHandler.h"
#include "net/HttpServer.h"
#include "net/ResponseWriter.h"
#include "net/TlsServerContext.h"

#include "TestCertificate.h"

#include <QCryptographicHash>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslSocket>
#include <QTcpSocket>
#include <QUrlQuery>
#include <QtTest>

using namespace sb;
using namespace sb::test;

namespace {

// /size answers the body's length and SHA-256; /bytes?n=N streams N bytes as fast as they are taken.
class SizingHandler : public HttpHandler {
public:
    void handle(const HttpRequest &request, std::shared_ptr<ResponseWriter> response) override
    {
        HttpHeaders text;
        text.add("Content-Type", "text/plain");
        if (request.path == "/bytes") {
            const qint64 n = QUrlQuery(QString::fromLatin1(request.query)).queryItemValue(QStringLiteral("n")).toLongLong();
            response->startStream(200, text);
            auto left = std::make_shared<qint64>(n);
            auto pump = std::make_shared<std::function<void()>>();
            // Written as fast as the client takes it: up to 1 MiB waits in the server at a time.
            *pump = [response, left] {
                const QByteArray slice(64 * 1024, 'x');
                while (*left > 0 && response->isOpen() && response->bufferedBytes() < 1024 * 1024) {
                    const qint64 size = std::min<qint64>(slice.size(), *left);
                    response->write(slice.left(int(size)));
                    *left -= size;
                }
                if (*left == 0 && response->isOpen())
                    response->finish();
            };
            response->onDrained(256 * 1024, [pump] { (*pump)(); });
            (*pump)();
            return;
        }
        response->send(200, text,
                       QByteArray::number(request.body.size()) + ' '
                           + QCryptographicHash::hash(request.body, QCryptographicHash::Sha256).toHex());
    }
};

} // namespace

class tst_HttpsServer : public QObject {
    Q_OBJECT

    TestCertificate m_certificate;
    std::unique_ptr<HttpServer> m_server;
    QNetworkAccessManager m_network;

    QUrl url(const QString &path) const { return QUrl(QStringLiteral("https://127.0.0.1:%1%2").arg(m_server->serverPort()).arg(path)); }

    QSslConfiguration trusting(const QString &certificateFile) const
    {
        QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
        tls.setCaCertificates(QSslCertificate::fromPath(certificateFile));
        return tls;
    }

    // Status and body; the reply's TLS errors, if any, in *tlsErrors.
    std::pair<int, QByteArray> call(const QString &path, const QByteArray &upload = {}, QStringList *tlsErrors = nullptr)
    {
        QNetworkRequest request(url(path));
        request.setSslConfiguration(trusting(m_certificate.certificateFile()));
        request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/octet-stream"));
        QNetworkReply *reply = upload.isNull() ? m_network.get(request) : m_network.post(request, upload);
        QStringList errors;
        connect(reply, &QNetworkReply::sslErrors, this, [&errors](const QList<QSslError> &list) {
            for (const QSslError &e : list)
                errors << e.errorString();
        });
        if (!QTest::qWaitFor([reply] { return reply->isFinished(); }, 30000))
            qWarning("no answer in 30 s");
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        const QByteArray body = reply->readAll();
        reply->deleteLater();
        if (tlsErrors)
            *tlsErrors = errors;
        return {status, body};
    }

    static std::shared_ptr<const TlsServerContext> load(const TestCertificate &certificate)
    {
        QString error;
        auto context = TlsServerContext::load(certificate.certificateFile(), certificate.keyFile(), &error);
        if (!context)
            qWarning("%s", qPrintable(error));
        return context;
    }

    static QString fingerprintOf(const QString &certificateFile)
    {
        const auto certificates = QSslCertificate::fromPath(certificateFile);
        return certificates.isEmpty() ? QString() : QString::fromLatin1(certificates.first().digest(QCryptographicHash::Sha256).toHex(':').toUpper());
    }

private slots:
    void initTestCase()
    {
        QString why;
        QVERIFY2(m_certificate.make(&why), qPrintable(why));
    }

    void init()
    {
        m_server = std::make_unique<HttpServer>(HttpServerLimits{}, [](int) { return std::make_unique<SizingHandler>(); }, 2);
        m_server->setTls(load(m_certificate));
        QVERIFY(m_server->tls());
        QString error;
        QVERIFY2(m_server->listen(QHostAddress::LocalHost, 0, &error), qPrintable(error));
    }

    void cleanup()
    {
        m_network.clearConnectionCache();
        m_server->shutdown(std::chrono::milliseconds(1000));
        m_server.reset();
    }

    void theCertificateIsDescribedAsAPersonChecksIt()
    {
        const TlsCertificateInfo &info = m_server->tls()->certificate();
        QCOMPARE(info.subject, QStringLiteral("CN=127.0.0.1"));
        QCOMPARE(info.names, QStringList{QStringLiteral("IP:127.0.0.1")});
        QCOMPARE(info.sha256, fingerprintOf(m_certificate.certificateFile()));
        QVERIFY(info.notBefore.isValid() && info.notAfter > info.notBefore);
        QCOMPARE(info.notBefore.daysTo(info.notAfter), 1);
    }

    void aRequestAndAKeptAliveSecondAreAnswered()
    {
        QStringList tlsErrors;
        const auto [status, body] = call(QStringLiteral("/size"), QByteArray("hello"), &tlsErrors);
        QVERIFY2(tlsErrors.isEmpty(), qPrintable(tlsErrors.join("; ")));
        QCOMPARE(status, 200);
        QCOMPARE(body, "5 " + QCryptographicHash::hash("hello", QCryptographicHash::Sha256).toHex());
        QCOMPARE(call(QStringLiteral("/size"), QByteArray("again")).first, 200);
        QCOMPARE(m_server->stats().connectionsAccepted, std::uint64_t(1));
        QCOMPARE(m_server->stats().requests, std::uint64_t(2));
    }

    void anUploadAndAnAnswerFarLargerThanTheBuffersPassWhole()
    {
        // 6 MiB up (the read buffer holds 64 KiB: TLS keeps records the buffer had no room for),
        // 20 MiB down (written faster than a socket takes it).
        QByteArray upload(6 * 1024 * 1024, Qt::Uninitialized);
        for (qsizetype i = 0; i < upload.size(); ++i)
            upload[i] = char(i * 7 % 251);
        const auto [status, body] = call(QStringLiteral("/size"), upload);
        QCOMPARE(status, 200);
        QCOMPARE(body, QByteArray::number(upload.size()) + ' ' + QCryptographicHash::hash(upload, QCryptographicHash::Sha256).toHex());
        const auto [bigStatus, big] = call(QStringLiteral("/bytes?n=20971520"));
        QCOMPARE(bigStatus, 200);
        QCOMPARE(big.size(), qsizetype(20971520));
        QCOMPARE(big.count('x'), qsizetype(20971520));
    }

    void plainHttpOnTheHttpsPortIsToldWhy()
    {
        QTcpSocket plain;
        plain.connectToHost(QHostAddress::LocalHost, m_server->serverPort());
        QVERIFY(plain.waitForConnected(5000));
        plain.write("GET /size HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        QByteArray answer;
        QTRY_VERIFY_WITH_TIMEOUT((answer += plain.readAll(), answer.contains("}")), 5000);
        QVERIFY2(answer.startsWith("HTTP/1.1 400"), answer.constData());
        QVERIFY2(answer.contains("This port speaks HTTPS: use an https:// URL for it."), answer.constData());
        QVERIFY(answer.contains("https_required"));
        QTRY_COMPARE_WITH_TIMEOUT(plain.state(), QAbstractSocket::UnconnectedState, 5000);
        QCOMPARE(m_server->stats().requests, std::uint64_t(0));
    }

    void aBrokenHandshakeCostsOnlyItsConnection()
    {
        QTcpSocket garbage;
        garbage.connectToHost(QHostAddress::LocalHost, m_server->serverPort());
        QVERIFY(garbage.waitForConnected(5000));
        // A handshake record's first byte, then nonsense.
        garbage.write(QByteArrayLiteral("\x16\x03\x01\x00\x05") + "hello, not a ClientHello at all");
        QTRY_COMPARE_WITH_TIMEOUT(garbage.state(), QAbstractSocket::UnconnectedState, 5000);
        QTRY_COMPARE(m_server->stats().tlsHandshakeFailures, std::uint64_t(1));

        // A client that does not trust the certificate gives up in the handshake, as it should.
        QSslSocket untrusting;
        untrusting.connectToHostEncrypted(QStringLiteral("127.0.0.1"), m_server->serverPort());
        QVERIFY(!untrusting.waitForEncrypted(5000));
        QVERIFY2(untrusting.sslHandshakeErrors().size() > 0, qPrintable(untrusting.errorString()));
        QTRY_COMPARE(m_server->stats().tlsHandshakeFailures, std::uint64_t(2));

        QCOMPARE(call(QStringLiteral("/size"), QByteArray("still here")).first, 200);
    }

    void aRenewedCertificateServesNewConnectionsAndTheOpenOneGoesOn()
    {
        QSslSocket before;
        before.setSslConfiguration(trusting(m_certificate.certificateFile()));
        before.connectToHostEncrypted(QStringLiteral("127.0.0.1"), m_server->serverPort());
        QVERIFY2(before.waitForEncrypted(5000), qPrintable(before.errorString()));
        QCOMPARE(QString::fromLatin1(before.peerCertificate().digest(QCryptographicHash::Sha256).toHex(':').toUpper()),
                 m_server->tls()->certificate().sha256);

        TestCertificate renewed;
        QString why;
        QVERIFY2(renewed.make(&why, QStringLiteral("renewed")), qPrintable(why));
        m_server->setTls(load(renewed));
        QCOMPARE(m_server->tls()->certificate().subject, QStringLiteral("CN=renewed"));

        QSslSocket after;
        after.setSslConfiguration(trusting(renewed.certificateFile()));
        after.connectToHostEncrypted(QStringLiteral("127.0.0.1"), m_server->serverPort());
        QVERIFY2(after.waitForEncrypted(5000), qPrintable(after.errorString()));
        QCOMPARE(after.peerCertificate().subjectInfo(QSslCertificate::CommonName), QStringList{QStringLiteral("renewed")});

        // The connection made before the renewal still carries requests.
        before.write("POST /size HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\nok");
        QByteArray answer;
        QTRY_VERIFY_WITH_TIMEOUT((answer += before.readAll(), answer.contains("\r\n\r\n2 ")), 5000);
        QVERIFY2(answer.startsWith("HTTP/1.1 200"), answer.constData());
    }

    void filesThatCannotServeAreRefusedWithTheReason()
    {
        QString error;
        QVERIFY(!TlsServerContext::load(QStringLiteral("/nonexistent/cert.pem"), m_certificate.keyFile(), &error));
        QVERIFY2(error.contains(QStringLiteral("/nonexistent/cert.pem does not exist")), qPrintable(error));

        QVERIFY(!TlsServerContext::load(m_certificate.keyFile(), m_certificate.keyFile(), &error));
        QVERIFY2(error.contains(QStringLiteral("holds no PEM certificate")), qPrintable(error));

        TestCertificate other;
        QString why;
        QVERIFY2(other.make(&why), qPrintable(why));
        QVERIFY(!TlsServerContext::load(m_certificate.certificateFile(), other.keyFile(), &error));
        QVERIFY2(error.contains(QStringLiteral("does not belong to the certificate")), qPrintable(error));

        // An encrypted key is refused at once, never by a passphrase prompt on the terminal.
        QVERIFY2(m_certificate.encryptKey(&why), qPrintable(why));
        QVERIFY(!TlsServerContext::load(m_certificate.certificateFile(), m_certificate.encryptedKeyFile(), &error));
        QVERIFY2(error.contains(QStringLiteral("encrypted key")), qPrintable(error));
    }
};

QTEST_MAIN(tst_HttpsServer)
#include "tst_HttpsServer.moc"
