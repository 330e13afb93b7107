#include "remote/RemoteAddress.h"

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
    const QString text = input.trimmed();
    if (text.contains(QStringLiteral("://")))
        return refuse(error, QStringLiteral("Give the instance without http:// or a path. ") + usage);
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
        if (colon < 0)
            return refuse(error, QStringLiteral("\"%1\" has no port. ").arg(input) + usage);
        hostText = text.left(colon);
        portText = text.mid(colon + 1);
        if (hostText.contains(u':'))
            return refuse(error, QStringLiteral("Put an IPv6 address in brackets, e.g. [fd00::5]:8400."));
    }
    const QString problem = hostProblem(hostText);
    if (!problem.isEmpty())
        return refuse(error, problem);
    bool ok = false;
    const uint port = portText.toUInt(&ok);
    if (!ok || port == 0 || port > 65535)
        return refuse(error, QStringLiteral("\"%1\" is not a port number (1 to 65535). ").arg(portText) + usage);

    RemoteGateway::Target target;
    target.host = hostText.trimmed();
    target.port = static_cast<quint16>(port);
    return target;
}

} // namespace sb::RemoteAddress
