#pragma once

#include <QByteArray>
#include <QString>

#include <map>
#include <utility>

struct ssl_ctx_st;
struct ssl_session_st;

namespace sb {

// The OpenSSL client contexts of one Http1Engine (one worker thread), one for each way of trusting
// a server (a CA bundle, the system's, or no verification), and the resumption tickets its servers
// issued (OpenSSL's SSL_SESSION), so that a new connection to a server met before resumes instead of
// doing the full handshake (no certificate chain sent and checked again). A server met first by
// another worker's engine counts as met: the tickets are shared between engines as copies.
//
// A context's certificate store is TlsTrust's, shared by every connection of the process and
// looked at again whenever a new connection starts, so an edited bundle file applies to the next
// connection as it does on the libcurl path. Only ever used from its engine's thread.
class TlsClientContexts {
public:
    TlsClientContexts() = default;
    ~TlsClientContexts();
    TlsClientContexts(const TlsClientContexts &) = delete;
    TlsClientContexts &operator=(const TlsClientContexts &) = delete;

    // The context for a new connection: verified against `caBundle` (a PEM file; empty: the
    // system's CAs) or, with `verify` false, not checked at all. Null, with the reason, when the
    // bundle cannot be read.
    ssl_ctx_st *contextFor(const QByteArray &caBundle, bool verify, QString *error);

    // The ticket to resume a connection to `endpoint` with (connections that share a key are
    // interchangeable), this engine's or a copy of another's, or null; it stays owned here.
    ssl_session_st *ticketFor(const QByteArray &endpoint);
    // Keeps `ticket` (one reference, now owned here) for the next connection to `endpoint`, and
    // a copy for the other engines.
    void remember(const QByteArray &endpoint, ssl_session_st *ticket);
    // A ticket the server would not take back: offered by no engine again.
    void forget(const QByteArray &endpoint);

private:
    std::map<std::pair<QByteArray, bool>, ssl_ctx_st *> m_contexts;
    std::map<QByteArray, ssl_session_st *> m_tickets;
};

} // namespace sb
