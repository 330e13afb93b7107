#include "common/SecretMask.h"

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

} // namespace sb
