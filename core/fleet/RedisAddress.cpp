#include "fleet/RedisAddress.h"

#include <QUrl>

namespace sb {

RedisAddress RedisAddress::parse(const QString &url, QString *error)
{
    RedisAddress address;
    const QUrl parsed(url.trimmed(), QUrl::StrictMode);
    if (!parsed.isValid() || parsed.scheme() != QLatin1String("redis") || parsed.host().isEmpty()) {
        if (parsed.scheme() == QLatin1String("rediss"))
            *error = QStringLiteral("rediss:// (Redis over TLS) is not supported; reach Redis on a private network or through a TLS tunnel "
                                    "and give its redis:// address.");
        else
            *error = QStringLiteral("\"%1\" is not a Redis address; write redis://host:port (optionally redis://:password@host:port/db).")
                         .arg(parsed.isValid() ? parsed.toDisplayString(QUrl::RemovePassword) : QStringLiteral("the fleet's Redis URL"));
        return {};
    }
    address.host = parsed.host();
    address.port = parsed.port(6379);
    address.user = parsed.userName(QUrl::FullyDecoded);
    address.password = parsed.password(QUrl::FullyDecoded);
    const QString path = parsed.path();
    if (!path.isEmpty() && path != QLatin1String("/")) {
        bool ok = false;
        address.database = path.mid(1).toInt(&ok);
        if (!ok || address.database < 0) {
            *error = QStringLiteral("The Redis address's path must be a database number (redis://host:port/0), not \"%1\".").arg(path);
            return {};
        }
    }
    if (!address.user.isEmpty() && address.password.isEmpty()) {
        *error = QStringLiteral("The Redis address names the user \"%1\" but no password; write redis://user:password@host:port.").arg(address.user);
        return {};
    }
    error->clear();
    return address;
}

QString RedisAddress::display() const
{
    QString auth;
    if (!password.isEmpty())
        auth = user + QStringLiteral(":…@");
    QString text = QStringLiteral("redis://%1%2:%3").arg(auth, host.contains(QLatin1Char(':')) ? QLatin1Char('[') + host + QLatin1Char(']') : host).arg(port);
    if (database != 0)
        text += QLatin1Char('/') + QString::number(database);
    return text;
}

} // namespace sb
