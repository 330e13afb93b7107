#pragma once

#include <QString>
#include <QTemporaryDir>

namespace sb::test {

// A throwaway self-signed certificate (EC P-256, one day) for 127.0.0.1 only unless it is given
// other names, made by Debian's openssl command in a directory of its own: cert.pem and key.pem.
// Good as its own CA bundle, since it signed itself.
class TestCertificate {
public:
    // False, with the reason, when openssl is missing or failed.
    // `subjectAltNames` in openssl's form: "IP:127.0.0.1", "DNS:localhost".
    bool make(QString *why, const QString &commonName = QStringLiteral("127.0.0.1"),
              const QString &subjectAltNames = QStringLiteral("IP:127.0.0.1"));
    // The same key encrypted with a passphrase, as key-encrypted.pem.
    bool encryptKey(QString *why);

    QString certificateFile() const { return m_dir.filePath(QStringLiteral("cert.pem")); }
    QString keyFile() const { return m_dir.filePath(QStringLiteral("key.pem")); }
    QString encryptedKeyFile() const { return m_dir.filePath(QStringLiteral("key-encrypted.pem")); }
    QString directory() const { return m_dir.path(); }

private:
    bool run(const QStringList &arguments, QString *why);

    QTemporaryDir m_dir;
};

} // namespace sb::test
