#include "common/SecretMask.h"

#include <QCryptographicHash>

namespace sb {

QString maskSecret(const QString &secret)
{
    if (secret.isEmpty())
        return QString();
    if (secret.size() <= 8)
        return QStringLiteral("…") + QString(qMin<qsizetype>(secret.size(), 4), QLatin1Char('*'));
    // Keep a recognisable vendor prefix such as "sk-" or "sk-ant-" only when it is short.
    qsizetype dash = secret.indexOf(QLatin1Char('-'));
    QString prefix = (dash > 0 && dash <= 3) ? secret.left(dash + 1) : QString();
    return prefix + QStringLiteral("…") + secret.right(4);
}

bool sameSecret(const QByteArray &given, const QByteArray &expected)
{
    // Digests first, so neither the length nor the first differing byte leaks through timing.
    const QByteArray a = QCryptographicHash::hash(given, QCryptographicHash::Sha256);
    const QByteArray b = QCryptographicHash::hash(expected, QCryptographicHash::Sha256);
    unsigned char diff = 0;
    for (qsizetype i = 0; i < a.size(); ++i)
        diff |= static_cast<unsigned char>(a[i] ^ b[i]);
    return diff == 0;
}

} // namespace sb
