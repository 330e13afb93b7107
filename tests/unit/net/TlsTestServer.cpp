#include "TlsTestServer.h"

#include <QDir>
#include <QFile>
#include <QStandardPaths>
#include <QtTest>

#include <sys/inotify.h>
#include <unistd.h>

namespace sb::test {

namespace {

quint16 freePort()
{
    QTcpServer server;
    if (!server.listen(QHostAddress::LocalHost, 0))
        return 0;
    const quint16 port = server.serverPort();
    server.close();
    return port;
}

} // namespace

TlsTestServer::~TlsTestServer()
{
    if (m_process.state() != QProcess::NotRunning) {
        m_process.terminate();
        if (!m_process.waitForFinished(5000))
            m_process.kill();
        m_process.waitForFinished(5000);
    }
}

bool TlsTestServer::start(QString *why)
{
    const QString nginx = QStandardPaths::findExecutable(QStringLiteral("nginx"), {"/usr/sbin", "/usr/bin"});
    if (nginx.isEmpty()) {
        *why = QStringLiteral("nginx is not installed");
        return false;
    }
    if (!m_dir.isValid()) {
        *why = QStringLiteral("no temporary directory");
        return false;
    }
    const QString dir = m_dir.path();
    if (!m_certificate.make(why, QStringLiteral("127.0.0.1"), m_subjectAltNames))
        return false;
    m_port = freePort();
    QFile config(dir + "/nginx.conf");
    if (!config.open(QIODevice::WriteOnly))
        return false;
    config.write(QStringLiteral(R"(daemon off;
master_process off;
pid %1/nginx.pid;
error_log %1/error.log;
events { worker_connections 1024; }
http {
    access_log off;
    keepalive_requests 100000;
    client_body_temp_path %1;
    proxy_temp_path %1;
    fastcgi_temp_path %1;
    uwsgi_temp_path %1;
    scgi_temp_path %1;
    server {
        listen 127.0.0.1:%2 ssl%3 backlog=1024;
        ssl_certificate %4;
        ssl_certificate_key %5;
        location /files/ { alias %1/files/; default_type application/octet-stream; }
        location / { default_type application/json; return 200 '{"ok":true}'; }
    }
}
)")
                     .arg(dir)
                     .arg(m_port)
                     .arg(m_http2 ? QStringLiteral(" http2") : QString(), m_certificate.certificateFile(), m_certificate.keyFile())
                     .toUtf8());
    config.close();
    m_process.start(nginx, {"-p", dir, "-c", dir + "/nginx.conf", "-e", dir + "/error.log"});
    if (!m_process.waitForStarted(10000)) {
        *why = QStringLiteral("nginx did not start");
        return false;
    }
    for (int attempt = 0; attempt < 100; ++attempt) {
        QTcpSocket probe;
        probe.connectToHost(QHostAddress::LocalHost, m_port);
        if (probe.waitForConnected(100))
            return true;
        if (m_process.state() != QProcess::Running)
            break;
        QTest::qWait(50);
    }
    QFile log(dir + "/error.log");
    log.open(QIODevice::ReadOnly);
    *why = QStringLiteral("nginx is not listening: ") + QString::fromLocal8Bit(log.readAll());
    return false;
}

bool TlsTestServer::writeFile(const QString &name, const QByteArray &bytes) const
{
    if (!QDir(m_dir.path()).mkpath(QStringLiteral("files")))
        return false;
    QFile file(m_dir.path() + QStringLiteral("/files/") + name);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

QUrl TlsTestServer::url(const QString &path) const
{
    return QUrl(QStringLiteral("https://127.0.0.1:%1%2").arg(m_port).arg(path));
}

QString TlsTestServer::caFile() const
{
    return m_certificate.certificateFile();
}

bool TlsTestServer::writeSystemSizedBundle(const QString &path, QString *why) const
{
    QByteArray bundle;
    for (const char *system : {"/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt"}) {
        QFile file(QString::fromLatin1(system));
        if (file.open(QIODevice::ReadOnly)) {
            bundle = file.readAll();
            break;
        }
    }
    QFile cert(caFile());
    if (!cert.open(QIODevice::ReadOnly)) {
        *why = QStringLiteral("no certificate to append");
        return false;
    }
    if (!bundle.isEmpty() && !bundle.endsWith('\n'))
        bundle += '\n';
    bundle += cert.readAll();
    QFile out(path);
    if (!out.open(QIODevice::WriteOnly) || out.write(bundle) != bundle.size()) {
        *why = QStringLiteral("cannot write %1").arg(path);
        return false;
    }
    return true;
}

HoldingRelay::HoldingRelay(quint16 target) : m_target(target)
{
    m_server.setListenBacklogSize(1024);
    m_server.listen(QHostAddress::LocalHost, 0);
    connect(&m_server, &QTcpServer::newConnection, this, [this] {
        while (QTcpSocket *client = m_server.nextPendingConnection()) {
            ++m_accepts;
            auto *pair = new Pair;
            pair->client = client;
            pair->upstream = new QTcpSocket(this);
            m_pairs.append(pair);
            connect(client, &QTcpSocket::readyRead, this, [this, pair] {
                pair->pending += pair->client->readAll();
                flush(*pair);
            });
            connect(pair->upstream, &QTcpSocket::connected, this, [this, pair] { flush(*pair); });
            connect(pair->upstream, &QTcpSocket::readyRead, this, [pair] {
                if (pair->client)
                    pair->client->write(pair->upstream->readAll());
            });
            connect(client, &QTcpSocket::disconnected, this, [pair] {
                if (pair->upstream)
                    pair->upstream->disconnectFromHost();
            });
            connect(pair->upstream, &QTcpSocket::disconnected, this, [pair] {
                if (pair->client)
                    pair->client->disconnectFromHost();
            });
            pair->upstream->connectToHost(QHostAddress::LocalHost, m_target);
        }
    });
}

// The sockets go first, with their signals cut: deleted later as children, each one's
// `disconnected` would reach a lambda that touches its half-destroyed partner.
HoldingRelay::~HoldingRelay()
{
    for (Pair *pair : std::as_const(m_pairs)) {
        for (QTcpSocket *socket : {pair->client.data(), pair->upstream.data()}) {
            if (!socket)
                continue;
            socket->disconnect(this);
            socket->abort();
            delete socket;
        }
        delete pair;
    }
}

void HoldingRelay::release()
{
    m_held = false;
    for (Pair *pair : m_pairs)
        flush(*pair);
}

void HoldingRelay::flush(Pair &pair)
{
    if (m_held || !pair.upstream || pair.upstream->state() != QAbstractSocket::ConnectedState || pair.pending.isEmpty())
        return;
    pair.upstream->write(pair.pending);
    pair.pending.clear();
}

FileOpenCounter::FileOpenCounter(const QString &path)
{
    m_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    // Closes are watched too: identical events in a row are merged while unread, an open and its
    // close never are.
    if (m_fd >= 0)
        m_watch = inotify_add_watch(m_fd, QFile::encodeName(path).constData(), IN_OPEN | IN_CLOSE_NOWRITE | IN_CLOSE_WRITE);
}

FileOpenCounter::~FileOpenCounter()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

int FileOpenCounter::take()
{
    int opens = 0;
    alignas(inotify_event) char buffer[4096];
    for (;;) {
        const ssize_t n = ::read(m_fd, buffer, sizeof buffer);
        if (n <= 0)
            return opens;
        for (char *p = buffer; p < buffer + n;) {
            const auto *event = reinterpret_cast<const inotify_event *>(p);
            if (event->mask & IN_OPEN)
                ++opens;
            p += sizeof(inotify_event) + event->len;
        }
    }
}

} // namespace sb::test
