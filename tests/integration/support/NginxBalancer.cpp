#include "NginxBalancer.h"

#include <QFile>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTcpSocket>
#include <QThread>

namespace sb::test {

namespace {

quint16 freePort()
{
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost, 0);
    return probe.serverPort();
}

// Every path nginx would otherwise take from its build (/var/lib/nginx, /var/log/nginx) is in
// `dir`, so it runs as any user beside another nginx.
QByteArray configuration(const QString &dir, quint16 port, const QList<quint16> &backends)
{
    QByteArray servers;
    for (quint16 backend : backends)
        servers += "        server 127.0.0.1:" + QByteArray::number(backend) + ";\n";
    const QByteArray d = dir.toUtf8();
    return "worker_processes 1;\n"
           "pid " + d + "/nginx.pid;\n"
           "error_log " + d + "/error.log warn;\n"
           "events { worker_connections 4096; }\n"
           "http {\n"
           "    access_log off;\n"
           "    client_body_temp_path " + d + "/body;\n"
           "    proxy_temp_path " + d + "/proxy;\n"
           "    fastcgi_temp_path " + d + "/fastcgi;\n"
           "    uwsgi_temp_path " + d + "/uwsgi;\n"
           "    scgi_temp_path " + d + "/scgi;\n"
           "    upstream fleet {\n" + servers + "        keepalive 64;\n    }\n"
           "    server {\n"
           "        listen 127.0.0.1:" + QByteArray::number(port) + ";\n"
           "        location / {\n"
           "            proxy_pass http://fleet;\n"
           "            proxy_http_version 1.1;\n"
           "            proxy_set_header Connection \"\";\n"
           "            proxy_buffering off;\n"
           "            proxy_next_upstream off;\n"
           "            proxy_read_timeout 120s;\n"
           "        }\n"
           "    }\n"
           "}\n";
}

bool accepts(quint16 port)
{
    QTcpSocket socket;
    socket.connectToHost(QHostAddress::LocalHost, port);
    return socket.waitForConnected(200);
}

} // namespace

NginxBalancer::~NginxBalancer()
{
    stop();
}

bool NginxBalancer::start(const QList<quint16> &backends, QString *error)
{
    stop();
    m_port = freePort();
    const QString conf = m_dir.filePath(QStringLiteral("nginx.conf"));
    QFile file(conf);
    if (!file.open(QIODevice::WriteOnly) || file.write(configuration(m_dir.path(), m_port, backends)) < 0) {
        if (error)
            *error = QStringLiteral("cannot write %1").arg(conf);
        return false;
    }
    file.close();
    m_process.setProcessChannelMode(QProcess::MergedChannels);
    // Debian puts nginx in /usr/sbin, which a non-root PATH may lack.
    QString nginx = QStandardPaths::findExecutable(QStringLiteral("nginx"));
    if (nginx.isEmpty())
        nginx = QStandardPaths::findExecutable(QStringLiteral("nginx"), {QStringLiteral("/usr/sbin"), QStringLiteral("/usr/local/sbin")});
    if (nginx.isEmpty()) {
        if (error)
            *error = QStringLiteral("nginx is not installed (packaging/install-deps.sh installs nginx-light)");
        return false;
    }
    m_process.start(nginx, {QStringLiteral("-c"), conf, QStringLiteral("-p"), m_dir.path(), QStringLiteral("-g"),
                                              QStringLiteral("daemon off;")});
    for (int i = 0; i < 100; ++i) {
        if (m_process.state() == QProcess::NotRunning) {
            m_process.waitForFinished(100);
            if (error)
                *error = QStringLiteral("nginx did not start: %1").arg(QString::fromUtf8(m_process.readAll()));
            return false;
        }
        if (accepts(m_port))
            return true;
        QThread::msleep(50);
    }
    if (error)
        *error = QStringLiteral("nginx does not accept connections on port %1").arg(m_port);
    return false;
}

void NginxBalancer::stop()
{
    if (m_process.state() == QProcess::NotRunning)
        return;
    m_process.terminate();
    if (!m_process.waitForFinished(5000)) {
        m_process.kill();
        m_process.waitForFinished();
    }
}

} // namespace sb::test
