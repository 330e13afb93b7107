#pragma once

#include <QDateTime>
#include <QString>
#include <QStringList>

#include <memory>

struct ssl_ctx_st;

namespace sb {

// What a person is shown about the certificate the proxy port presents.
struct TlsCertificateInfo {
    QString subject;       // "CN=gateway.internal"
    QStringList names;     // the subject alternative names: "DNS:gateway.internal", "IP:10.0.0.5"
    QDateTime notBefore;   // UTC
    QDateTime notAfter;    // UTC
    QString sha256;        // "AB:CD:…", the fingerprint a client pins
};

// The certificate chain and private key the proxy port serves HTTPS with: one server SSL_CTX made
// from two PEM files, shared by every worker thread (OpenSSL allows that once it is set up) and
// by every connection accepted while it is the current one. TLS 1.2 and 1.3, ALPN http/1.1,
// resumption by the server's cache and TLS 1.3 tickets, renegotiation refused. The files are
// read once; a renewed certificate is a new context.
class TlsServerContext {
public:
    // Null with the reason when a file is missing or unreadable, the key is encrypted (nothing
    // here could type its passphrase), or the key does not belong to the certificate.
    static std::shared_ptr<const TlsServerContext> load(const QString &certificateFile, const QString &keyFile,
                                                        QString *error);
    ~TlsServerContext();
    TlsServerContext(const TlsServerContext &) = delete;
    TlsServerContext &operator=(const TlsServerContext &) = delete;

    ssl_ctx_st *context() const { return m_context; }
    const TlsCertificateInfo &certificate() const { return m_certificate; }

private:
    TlsServerContext(ssl_ctx_st *context, TlsCertificateInfo certificate);

    ssl_ctx_st *m_context;
    TlsCertificateInfo m_certificate;
};

} // namespace sb
