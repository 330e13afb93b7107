#include "routing/MisconfigurationReason.h"

namespace sb {

QString misconfigurationReason(const Outcome &outcome, Misconfiguration cause, const QString &providerName, int keyCount)
{
    QString said = outcome.message.simplified(); // never a key: Outcome::message is kept free of them
    if (said.size() > 160)
        said = said.left(159) + QChar(0x2026);
    switch (cause) {
    case Misconfiguration::EndpointNotFound:
        return QStringLiteral("Check the base URL of provider %1: %2 answered %3")
            .arg(providerName, outcome.endpoint.isEmpty() ? QStringLiteral("the request") : outcome.endpoint, said);
    case Misconfiguration::NameNotResolved:
        return QStringLiteral("Check the base URL (and egress proxy) of provider %1: its host name does not resolve (%2)")
            .arg(providerName, said);
    case Misconfiguration::TlsFailed:
        return QStringLiteral("TLS failed with provider %1 (%2): check the base URL's scheme and port, or the CA bundle")
            .arg(providerName, said);
    case Misconfiguration::KeysRefused: {
        const QString status = outcome.httpStatus > 0 ? QString::number(outcome.httpStatus) : QStringLiteral("refused");
        if (keyCount == 0)
            return QStringLiteral("%1 refused a request without a key (%2 '%3'): add a key in Providers")
                .arg(providerName, status, said);
        return QStringLiteral("Every key of %1 was refused (%2 '%3'): replace the keys in Providers").arg(providerName, status, said);
    }
    case Misconfiguration::None:
        break;
    }
    return said;
}

} // namespace sb
