#pragma once

#include <QList>
#include <QSslCertificate>
#include <QSslError>
#include <QString>

#include <optional>

namespace sb {

// Certificates an attached console trusts besides the system's CAs: for an instance that serves a
// self-signed certificate (switchboard --tls-cert on a machine without a CA), that certificate
// itself, or the private CA that signed it. Read from one PEM file the operator chose.
struct TrustedCertificates {
    QList<QSslCertificate> certificates;

    // The certificates in a PEM file; std::nullopt with a sentence saying what is wrong when the
    // file is missing, unreadable or holds no certificate (a private key chosen by mistake).
    static std::optional<TrustedCertificates> read(const QString &path, QString *error);
};

// "CN=gateway.internal", or the whole subject when it has no common name.
QString certificateSubject(const QSslCertificate &certificate);

// "AB:CD:…", the SHA-256 fingerprint as the instance's Settings page and `openssl x509 -fingerprint
// -sha256` print it.
QString sha256Fingerprint(const QSslCertificate &certificate);

// Why a TLS handshake was refused, in a sentence that names the certificate presented and says what
// to do about it ("… if the instance's certificate is self-signed, trust that file").
QString untrustedCertificateAdvice(const QList<QSslError> &errors);

} // namespace sb
