#include "TestCertificate.h"

#include <QProcess>
#include <QStandardPaths>

namespace sb::test {

bool TestCertificate::run(const QStringList &arguments, QString *why)
{
    const QString openssl = QStandardPaths::findExecutable(QStringLiteral("openssl"));
    if (openssl.isEmpty()) {
        *why = QStringLiteral("openssl is not installed");
        return false;
    }
    QProcess process;
    process.start(openssl, arguments);
    if (!process.waitForFinished(30000) || process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
        *why = QStringLiteral("openssl %1 failed: %2").arg(arguments.value(0), QString::fromLocal8Bit(process.readAllStandardError()));
        return false;
    }
    return true;
}

bool TestCertificate::make(QString *why, const QString &commonName, const QString &subjectAltNames)
{
    if (!m_dir.isValid()) {
        *why = QStringLiteral("no temporary directory");
        return false;
    }
    return run({QStringLiteral("req"), QStringLiteral("-x509"), QStringLiteral("-newkey"), QStringLiteral("ec"),
                QStringLiteral("-pkeyopt"), QStringLiteral("ec_paramgen_curve:prime256v1"), QStringLiteral("-nodes"),
                QStringLiteral("-keyout"), keyFile(), QStringLiteral("-out"), certificateFile(), QStringLiteral("-days"),
                QStringLiteral("1"), QStringLiteral("-subj"), QStringLiteral("/CN=") + commonName, QStringLiteral("-addext"),
                QStringLiteral("subjectAltName=") + subjectAltNames},
               why);
}

bool TestCertificate::encryptKey(QString *why)
{
    return run({QStringLiteral("pkey"), QStringLiteral("-in"), keyFile(), QStringLiteral("-out"), encryptedKeyFile(),
                QStringLiteral("-aes256"), QStringLiteral("-passout"), QStringLiteral("pass:secret")},
               why);
}

} // namespace sb::test
