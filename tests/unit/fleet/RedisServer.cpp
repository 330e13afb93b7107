#include "RedisServer.h"

#include "fleet/RedisConnection.h"

#include <QSignalSpy>

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

} // namespace

RedisServer::RedisServer() = default;

RedisServer::~RedisServer()
{
    kill();
}

bool RedisServer::start(const QString &password, QString *error)
{
    kill();
    if (m_port == 0)
        m_port = freePort();
    m_password = password;
    QStringList args{QStringLiteral("--port"), QString::number(m_port), QStringLiteral("--bind"), QStringLiteral("127.0.0.1"),
                     QStringLiteral("--dir"), m_dir.path(), QStringLiteral("--save"), QString(), QStringLiteral("--appendonly"),
                     QStringLiteral("no"), QStringLiteral("--daemonize"), QStringLiteral("no"), QStringLiteral("--enable-debug-command"),
                     QStringLiteral("local")};
    if (!password.isEmpty())
        args << QStringLiteral("--requirepass") << password;
    m_process.setProcessChannelMode(QProcess::MergedChannels);
    m_process.start(QStringLiteral("redis-server"), args);
    if (!m_process.waitForStarted(5000)) {
        if (error)
            *error = QStringLiteral("redis-server did not start (is Debian's redis-server installed?): %1").arg(m_process.errorString());
        return false;
    }
    for (int i = 0; i < 200; ++i) {
        QTcpSocket socket;
        socket.connectToHost(QHostAddress::LocalHost, m_port);
        if (socket.waitForConnected(100))
            return true;
        if (m_process.state() != QProcess::Running)
            break;
        QThread::msleep(25);
    }
    if (error)
        *error = QStringLiteral("redis-server is not listening on %1: %2").arg(m_port).arg(QString::fromLocal8Bit(m_process.readAll()));
    return false;
}

void RedisServer::kill()
{
    if (m_process.state() == QProcess::NotRunning)
        return;
    m_process.kill();
    m_process.waitForFinished(5000);
}

QString RedisServer::url() const
{
    return m_password.isEmpty() ? QStringLiteral("redis://127.0.0.1:%1").arg(m_port)
                                : QStringLiteral("redis://:%1@127.0.0.1:%2").arg(m_password).arg(m_port);
}

QString RedisServer::cli(const QStringList &args) const
{
    QProcess cli;
    QStringList all{QStringLiteral("-h"), QStringLiteral("127.0.0.1"), QStringLiteral("-p"), QString::number(m_port)};
    if (!m_password.isEmpty())
        all << QStringLiteral("--no-auth-warning") << QStringLiteral("-a") << m_password;
    cli.start(QStringLiteral("redis-cli"), all + args);
    cli.waitForFinished(10000);
    return QString::fromUtf8(cli.readAllStandardOutput()).trimmed();
}

bool openOn(RedisConnection &connection, const RedisServer &server, int database)
{
    QString error;
    RedisAddress address = RedisAddress::parse(server.url(), &error);
    address.database = database;
    QSignalSpy ready(&connection, &RedisConnection::ready);
    connection.open(address, QHostAddress::LocalHost, std::chrono::seconds(2));
    return ready.wait(3000) || ready.count() == 1;
}

std::vector<std::unique_ptr<RedisConnection>> openConnections(const RedisServer &server, int count)
{
    std::vector<std::unique_ptr<RedisConnection>> connections;
    for (int i = 0; i < count; ++i) {
        auto connection = std::make_unique<RedisConnection>(SystemClock::instance());
        if (!openOn(*connection, server))
            break;
        connections.push_back(std::move(connection));
    }
    return connections;
}

} // namespace sb::test
