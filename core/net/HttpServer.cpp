#include "net/HttpServer.h"

#include "net/EpollEventDispatcher.h"
#include "net/SocketBatch.h"
#include "net/ServerCounters.h"
#include "net/ServerWorker.h"

#include <QSemaphore>
#include <QTcpServer>
#include <QThread>

#include <unistd.h>

#include <algorithm>

namespace sb {

class HttpServer::Acceptor : public QTcpServer {
public:
    explicit Acceptor(HttpServer *server) : m_server(server) {}

protected:
    // The descriptor goes to a worker untouched: its QTcpSocket must be created on that thread.
    void incomingConnection(qintptr descriptor) override { m_server->handOver(descriptor); }

private:
    HttpServer *m_server;
};

HttpServer::HttpServer(const Clock &clock, const HttpServerLimits &limits, HttpHandlerFactory handlerFactory,
                       int workerCount, QObject *parent)
    : QObject(parent)
    , m_limits(limits)
    , m_counters(std::make_shared<ServerCounters>())
    , m_acceptor(new Acceptor(this))
    , m_acceptorThread(new QThread)
{
    m_acceptorThread->setObjectName(QStringLiteral("sb-http-accept"));
    m_acceptor->moveToThread(m_acceptorThread);
    m_acceptorThread->start();
    if (workerCount <= 0)
        workerCount = std::max(2, QThread::idealThreadCount());
    const bool epollLoop = qEnvironmentVariable("SB_WORKER_LOOP") != QLatin1String("qt");
    for (int i = 0; i < workerCount; ++i) {
        auto *thread = new QThread;
        thread->setObjectName(QStringLiteral("sb-http-%1").arg(i));
        // Workers run on epoll (EpollEventDispatcher says why); SB_WORKER_LOOP=qt keeps Qt's own
        // loop, for comparison or should the epoll loop ever misbehave.
        if (epollLoop)
            thread->setEventDispatcher(new EpollEventDispatcher);
        auto *worker = new ServerWorker(clock, i, m_limits, m_counters);
        worker->moveToThread(thread);
        thread->start();
        QMetaObject::invokeMethod(
            worker,
            [worker, &handlerFactory, epollLoop] {
                // The ring that sends its turns' held writes is made with the worker, not at its
                // first busy turn: a descriptor of the process from the start, as its epoll's is.
                if (epollLoop)
                    SocketBatch::forThisThread();
                worker->start(handlerFactory);
            },
            Qt::BlockingQueuedConnection);
        m_threads.push_back(thread);
        m_workers.push_back(worker);
    }
}

HttpServer::~HttpServer()
{
    shutdown(std::chrono::milliseconds(0));
}

bool HttpServer::listen(const QHostAddress &address, quint16 port, QString *error)
{
    if (m_stopped) {
        if (error)
            *error = QStringLiteral("The server was shut down.");
        return false;
    }
    bool ok = false;
    QString reason;
    QMetaObject::invokeMethod(
        m_acceptor,
        [&] {
            ok = m_acceptor->listen(address, port);
            if (ok) {
                m_address = m_acceptor->serverAddress();
                m_port = m_acceptor->serverPort();
            } else {
                reason = m_acceptor->errorString();
            }
        },
        Qt::BlockingQueuedConnection);
    if (!ok) {
        if (error)
            *error = QStringLiteral("Cannot listen on %1 port %2: %3").arg(address.toString()).arg(port).arg(reason);
        return false;
    }
    m_listening = true;
    return true;
}

bool HttpServer::isListening() const
{
    return m_listening;
}

QHostAddress HttpServer::serverAddress() const
{
    return m_address;
}

quint16 HttpServer::serverPort() const
{
    return m_port;
}

void HttpServer::handOver(qintptr descriptor)
{
    ++m_counters->connectionsAccepted;
    if (m_workers.empty() || m_counters->connectionsOpen.load() >= m_limits.maxConnections) {
        ++m_counters->connectionsRefused;
        ::close(static_cast<int>(descriptor));
        return;
    }
    ServerWorker *worker = m_workers[m_nextWorker];
    m_nextWorker = (m_nextWorker + 1) % m_workers.size();
    QMetaObject::invokeMethod(worker, [worker, descriptor, tls = tls()] { worker->adoptDescriptor(descriptor, tls); },
                              Qt::QueuedConnection);
}

void HttpServer::setTls(std::shared_ptr<const TlsServerContext> context)
{
    std::lock_guard lock(m_tlsMutex);
    m_tls = std::move(context);
}

std::shared_ptr<const TlsServerContext> HttpServer::tls() const
{
    std::lock_guard lock(m_tlsMutex);
    return m_tls;
}

void HttpServer::shutdown(std::chrono::milliseconds drainDeadline)
{
    if (m_stopped)
        return;
    for (QThread *thread : m_threads) {
        if (thread == QThread::currentThread()) {
            qWarning("sb::HttpServer::shutdown called from a worker thread; it would wait for itself. Ignored.");
            return;
        }
    }
    m_stopped = true;
    m_listening = false;
    // Once this returns no descriptor is handed over any more: incomingConnection runs on that thread.
    QMetaObject::invokeMethod(m_acceptor, [this] { delete m_acceptor; }, Qt::BlockingQueuedConnection);
    m_acceptor = nullptr;
    m_acceptorThread->quit();
    m_acceptorThread->wait();
    delete m_acceptorThread;
    m_acceptorThread = nullptr;

    QSemaphore drained;
    for (ServerWorker *worker : m_workers)
        QMetaObject::invokeMethod(
            worker, [worker, drainDeadline, &drained] { worker->beginDrain(drainDeadline, [&drained] { drained.release(); }); },
            Qt::QueuedConnection);
    // The workers cut what is left at the deadline themselves; the margin covers a busy event loop.
    const auto wait = drainDeadline + std::chrono::seconds(5);
    drained.tryAcquire(static_cast<int>(m_workers.size()), static_cast<int>(wait.count()));

    for (std::size_t i = 0; i < m_workers.size(); ++i) {
        ServerWorker *worker = m_workers[i];
        QThread *thread = m_threads[i];
        QMetaObject::invokeMethod(worker, [worker] { worker->stop(); }, Qt::BlockingQueuedConnection);
        thread->quit();
        thread->wait();
        delete worker;
        delete thread;
    }
    m_workers.clear();
    m_threads.clear();
}

HttpServer::Stats HttpServer::stats() const
{
    const ServerCounters &c = *m_counters;
    Stats s;
    s.connectionsAccepted = c.connectionsAccepted.load();
    s.connectionsOpen = c.connectionsOpen.load();
    s.connectionsRefused = c.connectionsRefused.load();
    s.requests = c.requests.load();
    s.responses1xx = c.responses1xx.load();
    s.responses2xx = c.responses2xx.load();
    s.responses3xx = c.responses3xx.load();
    s.responses4xx = c.responses4xx.load();
    s.responses5xx = c.responses5xx.load();
    s.parseErrors = c.parseErrors.load();
    s.timeouts = c.timeouts.load();
    s.idleCloses = c.idleCloses.load();
    s.slowClientCloses = c.slowClientCloses.load();
    s.clientAborts = c.clientAborts.load();
    s.tlsHandshakeFailures = c.tlsHandshakeFailures.load();
    s.resets = c.resets.load();
    s.bytesIn = c.bytesIn.load();
    s.bytesOut = c.bytesOut.load();
    return s;
}

} // namespace sb
