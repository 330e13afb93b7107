#pragma once

#include <QProcess>
#include <QString>
#include <QTemporaryDir>

#include <memory>
#include <vector>

namespace sb {
class RedisConnection;
}

namespace sb::test {

// A real redis-server (Debian's) on a free loopback port, in a temporary directory of its own,
// without persistence. stop() kills it as a crash would; start() again brings it back on the
// same port, empty.
class RedisServer {
public:
    RedisServer();
    ~RedisServer();
    RedisServer(const RedisServer &) = delete;
    RedisServer &operator=(const RedisServer &) = delete;

    // True once it accepts connections; `password` non-empty sets requirepass.
    bool start(const QString &password = {}, QString *error = nullptr);
    void kill();
    quint16 port() const { return m_port; }
    QString url() const;
    // One command through redis-cli, its output trimmed (for a test's own checks and DEBUG SLEEP).
    QString cli(const QStringList &args) const;

private:
    QTemporaryDir m_dir;
    QProcess m_process;
    quint16 m_port = 0;
    QString m_password;
};

// Opens `connection` on `server` (database `database`); true once it is ready.
bool openOn(RedisConnection &connection, const RedisServer &server, int database = 0);
// `count` connections to `server`, one per instance of a test's fleet, each ready; fewer when one
// could not open.
std::vector<std::unique_ptr<RedisConnection>> openConnections(const RedisServer &server, int count);

} // namespace sb::test
