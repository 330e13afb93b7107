#include "net/ListenAddress.h"

namespace sb {

namespace {

std::optional<ListenAddress> refuse(QString *error, const QString &message)
{
    if (error)
        *error = message;
    return std::nullopt;
}

} // namespace

std::optional<ListenAddress> ListenAddress::parse(const QString &input, QString *error)
{
    const QString text = input.trimmed();
    const QString usage = QStringLiteral("Give the listen address as HOST:PORT, e.g. 127.0.0.1:8400.");
    QString hostText;
    QString portText;
    if (text.startsWith(u'[')) {
        const qsizetype close = text.indexOf(QStringLiteral("]:"));
        if (close < 0)
            return refuse(error, QStringLiteral("\"%1\" is not a valid address. ").arg(input) + usage);
        hostText = text.mid(1, close - 1);
        portText = text.mid(close + 2);
    } else {
        const qsizetype colon = text.lastIndexOf(u':');
        if (colon < 0) {
            portText = text;
        } else {
            hostText = text.left(colon);
            portText = text.mid(colon + 1);
            if (hostText.contains(u':'))
                return refuse(error, QStringLiteral("Put an IPv6 address in brackets, e.g. [::1]:8400."));
        }
    }
    bool ok = false;
    const uint port = portText.toUInt(&ok);
    if (!ok || port > 65535)
        return refuse(error, QStringLiteral("\"%1\" is not a port number (0 to 65535). ").arg(portText) + usage);

    ListenAddress address;
    address.port = static_cast<quint16>(port);
    if (hostText.isEmpty() || hostText.compare(QStringLiteral("localhost"), Qt::CaseInsensitive) == 0) {
        address.host = QHostAddress(QHostAddress::LocalHost);
    } else if (!address.host.setAddress(hostText)) {
        return refuse(error, QStringLiteral("\"%1\" is not an IP address (host names other than localhost are not "
                                            "resolved). ")
                                 .arg(hostText)
                          + usage);
    }
    return address;
}

QString ListenAddress::toString() const
{
    const QString h = host.toString();
    return (host.protocol() == QAbstractSocket::IPv6Protocol ? QStringLiteral("[%1]").arg(h) : h)
           + QStringLiteral(":%1").arg(port);
}

} // namespace sb
