// ResponseWriter::abort(): the server resets a connection (TCP RST) instead of closing it cleanly.
// The client side is a plain BSD socket, because only recv()'s errno tells a reset (ECONNRESET)
// from a clean close (0 bytes) — QTcpSocket reports both as RemoteHostClosedError.
#include "net/HttpHandler.h"
#include "net/HttpServer.h"
#include "net/ResponseWriter.h"

#include <QtTest>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

using namespace std::chrono_literals;
using sb::HttpHeaders;
using sb::HttpRequest;
using sb::HttpServer;
using sb::HttpServerLimits;
using sb::ResponseWriter;

namespace {

std::atomic<int> closedCallbacks{0};
std::atomic<int> openAfterAbort{-1};

class AbortingHandler : public sb::HttpHandler {
public:
    void handle(const HttpRequest &request, std::shared_ptr<ResponseWriter> response) override
    {
        response->onClosed([] { ++closedCallbacks; });
        if (request.path == "/abort-mid") {
            response->startStream(200, HttpHeaders());
            response->write("partial");
        }
        if (request.path.startsWith("/abort")) {
            response->abort();
            openAfterAbort = response->isOpen() ? 1 : 0;
            response->write("ignored after the reset");
            response->finish();
            return;
        }
        response->send(200, HttpHeaders(), "ok");
    }
};

struct RawResult {
    QByteArray received;
    int lastRecv = 0;
    int lastErrno = 0;
};

// Sends one request and reads until the server ends the connection one way or the other.
RawResult rawExchange(quint16 port, const QByteArray &request)
{
    RawResult out;
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    timeval timeout{10, 0}; // only a guard against a hang; the test never waits this long when it passes
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    if (::connect(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) != 0) {
        out.lastRecv = -2;
        ::close(fd);
        return out;
    }
    (void)::send(fd, request.constData(), static_cast<size_t>(request.size()), MSG_NOSIGNAL);
    char buffer[4096];
    for (;;) {
        const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
        if (n <= 0) {
            out.lastRecv = static_cast<int>(n);
            out.lastErrno = n < 0 ? errno : 0;
            break;
        }
        out.received.append(buffer, static_cast<qsizetype>(n));
        if (out.received.contains("\r\n\r\nok"))
            break; // the keep-alive control answer is complete
    }
    ::close(fd);
    return out;
}

} // namespace

class tst_ResponseWriter : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<HttpServer> m_server;

private slots:
    void init()
    {
        closedCallbacks = 0;
        openAfterAbort = -1;
        m_server = std::make_unique<HttpServer>(
            HttpServerLimits(), [](int) { return std::make_unique<AbortingHandler>(); }, 2);
        QString error;
        QVERIFY2(m_server->listen(QHostAddress::LocalHost, 0, &error), qPrintable(error));
    }

    void cleanup()
    {
        m_server->shutdown(500ms);
        m_server.reset();
    }

    void aNormalAnswerIsNotAReset()
    {
        // The control case: the same client code sees a real answer when nothing aborts.
        const RawResult result = rawExchange(m_server->serverPort(), "GET /fine HTTP/1.1\r\nHost: x\r\n\r\n");
        QVERIFY2(result.received.startsWith("HTTP/1.1 200 OK\r\n"), result.received.constData());
        QCOMPARE(m_server->stats().resets, 0u);
    }

    void abortBeforeAnyByteResetsTheConnection()
    {
        const RawResult result = rawExchange(m_server->serverPort(), "GET /abort HTTP/1.1\r\nHost: x\r\n\r\n");
        QCOMPARE(result.lastRecv, -1);
        QCOMPARE(result.lastErrno, ECONNRESET);
        QVERIFY2(result.received.isEmpty(), result.received.constData()); // no 500 stands in for the reset
        QTRY_COMPARE(closedCallbacks.load(), 1);
        // The handler goes on on its worker thread after abort(): the client can see the reset first.
        QTRY_COMPARE(openAfterAbort.load(), 0);
        QTRY_COMPARE(m_server->stats().resets, 1u);
    }

    void abortMidStreamResetsInsteadOfEndingCleanly()
    {
        const RawResult result = rawExchange(m_server->serverPort(), "GET /abort-mid HTTP/1.1\r\nHost: x\r\n\r\n");
        QCOMPARE(result.lastRecv, -1);
        QCOMPARE(result.lastErrno, ECONNRESET);
        QVERIFY(!result.received.contains("0\r\n\r\n"));            // never a clean chunked end …
        QVERIFY(!result.received.contains("ignored after the reset")); // … and nothing after the abort
        QTRY_COMPARE(closedCallbacks.load(), 1);
        // The handler goes on on its worker thread after abort(): the client can see the reset first.
        QTRY_COMPARE(openAfterAbort.load(), 0);
    }

    void theServerKeepsAnsweringAfterResets()
    {
        for (int i = 0; i < 5; ++i)
            QCOMPARE(rawExchange(m_server->serverPort(), "GET /abort HTTP/1.1\r\nHost: x\r\n\r\n").lastErrno, ECONNRESET);
        const RawResult fine = rawExchange(m_server->serverPort(), "GET /fine HTTP/1.1\r\nHost: x\r\n\r\n");
        QVERIFY2(fine.received.startsWith("HTTP/1.1 200 OK\r\n"), fine.received.constData());
        QTRY_COMPARE(m_server->stats().resets, 5u);
        QTRY_COMPARE(m_server->stats().connectionsOpen, 0);
    }
};

QTEST_GUILESS_MAIN(tst_ResponseWriter)
#include "tst_ResponseWriter.moc"
