// The local server's request path: llhttp parsing, limits, pipelining, error answers and the
// ResponseWriter, driven through a real HttpConnection on a loopback socket (the parser lives in
// the connection, so there is no socket-free seam). The client writes the input and half-closes;
// the connection's timers are short so every run ends quickly. Whatever arrived back must be HTTP.
#include "FuzzEntries.h"

#include "net/HttpConnection.h"
#include "net/HttpHandler.h"
#include "net/ResponseWriter.h"
#include "net/ServerCounters.h"

#include <QCoreApplication>
#include <QEventLoop>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace sb::fuzz {

namespace {

// Answers by path, so the input also reaches streaming, resets and abandoned responses.
class FuzzHandler : public HttpHandler {
public:
    void handle(const HttpRequest &request, std::shared_ptr<ResponseWriter> response) override
    {
        if (request.path == "/stream") {
            response->startStream(200, HttpHeaders());
            response->write(request.body);
            response->write(request.target);
            response->finish();
        } else if (request.path == "/abort") {
            response->abort();
        } else if (request.path == "/forget") {
            // Dropped without an answer: the server answers 500 for the handler.
        } else {
            HttpHeaders headers;
            headers.add("Content-Type", "text/plain");
            response->send(request.method == "DELETE" ? 204 : 200, headers, request.body);
        }
    }
};

void ensureApplication()
{
    if (QCoreApplication::instance())
        return;
    static int argc = 1;
    static char name[] = "fuzz_http_request";
    static char *argv[] = {name, nullptr};
    static QCoreApplication *app = new QCoreApplication(argc, argv); // lives for the process
    (void)app;
}

int listener()
{
    static int fd = [] {
        const int s = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        address.sin_port = 0;
        fuzzCheck(::bind(s, reinterpret_cast<sockaddr *>(&address), sizeof address) == 0, "bind a loopback port");
        fuzzCheck(::listen(s, 16) == 0, "listen");
        return s;
    }();
    return fd;
}

} // namespace

int fuzzHttpRequest(const std::uint8_t *data, std::size_t size)
{
    // Larger inputs would have to be written while the server reads; 256 KiB fits the socket buffers.
    if (size > 256 * 1024)
        return 0;
    ensureApplication();
    static ServerCounters counters;
    static FuzzHandler handler;

    sockaddr_in address{};
    socklen_t length = sizeof address;
    ::getsockname(listener(), reinterpret_cast<sockaddr *>(&address), &length);
    const int client = ::socket(AF_INET, SOCK_STREAM, 0);
    fuzzCheck(::connect(client, reinterpret_cast<sockaddr *>(&address), sizeof address) == 0, "connect");
    const int server = ::accept(listener(), nullptr, nullptr);
    fuzzCheck(server >= 0, "accept");

    std::size_t sent = 0;
    while (sent < size) {
        const ssize_t n = ::send(client, data + sent, size - sent, MSG_NOSIGNAL);
        if (n <= 0)
            break;
        sent += static_cast<std::size_t>(n);
    }
    ::shutdown(client, SHUT_WR);

    HttpServerLimits limits;
    limits.maxBodyBytes = 16 * 1024;
    limits.maxHeaderBytes = 8 * 1024;
    limits.maxHeaderCount = 20;
    limits.headerTimeout = std::chrono::milliseconds(5);
    limits.bodyTimeout = std::chrono::milliseconds(5);
    limits.idleTimeout = std::chrono::milliseconds(5);
    limits.lingerTimeout = std::chrono::milliseconds(1);
    limits.maxPipelinedRequests = 4;

    auto *connection = new HttpConnection(SystemClock::instance(), server, ++counters.nextConnectionId, 0, limits, &handler, counters, nullptr);
    QEventLoop loop;
    QObject::connect(connection, &HttpConnection::closed, &loop, &QEventLoop::quit, Qt::QueuedConnection);
    loop.exec();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);

    QByteArray answer;
    ::fcntl(client, F_SETFL, O_NONBLOCK);
    char buffer[16384];
    for (;;) {
        const ssize_t n = ::recv(client, buffer, sizeof buffer, 0);
        if (n <= 0)
            break;
        answer.append(buffer, n);
    }
    // An abortive close (RST): a graceful one leaves the pair in TIME_WAIT, and at a few thousand
    // runs a second the loopback's ephemeral ports ran out within the minute (connect failed).
    const linger abortive{1, 0};
    ::setsockopt(client, SOL_SOCKET, SO_LINGER, &abortive, sizeof abortive);
    ::close(client);
    if (!answer.isEmpty())
        fuzzCheck(answer.startsWith("HTTP/1.1 ") && answer.size() >= 12, "the server answers with an HTTP/1.1 status line");
    return 0;
}

} // namespace sb::fuzz
