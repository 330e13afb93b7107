#include "net/Http1Engine.h"

#include "common/ByteAssembly.h"
#include "net/HttpSyntax.h"

#include <QFile>
#include <QHostAddress>
#include <QUrl>

#include <netinet/in.h>
#include <unistd.h> // environ

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <string_view>

namespace sb {

namespace {

// Idle connections one worker's engine keeps for reuse, over all upstreams (as libcurl's cache).
constexpr std::size_t kMaxIdleConnections = 512;
// One recv() asks for this much; a small answer arrives in one.
constexpr std::size_t kReadBufferSize = 64 * 1024;
// recv() calls per readable event at most, so a fast upstream cannot pile more than this much
// undelivered body into a transfer (a paused one stops reading at the next event).
constexpr int kReadsPerEvent = 4;

bool environmentHasProxy(bool https)
{
    // libcurl's variables for the URL's scheme (for http:// it ignores HTTP_PROXY, as CGI sets it
    // from a request header). Whoever set one gets libcurl, which applies it and no_proxy exactly.
    // Read on every request (a test or an embedding application may set one at any time), in one
    // pass over the environment rather than a getenv() per name.
    // An entry's first byte rules out nearly all of them, without measuring any (strlen over ~30
    // entries was 1,500 instructions a request).
    static constexpr std::string_view httpNames[] = {"http_proxy=", "all_proxy=", "ALL_PROXY="};
    static constexpr std::string_view httpsNames[] = {"https_proxy=", "HTTPS_PROXY=", "all_proxy=", "ALL_PROXY="};
    for (char **entry = environ; *entry; ++entry) {
        const char *variable = *entry;
        if (variable[0] != 'h' && variable[0] != 'a' && variable[0] != 'A' && (!https || variable[0] != 'H'))
            continue;
        const auto check = [variable](std::string_view name) {
            // strncmp stops at the entry's terminating NUL, so a short entry is safe.
            return std::strncmp(variable, name.data(), name.size()) == 0 && variable[name.size()] != '\0';
        };
        if (https ? std::any_of(std::begin(httpsNames), std::end(httpsNames), check)
                  : std::any_of(std::begin(httpNames), std::end(httpNames), check))
            return true;
    }
    return false;
}

SocketAddress socketAddress(const QHostAddress &host, quint16 port)
{
    SocketAddress address;
    if (host.protocol() == QAbstractSocket::IPv4Protocol) {
        auto &in = reinterpret_cast<sockaddr_in &>(address.storage);
        in.sin_family = AF_INET;
        in.sin_port = htons(port);
        in.sin_addr.s_addr = htonl(host.toIPv4Address());
        address.length = sizeof(sockaddr_in);
    } else {
        auto &in6 = reinterpret_cast<sockaddr_in6 &>(address.storage);
        in6.sin6_family = AF_INET6;
        in6.sin6_port = htons(port);
        const Q_IPV6ADDR bytes = host.toIPv6Address();
        std::memcpy(&in6.sin6_addr, bytes.c, sizeof bytes.c);
        address.length = sizeof(sockaddr_in6);
    }
    address.text = QStringLiteral("%1 port %2").arg(host.toString()).arg(port);
    return address;
}

bool isHttps(const QUrl &url)
{
    return url.scheme().compare(QLatin1String("https"), Qt::CaseInsensitive) == 0;
}

std::shared_ptr<const Http1Target> makeTarget(const QUrl &url, const TransferOptions &options)
{
    const bool tls = isHttps(url);
    if (!url.isValid() || (!tls && url.scheme().compare(QLatin1String("http"), Qt::CaseInsensitive) != 0) ||
        !url.userInfo().isEmpty())
        return nullptr;
    const QString host = url.host();
    const int port = url.port(tls ? 443 : 80);
    if (port <= 0 || port > 65535)
        return nullptr;
    if (host.isEmpty())
        return nullptr;
    auto target = std::make_shared<Http1Target>();
    target->port = static_cast<quint16>(port);
    QHostAddress literal;
    if (literal.setAddress(host)) {
        if (!literal.scopeId().isEmpty() ||
            (literal.protocol() != QAbstractSocket::IPv4Protocol && literal.protocol() != QAbstractSocket::IPv6Protocol))
            return nullptr;
        target->addresses.push_back(socketAddress(literal, target->port));
    } else {
        target->hostName = host;
    }
    target->hostHeader = url.authority(QUrl::FullyEncoded).toLatin1();
    target->endpoint = target->hostHeader.toLower();
    if (tls) {
        target->tls = true;
        target->peer.host = url.host(QUrl::FullyEncoded).toLatin1().toLower(); // as SNI sends it
        target->peer.verify = options.verifyTls;
        target->caBundle = QFile::encodeName(options.caBundlePath);
        // Connections verified one way are not handed to a request that trusts another.
        target->endpoint = "https://" + target->endpoint + ' ' + (options.verifyTls ? target->caBundle : "unverified");
    }
    target->requestTarget = url.toEncoded(QUrl::RemoveScheme | QUrl::RemoveAuthority | QUrl::RemoveFragment);
    if (target->requestTarget.isEmpty())
        target->requestTarget = "/";
    return target;
}

// The request line and header block. False with a sentence when the request cannot be written.
bool buildHead(const UpstreamRequest &request, const Http1Target &target, QByteArray *head, QString *error)
{
    const bool upperCase = std::none_of(request.method.begin(), request.method.end(), [](char c) { return c >= 'a' && c <= 'z'; });
    const QByteArray method = upperCase ? request.method : request.method.toUpper(); // shared, not copied, when it is
    if (!isHttpToken(method)) {
        *error = QStringLiteral("The upstream request method \"%1\" is not a valid HTTP method")
                     .arg(QString::fromLatin1(request.method).simplified());
        return false;
    }
    *error = UpstreamTransfer::headerProblem(request.headers);
    if (!error->isEmpty())
        return false;
    char lengthText[24];
    const QByteArrayView length(lengthText, std::to_chars(lengthText, lengthText + sizeof lengthText, request.body.size()).ptr);
    ByteAssembly out;
    out << method << " " << target.requestTarget << " HTTP/1.1\r\n";
    if (!request.headers.contains("Host"))
        out << "Host: " << target.hostHeader << "\r\n";
    for (const auto &[name, value] : request.headers.fields()) {
        // The body's framing is ours to write.
        if (sameFieldName(name, "content-length") || sameFieldName(name, "transfer-encoding"))
            continue;
        out << name << (value.isEmpty() ? ":" : ": ") << value << "\r\n";
    }
    if (!request.body.isEmpty() || (method != "GET" && method != "HEAD"))
        out << "Content-Length: " << length << "\r\n";
    out << "\r\n";
    *head = out.take();
    return true;
}

long long millis(std::chrono::milliseconds duration)
{
    return static_cast<long long>(duration.count());
}

} // namespace

struct Http1Engine::Exchange final : HttpResponseParser::Sink {
    quint64 id = 0;
    UpstreamTransfer *transfer = nullptr;
    std::shared_ptr<const Http1Target> target;
    ConnectionPtr connection;
    QByteArray head;
    bool toHead = false;
    std::vector<SocketAddress> resolved; // the host name's addresses, when the target has one
    bool resolving = false;
    std::size_t nextAddress = 0;
    bool mayRetry = false; // on a kept-alive connection and nothing answered yet
    int connectionsOpened = 0;
    int tlsHandshakes = 0;
    int tlsResumptions = 0;
    Clock::TimePoint connectBy = Clock::TimePoint::max();
    Clock::TimePoint finishBy = Clock::TimePoint::max();
    Deadlines::iterator deadline;
    bool hasDeadline = false;

