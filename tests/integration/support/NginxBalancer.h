#pragma once

#include <QList>
#include <QProcess>
#include <QString>
#include <QTemporaryDir>

namespace sb::test {

// Debian's nginx as a round-robin load balancer on a free loopback port, in front of `backends`
// (loopback ports), in a temporary directory of its own: the set-up a team puts in front of a
// fleet. It never retries a request on another backend, so every failure reaches the client.
class NginxBalancer {
public:
    NginxBalancer() = default;
    ~NginxBalancer();
    NginxBalancer(const NginxBalancer &) = delete;
    NginxBalancer &operator=(const NginxBalancer &) = delete;

    // True once it accepts connections; otherwise false with nginx's own words in `error`.
    bool start(const QList<quint16> &backends, QString *error = nullptr);
    void stop();
    quint16 port() const { return m_port; }

private:
    QTemporaryDir m_dir;
    QProcess m_process;
    quint16 m_port = 0;
};

} // namespace sb::test
