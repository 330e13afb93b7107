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
        // The status when it says something (ERNIE refuses a token inside a 200).
        const QString words = outcome.httpStatus >= 400 ? QStringLiteral("%1 '%2'").arg(outcome.httpStatus).arg(said)
                                                        : QStringLiteral("'%1'").arg(said);
        if (keyCount == 0)
            return QStringLiteral("%1 refused a request without a key (%2): add a key in Providers").arg(providerName, words);
        return QStringLiteral("Every key of %1 was refused (%2): replace the keys in Providers").arg(providerName, words);
    }
    case Misconfiguration::None:
        break;
    }
    return said;
}

} // namespace sb
