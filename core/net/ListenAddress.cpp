#include "net/ListenAddress.h"

#include "common/HostPort.h"

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
    hostport::Parts parts; // a bare "PORT" listens on loopback
    switch (hostport::split(text, &parts)) {
    case hostport::Problem::UnclosedBracket:
        return refuse(error, QStringLiteral("\"%1\" is not a valid address. ").arg(input) + usage);
    case hostport::Problem::BareIpv6:
        return refuse(error, QStringLiteral("Put an IPv6 address in brackets, e.g. [::1]:8400."));
    case hostport::Problem::None:
        break;
    }
    const std::optional<quint16> port = hostport::port(parts.port, 0);
    if (!port)
        return refuse(error, QStringLiteral("\"%1\" is not a port number (0 to 65535). ").arg(parts.port) + usage);
    const QString &hostText = parts.host;

    ListenAddress address;
    address.port = *port;
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
