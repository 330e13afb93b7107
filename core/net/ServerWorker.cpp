#include "net/ServerWorker.h"

#include "net/HttpConnection.h"
#include "net/ServerCounters.h"

#include <QThread>

#include <unistd.h>

#include <vector>

namespace sb {

ServerWorker::ServerWorker(const Clock &clock, int index, const HttpServerLimits &limits, std::shared_ptr<ServerCounters> counters)
    : m_clock(clock)
    , m_index(index)
    , m_limits(limits)
    , m_counters(std::move(counters))
{
}

ServerWorker::~ServerWorker() = default;

void ServerWorker::start(const HttpHandlerFactory &factory)
{
    m_handler = factory(m_index);
}

void ServerWorker::adoptDescriptor(qintptr descriptor, const std::shared_ptr<const TlsServerContext> &tls)
{
    if (m_draining || !m_handler) {
        ::close(static_cast<int>(descriptor));
        return;
    }
    const quint64 id = ++m_counters->nextConnectionId;
    auto *connection = new HttpConnection(m_clock, descriptor, id, m_index, m_limits, m_handler.get(), *m_counters, tls, this);
    m_connections.insert(connection);
    connect(connection, &HttpConnection::closed, this, &ServerWorker::connectionClosed);
}

void ServerWorker::connectionClosed(HttpConnection *connection)
{
    m_connections.erase(connection);
    if (m_draining && m_connections.empty())
        finishDrain();
}

void ServerWorker::beginDrain(std::chrono::milliseconds deadline, std::function<void()> done)
{
    m_draining = true;
    m_drainDone = std::move(done);
    m_drainTimer = m_clock.createTimer([this] {
        const std::vector<HttpConnection *> left(m_connections.begin(), m_connections.end());
        for (HttpConnection *connection : left)
            connection->abort();
        finishDrain();
    });
    m_drainTimer->start(deadline);
    const std::vector<HttpConnection *> current(m_connections.begin(), m_connections.end());
    for (HttpConnection *connection : current)
        connection->startDrain();
    if (m_connections.empty())
        finishDrain();
}

void ServerWorker::finishDrain()
{
    if (m_drainTimer)
        m_drainTimer->stop();
    if (auto done = std::move(m_drainDone)) {
        m_drainDone = nullptr;
        done();
    }
}

void ServerWorker::stop()
{
    m_draining = true;
    if (m_drainTimer) {
        m_drainTimer->stop();
        m_drainTimer.reset();
    }
    const std::vector<HttpConnection *> left(m_connections.begin(), m_connections.end());
    for (HttpConnection *connection : left)
        connection->abort();
    m_connections.clear();
    // Connections are gone before the handler they point to; on this thread, as the handler's
    // own objects (timers, curl) require.
    const QList<HttpConnection *> children = findChildren<HttpConnection *>(Qt::FindDirectChildrenOnly);
    qDeleteAll(children);
    m_handler.reset();
}

} // namespace sb