    const std::vector<SocketAddress> &addresses() const { return target->hostName.isEmpty() ? target->addresses : resolved; }

    void responseHead(int status, HttpHeaders &&headers) override { transfer->recordHead(status, std::move(headers)); }
    bool responseBody(QByteArrayView piece) override { return transfer->recordBody(piece); }
};

Http1Engine::Http1Engine(const Clock &clock, QObject *parent)
    : QObject(parent)
    , m_clock(clock)
    , m_deadlineTimer(clock.createTimer([this] { onDeadline(); }))
    , m_endLater(clock.createTimer([this] { runAfterEvents(); }))
    , m_readBufferedTimer(clock.createTimer([this] { onReadBuffered(); }))
    , m_readBuffer(new char[kReadBufferSize])
{
}

Http1Engine::~Http1Engine()
{
    m_resolverInbox->close(); // a lookup still running answers no one
    m_exchanges.clear(); // their connections close
    m_idle.clear();
}

std::shared_ptr<const Http1Target> Http1Engine::targetFor(const UpstreamRequest &request,
                                                                  const TransferOptions &options)
{
    if (!options.proxyUrl.isEmpty() || environmentHasProxy(isHttps(request.url)))
        return nullptr;
    // Nearly always the URL and trust of one of the last few requests: remembered per thread.
    struct Recent {
        QUrl url;
        QString caBundle;
        bool verify = true;
        std::shared_ptr<const Http1Target> target;
    };
    thread_local std::array<Recent, 4> recent;
    thread_local std::size_t next = 0;
    for (const Recent &seen : recent)
        if (!seen.url.isEmpty() && seen.url == request.url && seen.verify == options.verifyTls &&
            seen.caBundle == options.caBundlePath)
            return seen.target;
    auto target = makeTarget(request.url, options);
    recent[next] = {request.url, options.caBundlePath, options.verifyTls, target};
    next = (next + 1) % recent.size();
    return target;
}

void Http1Engine::start(UpstreamTransfer &transfer, std::shared_ptr<const Http1Target> target)
{
    auto owned = std::make_unique<Exchange>();
    Exchange &exchange = *owned;
    exchange.id = transfer.id();
    exchange.transfer = &transfer;
    exchange.target = std::move(target);
    exchange.toHead = sameFieldName(transfer.request().method, "HEAD");
    if (transfer.options().totalTimeout.count() > 0)
        exchange.finishBy = m_clock.now() + transfer.options().totalTimeout;
    m_exchanges.emplace(exchange.id, std::move(owned));

    QString error;
    if (!buildHead(transfer.request(), *exchange.target, &exchange.head, &error)) {
        end(exchange, TransferError::Other, error);
    } else if (ConnectionPtr idle = takeIdle(exchange.target->endpoint)) {
        exchange.connection = std::move(idle);
        exchange.connection->transferId = exchange.id;
        exchange.mayRetry = true;
        scheduleDeadline(exchange);
        sendRequest(exchange);
    } else {
        connectNext(exchange, {});
    }
    if (!m_ended.empty() && !m_endLater->isActive())
        m_endLater->start(Clock::Duration::zero());
}

void Http1Engine::connectNext(Exchange &exchange, const QString &previousError)
{
    if (!haveAddresses(exchange))
        return;
    QString error = previousError;
    const auto &addresses = exchange.addresses();
    while (exchange.nextAddress < addresses.size()) {
        auto connection = std::make_shared<Http1Connection>(static_cast<Owner &>(*this), exchange.target->endpoint);
        if (connection->open(addresses[exchange.nextAddress++], &error)) {
            connection->transferId = exchange.id;
            exchange.connection = std::move(connection);
            ++exchange.connectionsOpened;
            if (exchange.connectBy == Clock::TimePoint::max())
                exchange.connectBy = m_clock.now() + exchange.transfer->options().connectTimeout;
            scheduleDeadline(exchange);
            return;
        }
    }
    end(exchange, TransferError::ConnectFailed, QStringLiteral("Could not connect to the upstream: %1").arg(error));
}

bool Http1Engine::haveAddresses(Exchange &exchange)
{
    if (exchange.target->hostName.isEmpty() || !exchange.resolved.empty())
        return true;
    if (!m_resolver)
        m_resolver = &HostResolver::shared();
    const quint64 id = exchange.id;
    const auto answer = m_resolver->resolve(exchange.target->hostName, m_resolverInbox,
                                            [this, id](const HostResolver::Answer &known) { onResolved(id, known); });
    if (answer)
        return takeAnswer(exchange, *answer);
    // Looking the name up is part of connecting, and shares its deadline (as with libcurl).
    exchange.resolving = true;
    if (exchange.connectBy == Clock::TimePoint::max())
        exchange.connectBy = m_clock.now() + exchange.transfer->options().connectTimeout;
    scheduleDeadline(exchange);
    return false;
}

bool Http1Engine::takeAnswer(Exchange &exchange, const HostResolver::Answer &answer)
{
    exchange.resolving = false;
    if (answer.addresses.empty()) {
        const QString why = answer.error.isEmpty() ? exchange.target->hostName : answer.error;
        if (answer.nameUnknown)
            end(exchange, TransferError::NameNotResolved, QStringLiteral("Could not resolve the upstream's host name: %1").arg(why));
        else
            end(exchange, TransferError::ConnectFailed, QStringLiteral("Could not connect to the upstream: %1").arg(why));
        return false;
    }
    exchange.resolved.clear();
    for (const QHostAddress &address : answer.addresses)
        exchange.resolved.push_back(socketAddress(address, exchange.target->port));
    exchange.nextAddress = 0;
    return true;
}

void Http1Engine::onResolved(quint64 transferId, const HostResolver::Answer &answer)
{
    const auto it = m_exchanges.find(transferId);
    if (it == m_exchanges.end() || !it->second->resolving)
        return; // aborted, or timed out meanwhile
    Exchange &exchange = *it->second;
    if (takeAnswer(exchange, answer))
        connectNext(exchange, {});
    runAfterEvents();
}

void Http1Engine::connected(Exchange &exchange)
{
    if (!exchange.target->tls) {
        scheduleDeadline(exchange); // the connect deadline is over
        sendRequest(exchange);
        return;
    }
    const Http1Target &target = *exchange.target;
    QString error;
    ssl_ctx_st *context = m_tlsContexts.contextFor(target.caBundle, target.peer.verify, &error);
    if (!context) {
        end(exchange, TransferError::TlsFailed,
            QStringLiteral("TLS with the upstream failed: %1; check the provider's CA bundle").arg(error));
        return;
    }
    if (!exchange.connection->startTls(context, target.peer, m_tlsContexts.ticketFor(target.endpoint), &error)) {
        end(exchange, TransferError::TlsFailed, QStringLiteral("TLS with the upstream failed: %1").arg(error));
        return;
    }
    continueHandshake(exchange);
}

void Http1Engine::continueHandshake(Exchange &exchange)
{
    QString error;
    switch (exchange.connection->handshake(&error)) {
    case Http1Connection::Handshake::Pending:
        return;
    case Http1Connection::Handshake::Done:
        ++exchange.tlsHandshakes;
        if (exchange.connection->tls()->resumed())
            ++exchange.tlsResumptions;
        scheduleDeadline(exchange); // the connect deadline is over
        sendRequest(exchange);
        return;
    case Http1Connection::Handshake::Failed:
        // A TLS session the server would not take back is not offered again.
        m_tlsContexts.forget(exchange.target->endpoint);
        end(exchange, TransferError::TlsFailed, QStringLiteral("TLS with the upstream failed: %1").arg(error));
        return;
    }
}

void Http1Engine::sendRequest(Exchange &exchange)
{
    Http1Connection &connection = *exchange.connection;
    connection.parser().expectResponse(exchange.toHead);
    if (exchange.transfer->paused)
        connection.setReading(false);
    QString error;
    if (connection.send(exchange.head, exchange.transfer->request().body, &error))
        return;
    if (exchange.mayRetry)
        retryOnFreshConnection(exchange);
    else
        end(exchange, TransferError::Reset, QStringLiteral("The upstream connection broke: %1").arg(error));
}

void Http1Engine::retryOnFreshConnection(Exchange &exchange)
{
    exchange.mayRetry = false;
    exchange.connection.reset(); // closes it
    exchange.nextAddress = 0;
    connectNext(exchange, {});
}

Http1Engine::Exchange *Http1Engine::exchangeOf(const Http1Connection &connection)
{
    const auto it = m_exchanges.find(connection.transferId);
    if (it == m_exchanges.end() || it->second->connection.get() != &connection)
        return nullptr;
    return it->second.get();
}

void Http1Engine::connectionWritable(Http1Connection &connection)
{
    Exchange *exchange = exchangeOf(connection);
    if (!exchange)
        return;
    const ConnectionPtr hold = exchange->connection; // an end below may let go of it
    if (connection.tcpConnecting()) {
        const QString error = connection.finishConnect();
        if (!error.isEmpty()) {
            exchange->connection.reset();
            connectNext(*exchange, QStringLiteral("Failed to connect to %1: %2").arg(exchange->addresses()[exchange->nextAddress - 1].text, error));
        } else {
            connected(*exchange);
        }
    } else if (connection.isConnecting()) {
        continueHandshake(*exchange);
    } else {
        QString error;
        if (!connection.flush(&error)) {
            if (exchange->mayRetry)
                retryOnFreshConnection(*exchange);
            else
                end(*exchange, TransferError::Reset, QStringLiteral("The upstream connection broke: %1").arg(error));
        }
    }
    runAfterEvents();
}

void Http1Engine::connectionReadable(Http1Connection &connection)
{
    char *buffer = m_readBuffer.get();
    if (connection.transferId == 0) {
        // An idle connection the server closed (or that says what nobody asked), unless that was
        // TLS's own business, such as a session ticket after the answer.
        if (!connection.idleReadableIsHousekeeping(buffer, kReadBufferSize))
            dropIdle(connection);
        return;
    }
    Exchange *exchange = exchangeOf(connection);
    if (!exchange)
        return;
    const ConnectionPtr hold = exchange->connection; // an end below may let go of it
    if (connection.isConnecting()) {
        continueHandshake(*exchange);
        runAfterEvents();
        return;
    }
    for (int reads = 0; reads < kReadsPerEvent; ++reads) {
        std::size_t size = 0;
        QString error;
        const auto received = connection.receive(buffer, kReadBufferSize, &size, &error);
        if (received == Http1Connection::Receive::WouldBlock)
            break;
        if (received == Http1Connection::Receive::Data) {
            exchange->mayRetry = false;
            std::size_t consumed = 0;
            const auto parsed = connection.parser().feed(buffer, size, *exchange, &consumed);
            if (parsed == HttpResponseParser::Result::NeedMore) {
                if (size < kReadBufferSize)
                    break; // drained; level-triggered epoll says when more comes
                continue;
            }
            if (parsed == HttpResponseParser::Result::Complete)
                complete(*exchange, consumed == size); // bytes past the response: not reusable
            else if (exchange->transfer->tooLarge())
                end(*exchange, TransferError::TooLarge, exchange->transfer->tooLargeMessage());
            else
                end(*exchange, TransferError::Other, connection.parser().errorText());
            break;
        }
        if (exchange->mayRetry) {
            retryOnFreshConnection(*exchange); // the server had closed the kept-alive connection
            break;
        }
        if (received == Http1Connection::Receive::EndOfStream) {
            if (connection.parser().finish(*exchange) == HttpResponseParser::Result::Complete)
                complete(*exchange, false);
            else
                end(*exchange, TransferError::Reset,
                    QStringLiteral("The upstream connection broke: %1").arg(connection.parser().errorText()));
        } else {
            end(*exchange, TransferError::Reset, QStringLiteral("The upstream connection broke: %1").arg(error));
        }
        break;
    }
    if (connection.hasBufferedInput() && exchangeOf(connection))
        readBufferedLater(connection); // the reads per event ran out with records still decrypted
    runAfterEvents();
}

void Http1Engine::readBufferedLater(const Http1Connection &connection)
{
    m_readBuffered.push_back(connection.transferId);
    if (!m_readBufferedTimer->isActive())
        m_readBufferedTimer->start(Clock::Duration::zero());
}

void Http1Engine::onReadBuffered()
{
    for (const quint64 id : std::exchange(m_readBuffered, {})) {
        const auto it = m_exchanges.find(id);
        if (it == m_exchanges.end() || !it->second->connection || it->second->transfer->paused)
            continue;
        const ConnectionPtr connection = it->second->connection;
        if (connection->hasBufferedInput())
            connectionReadable(*connection);
    }
}

void Http1Engine::complete(Exchange &exchange, bool connectionReusable)
{
    ConnectionPtr connection = std::move(exchange.connection);
    connection->transferId = 0;
    if (connection->isTls() && !connection->sessionRemembered) {
        // By the end of an answer the server's session tickets have arrived (TLS 1.3 sends them
        // after the handshake): the next new connection resumes.
            if (ssl_session_st *session = connection->tls()->resumableSession()) {
            m_tlsContexts.remember(exchange.target->endpoint, session);
            connection->sessionRemembered = true;
        }
    }
    if (connectionReusable && connection->parser().keepAlive())
        keepIdle(std::move(connection));
    end(exchange, TransferError::None, {});
}

void Http1Engine::end(Exchange &exchange, TransferError error, const QString &message)
{
    if (exchange.hasDeadline)
        m_deadlines.erase(exchange.deadline);
    m_ended.push_back({exchange.id, error, message, exchange.connectionsOpened, exchange.tlsHandshakes,
                       exchange.tlsResumptions});
    m_exchanges.erase(exchange.id); // its connection, if it still has one, closes
}

void Http1Engine::abort(quint64 transferId)
{
    const auto it = m_exchanges.find(transferId);
    if (it == m_exchanges.end())
        return;
    if (it->second->hasDeadline)
        m_deadlines.erase(it->second->deadline);
    m_exchanges.erase(it); // mid-exchange a connection cannot carry another request: it closes
}

void Http1Engine::pause(quint64 transferId)
{
    const auto it = m_exchanges.find(transferId);
    if (it != m_exchanges.end() && it->second->connection)
        it->second->connection->setReading(false);
}

void Http1Engine::resume(quint64 transferId)
{
    const auto it = m_exchanges.find(transferId);
    if (it == m_exchanges.end() || !it->second->connection)
        return;
    it->second->connection->setReading(true);
    if (it->second->connection->hasBufferedInput())
        readBufferedLater(*it->second->connection);
}

Http1Engine::ConnectionPtr Http1Engine::takeIdle(const QByteArray &endpoint)
{
    const auto it = m_idle.find(endpoint);
    if (it == m_idle.end() || it->second.empty())
        return nullptr;
    // The most recently used one: the least likely to have been closed by the server's idle timeout.
    ConnectionPtr connection = std::move(it->second.back());
    it->second.pop_back();
    --m_idleCount;
    return connection;
}

void Http1Engine::keepIdle(ConnectionPtr connection)
{
    if (m_idleCount >= kMaxIdleConnections)
        return; // closes
    connection->setReading(true); // an idle connection that becomes readable was closed by the server
    m_idle[connection->endpoint()].push_back(std::move(connection));
    ++m_idleCount;
}

void Http1Engine::dropIdle(Http1Connection &connection)
{
    const auto it = m_idle.find(connection.endpoint());
    if (it == m_idle.end())
        return;
    auto &pool = it->second;
    const auto found = std::find_if(pool.begin(), pool.end(), [&](const ConnectionPtr &c) { return c.get() == &connection; });
    if (found == pool.end())
        return;
    pool.erase(found); // closes it
    --m_idleCount;
}

void Http1Engine::closeIdleConnections()
{
    m_idle.clear();
    m_idleCount = 0;
}

void Http1Engine::scheduleDeadline(Exchange &exchange)
{
    if (exchange.hasDeadline) {
        m_deadlines.erase(exchange.deadline);
        exchange.hasDeadline = false;
    }
    const bool connecting = exchange.connection ? exchange.connection->isConnecting() : exchange.resolving;
    const Clock::TimePoint due = std::min(connecting ? exchange.connectBy : Clock::TimePoint::max(), exchange.finishBy);
    if (due == Clock::TimePoint::max())
        return;
    exchange.deadline = m_deadlines.emplace(due, exchange.id);
    exchange.hasDeadline = true;
    // One timer for all: re-armed only when this deadline comes before the one it waits for.
    if (!m_deadlineTimer->isActive() || due < m_deadlineArmedFor) {
        m_deadlineTimer->start(due - m_clock.now());
        m_deadlineArmedFor = due;
    }
}

void Http1Engine::onDeadline()
{
    const Clock::TimePoint now = m_clock.now();
    while (!m_deadlines.empty() && m_deadlines.begin()->first <= now) {
        const quint64 id = m_deadlines.begin()->second;
        m_deadlines.erase(m_deadlines.begin());
        const auto it = m_exchanges.find(id);
        if (it == m_exchanges.end())
            continue;
        Exchange &exchange = *it->second;
        exchange.hasDeadline = false;
        const TransferOptions &options = exchange.transfer->options();
        if (!exchange.connection || exchange.connection->isConnecting()) {
            const auto budget = exchange.connectBy <= exchange.finishBy ? options.connectTimeout : options.totalTimeout;
            if (exchange.resolving)
                end(exchange, TransferError::ConnectFailed, QStringLiteral("Could not connect to the upstream: Resolving %1 timed out after %2 ms")
                                                                .arg(exchange.target->hostName)
                                                                .arg(millis(budget)));
            else
                end(exchange, TransferError::ConnectFailed,
                    QStringLiteral("Could not connect to the upstream: Connection timeout after %1 ms").arg(millis(budget)));
        } else {
            end(exchange, TransferError::Timeout,
                QStringLiteral("The upstream did not finish in time: Operation timeout after %1 ms with %2 bytes received")
                    .arg(millis(options.totalTimeout))
                    .arg(exchange.transfer->bytesReceived()));
        }
    }
    if (!m_deadlines.empty()) {
        const Clock::TimePoint due = m_deadlines.begin()->first;
        m_deadlineTimer->start(due - now);
        m_deadlineArmedFor = due;
    }
    runAfterEvents();
}

void Http1Engine::runAfterEvents()
{
    if (m_afterEvents)
        m_afterEvents();
}

} // namespace sb
