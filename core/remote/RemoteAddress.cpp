#include "remote/RemoteAddress.h"

#include "common/HostPort.h"

#include <QHostAddress>
#include <QRegularExpression>

namespace sb::RemoteAddress {

namespace {

const QString usage = QStringLiteral("Give the instance as HOST:PORT, e.g. 10.0.0.5:8400.");

std::optional<RemoteGateway::Target> refuse(QString *error, const QString &message)
{
    if (error)
        *error = message;
    return std::nullopt;
}

} // namespace

QString hostProblem(const QString &input)
{
    const QString host = input.trimmed();
    if (host.isEmpty())
        return QStringLiteral("Give the host of the running instance, e.g. 10.0.0.5 or switchboard.internal.");
    if (QHostAddress().setAddress(host))
        return {};
    // Letters, digits, hyphens and dots, each label 1–63 characters: what a resolver accepts. A URL
    // pasted whole ("http://…/v1") is the usual mistake, so it gets its own sentence.
    if (host.contains(QStringLiteral("://")) || host.contains(u'/'))
        return QStringLiteral("Give only the host, without http:// or a path (e.g. 10.0.0.5).");
    static const QRegularExpression name(QStringLiteral("^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
                                                        "(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\\.?$"));
    if (host.size() > 253 || !name.match(host).hasMatch())
        return QStringLiteral("\"%1\" is neither an IP address nor a host name.").arg(host);
    return {};
}

std::optional<RemoteGateway::Target> parse(const QString &input, QString *error)
{
    QString text = input.trimmed();
    // https:// says the instance is reached over TLS; any other scheme, or a path, is a URL pasted whole.
    const bool tls = text.startsWith(QLatin1String("https://"), Qt::CaseInsensitive);
    if (tls)
        text = text.mid(8);
    if (text.contains(QStringLiteral("://")) || text.contains(u'/'))
        return refuse(error, QStringLiteral("Give the instance without http:// or a path (https:// for TLS). ") + usage);
    hostport::Parts parts;
    switch (hostport::split(text, &parts)) {
    case hostport::Problem::UnclosedBracket:
        return refuse(error, QStringLiteral("\"%1\" is not a valid address. ").arg(input) + usage);
    case hostport::Problem::BareIpv6:
        return refuse(error, QStringLiteral("Put an IPv6 address in brackets, e.g. [fd00::5]:8400."));
    case hostport::Problem::None:
        break;
    }
    if (!parts.hasHost)
        return refuse(error, QStringLiteral("\"%1\" has no port. ").arg(input) + usage);
    const QString problem = hostProblem(parts.host);
    if (!problem.isEmpty())
        return refuse(error, problem);
    // Port 0 means "any free port" when listening, but nothing can be reached there.
    const std::optional<quint16> port = hostport::port(parts.port, 1);
    if (!port)
        return refuse(error, QStringLiteral("\"%1\" is not a port number (1 to 65535). ").arg(parts.port) + usage);

    RemoteGateway::Target target;
    target.host = parts.host.trimmed();
    target.port = *port;
    target.tls = tls;
    return target;
}

} // namespace sb::RemoteAddress
