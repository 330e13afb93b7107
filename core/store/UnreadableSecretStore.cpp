#include "store/UnreadableSecretStore.h"

namespace sb {

UnreadableSecretStore::UnreadableSecretStore(QString why)
    : m_why(std::move(why))
{
}

QString UnreadableSecretStore::reason() const
{
    return QStringLiteral("it is kept in the keyring, which cannot be reached (%1)").arg(m_why);
}

bool UnreadableSecretStore::store(const QString &keyId, const QString &secret, QString *error)
{
    Q_UNUSED(secret);
    if (error)
        *error = QStringLiteral("Cannot store %1: this database keeps its keys in the keyring, which cannot be reached (%2).")
                     .arg(keyId, m_why);
    return false;
}

std::optional<QString> UnreadableSecretStore::load(const QString &keyId, QString *error)
{
    Q_UNUSED(keyId); // the caller names the key: provider and label say more than its id
    if (error)
        *error = reason();
    return std::nullopt;
}

bool UnreadableSecretStore::remove(const QString &keyId, QString *error)
{
    if (error)
        *error = QStringLiteral("Cannot remove %1: this database keeps its keys in the keyring, which cannot be reached (%2).")
                     .arg(keyId, m_why);
    return false;
}

} // namespace sb
