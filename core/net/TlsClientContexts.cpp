#include "net/TlsClientContexts.h"

#include "net/TlsTrust.h"

#include <openssl/ssl.h>

#include <mutex>

namespace sb {

namespace {

// Servers a worker keeps resumption tickets for, at most: more than any configuration names, few enough that a
// misconfigured loop over many hosts cannot grow it.
constexpr std::size_t kMaxTickets = 256;

// Keeps `ticket` (its reference now owned by `tickets`) as the one for `endpoint`.
void keep(std::map<QByteArray, SSL_SESSION *> &tickets, const QByteArray &endpoint, SSL_SESSION *ticket)
{
    auto it = tickets.find(endpoint);
    if (it != tickets.end()) {
        SSL_SESSION_free(it->second);
        it->second = ticket;
        return;
    }
    if (tickets.size() >= kMaxTickets) {
        for (auto &[key, old] : tickets)
            SSL_SESSION_free(old);
        tickets.clear();
    }
    tickets.emplace(endpoint, ticket);
}

void drop(std::map<QByteArray, SSL_SESSION *> &tickets, const QByteArray &endpoint)
{
    const auto it = tickets.find(endpoint);
    if (it == tickets.end())
        return;
    SSL_SESSION_free(it->second);
    tickets.erase(it);
}

// The resumption tickets the engines of every worker learnt, by endpoint. A worker's first
// connection to a server resumes what another worker learnt instead of doing the full handshake:
// when a failover sends every worker to the fallback at once, each would otherwise pay it, on both
// sides, in the same moment. Engines take and give copies, so a ticket a connection is using, and
// whatever OpenSSL marks on it, stays on one thread; the copies here are used by no connection.
class SharedTickets {
public:
    SSL_SESSION *copyOf(const QByteArray &endpoint)
    {
        std::lock_guard lock(m_mutex);
        const auto it = m_tickets.find(endpoint);
        return it == m_tickets.end() ? nullptr : SSL_SESSION_dup(it->second);
    }

    void publish(const QByteArray &endpoint, const SSL_SESSION *ticket)
    {
        SSL_SESSION *copy = SSL_SESSION_dup(ticket);
        if (!copy)
            return;
        std::lock_guard lock(m_mutex);
        keep(m_tickets, endpoint, copy);
    }

    void withdraw(const QByteArray &endpoint)
    {
        std::lock_guard lock(m_mutex);
        drop(m_tickets, endpoint);
    }

private:
    std::mutex m_mutex;
    std::map<QByteArray, SSL_SESSION *> m_tickets;
};

SharedTickets &sharedTickets()
{
    static SharedTickets *instance = new SharedTickets; // never destroyed: engines may outlive static destructors
    return *instance;
}

SSL_CTX *newContext(bool verify)
{
    SSL_CTX *context = SSL_CTX_new(TLS_client_method());
    if (!context)
        return nullptr;
    SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
    // Renegotiation would make a read wait for the socket to be writable (and a write for it to
    // be readable); no HTTP/1.1 API server needs it. An end without close_notify reads as an end:
    // HTTP's own framing tells a whole response from a cut one, as it does over plain TCP.
    SSL_CTX_set_options(context, SSL_OP_NO_RENEGOTIATION | SSL_OP_IGNORE_UNEXPECTED_EOF);
    // Partial writes carry on from where they stopped; the output buffer may have moved by then.
    SSL_CTX_set_mode(context, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_CTX_set_read_ahead(context, 1);
    SSL_CTX_set_verify(context, verify ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, nullptr);
    // This engine speaks HTTP/1.1 only: a server that offers h2 is told so in the handshake.
    static const unsigned char http11[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
    SSL_CTX_set_alpn_protos(context, http11, sizeof http11);
    // Sessions are kept by the engine per endpoint, not in OpenSSL's own cache keyed by session id.
    SSL_CTX_set_session_cache_mode(context, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
    return context;
}

} // namespace

TlsClientContexts::~TlsClientContexts()
{
    for (auto &[endpoint, ticket] : m_tickets)
        SSL_SESSION_free(ticket);
    for (auto &[key, context] : m_contexts)
        SSL_CTX_free(context);
}

ssl_ctx_st *TlsClientContexts::contextFor(const QByteArray &caBundle, bool verify, QString *error)
{
    const auto key = std::make_pair(verify ? caBundle : QByteArray(), verify);
    auto it = m_contexts.find(key);
    if (it == m_contexts.end()) {
        SSL_CTX *context = newContext(verify);
        if (!context) {
            *error = QStringLiteral("OpenSSL could not make a TLS context");
            return nullptr;
        }
        it = m_contexts.emplace(key, context).first;
    }
    // The store is looked up each time: a bundle file that changed is parsed again once, for all.
    if (verify && !TlsTrust::install(it->second, caBundle, error))
        return nullptr;
    return it->second;
}

ssl_session_st *TlsClientContexts::ticketFor(const QByteArray &endpoint)
{
    const auto it = m_tickets.find(endpoint);
    if (it != m_tickets.end())
        return it->second;
    SSL_SESSION *learnt = sharedTickets().copyOf(endpoint);
    if (learnt)
        keep(m_tickets, endpoint, learnt);
    return learnt;
}

void TlsClientContexts::remember(const QByteArray &endpoint, ssl_session_st *ticket)
{
    keep(m_tickets, endpoint, ticket);
    sharedTickets().publish(endpoint, ticket);
}

void TlsClientContexts::forget(const QByteArray &endpoint)
{
    drop(m_tickets, endpoint);
    sharedTickets().withdraw(endpoint);
}

} // namespace sb
