#include "remote/TrustedCertificates.h"

#include <QCryptographicHash>
#include <QFile>
#include <QFileInfo>

namespace sb {

QString certificateSubject(const QSslCertificate &certificate)
{
    const QString commonName = certificate.subjectInfo(QSslCertificate::CommonName).value(0);
    return commonName.isEmpty() ? certificate.subjectDisplayName() : QStringLiteral("CN=") + commonName;
}

std::optional<TrustedCertificates> TrustedCertificates::read(const QString &path, QString *error)
{
    const QFileInfo info(path);
    QFile file(path);
    if (!info.exists()) {
        *error = QStringLiteral("%1 does not exist.").arg(path);
        return std::nullopt;
    }
    if (!info.isFile() || !file.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("%1 cannot be read: %2").arg(path, info.isFile() ? file.errorString() : QStringLiteral("not a file"));
        return std::nullopt;
    }
    // A CA bundle is a few kilobytes; anything past a megabyte was chosen by mistake.
    const QByteArray pem = file.read(1024 * 1024);
    TrustedCertificates trusted;
    trusted.certificates = QSslCertificate::fromData(pem, QSsl::Pem);
    if (trusted.certificates.isEmpty()) {
        *error = pem.contains("PRIVATE KEY")
                     ? QStringLiteral("%1 holds a private key: choose the instance's certificate (its --tls-cert file), "
                                      "never its key.").arg(path)
                     : QStringLiteral("%1 holds no PEM certificate (-----BEGIN CERTIFICATE-----).").arg(path);
        return std::nullopt;
    }
    return trusted;
}

QString sha256Fingerprint(const QSslCertificate &certificate)
{
    return QString::fromLatin1(certificate.digest(QCryptographicHash::Sha256).toHex(':').toUpper());
}

QString untrustedCertificateAdvice(const QList<QSslError> &errors)
{
    if (errors.isEmpty())
        return {};
    QStringList reasons;
    QSslCertificate presented;
    for (const QSslError &error : errors) {
        reasons << error.errorString();
        if (presented.isNull() && !error.certificate().isNull())
            presented = error.certificate();
    }
    reasons.removeDuplicates();
    QString text = QStringLiteral("the TLS certificate it presented is not trusted here (%1).").arg(reasons.join(QStringLiteral("; ")));
    if (!presented.isNull())
        text += QStringLiteral(" It is %1, SHA-256 %2.").arg(certificateSubject(presented), sha256Fingerprint(presented));
    text += QStringLiteral(" If that instance's certificate is self-signed, give its certificate file as the one to trust "
                           "(Attach dialog, or --attach-ca) once its fingerprint matches the one the instance's "
                           "Settings → Proxy → HTTPS shows.");
    return text;
}

} // namespace sb
