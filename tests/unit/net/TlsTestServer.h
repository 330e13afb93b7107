#pragma once

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QProcess>
#include <QString>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QUrl>

#include "TestCertificate.h"

namespace sb::test {

// nginx (when installed) as a real TLS server on loopback, with a throwaway self-signed certificate
// for 127.0.0.1 or the names given (TestCertificate): HTTP/2 through ALPN when `http2`, else
// HTTP/1.1 only (so that concurrent requests need connections, and handshakes, of their own).
// /files/NAME serves what writeFile() put there; every other path answers {"ok":true}.
class TlsTestServer {
public:
    explicit TlsTestServer(bool http2 = true, QString subjectAltNames = QStringLiteral("IP:127.0.0.1"))
        : m_http2(http2), m_subjectAltNames(std::move(subjectAltNames)) {}
    ~TlsTestServer();

    // False, with the reason, when nginx or openssl is missing or nginx would not start: the
    // caller skips.
    bool start(QString *why);

    QUrl url(const QString &path) const;
    bool writeFile(const QString &name, const QByteArray &bytes) const;
    quint16 port() const { return m_port; }
    // The certificate alone (a CA bundle that trusts this server and nothing else).
    QString caFile() const;
    // A bundle of the size a real one has: the system's CAs with this server's certificate
    // appended (just the certificate when the system has none). Written once, at `path`.
    bool writeSystemSizedBundle(const QString &path, QString *why) const;
    QString directory() const { return m_dir.path(); }

private:
    bool m_http2;
    QString m_subjectAltNames;
    QTemporaryDir m_dir;
    TestCertificate m_certificate;
    QProcess m_process;
    quint16 m_port = 0;
};

// A TCP relay on loopback in front of another port: counts the connections it accepts and, while
// held, forwards nothing a client sends (a TLS handshake then waits at its first message).
class HoldingRelay : public QObject {
public:
    explicit HoldingRelay(quint16 target);
    ~HoldingRelay() override;
    quint16 port() const { return m_server.serverPort(); }
    int accepts() const { return m_accepts; }
    void hold() { m_held = true; }
    void release();

private:
    struct Pair {
        QPointer<QTcpSocket> client;
        QPointer<QTcpSocket> upstream;
        QByteArray pending; // client bytes kept while held or before the upstream is connected
    };
    void flush(Pair &pair);

    quint16 m_target;
    QTcpServer m_server;
    QList<Pair *> m_pairs;
    int m_accepts = 0;
    bool m_held = false;
};

// Counts the times a file is opened (inotify): any reader's, whatever library reads it.
class FileOpenCounter {
public:
    explicit FileOpenCounter(const QString &path);
    ~FileOpenCounter();
    bool isValid() const { return m_watch >= 0; }
    // Opens since the last call.
    int take();

private:
    int m_fd = -1;
    int m_watch = -1;
};

} // namespace sb::test
