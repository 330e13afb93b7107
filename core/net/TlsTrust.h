#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <cstdint>

namespace sb {

// The certificate authorities upstream TLS connections verify against, parsed once per process.
//
// libcurl builds a new OpenSSL context for every new connection and, left to itself, reads the CA
// bundle into it each time: Debian's libcurl names both a CA file and a CA directory, and its own
// CA cache (CURLOPT_CA_CACHE_TIMEOUT) is skipped whenever a directory is set. Parsing the system
// bundle (~145 certificates) costs ~30 ms of CPU with OpenSSL 3, on the worker thread whose event
// loop carries every other request of that worker: 50 clients arriving at once held the first
// requests ~1.1 s while 25 connections per worker parsed it one after another (ARCHITECTURE.md,
// "Threads"). Here each bundle is parsed once into an X509_STORE that every connection of every
// worker shares (OpenSSL locks a store's lookups), and parsed again only when the file changes
// (its size or modification time, looked at once per new connection).
//
// Only where libcurl speaks the OpenSSL this process links (curl_version_info names it); with any
// other TLS backend libcurl loads the bundle itself, with its CA directory left out so that its
// own per-multi cache applies.
class TlsTrust {
public:
    // True when libcurl's TLS backend is the OpenSSL linked here, so the shared stores apply.
    static bool sharedStoresApply();

    // libcurl's CURLOPT_SSL_CTX_FUNCTION work for one new connection: puts the shared store of
    // `caBundle` (a PEM file; empty: the system's, as libcurl would find it) into `sslContext`
    // (an SSL_CTX *). False, with the reason in `error`, when the bundle cannot be read.
    static bool install(void *sslContext, const QByteArray &caBundle, QString *error);

    // Parses these bundles now (empty string: the system's) so the first connection to need one
    // does not: engine start runs it off the workers' threads. Problems are left for install().
    static void preload(const QStringList &caBundles);

    // Bundle files parsed since the process started (tests count them: one per bundle, not one per
    // connection).
    static std::uint64_t bundlesParsed();

    // The CA file and directory libcurl uses when told nothing (CURLINFO_CAINFO / CURLINFO_CAPATH).
    static QByteArray systemCaFile();
    static QByteArray systemCaPath();
};

} // namespace sb
