#include "common/HostPort.h"

namespace sb::hostport {

Problem split(const QString &text, Parts *parts)
{
    if (text.startsWith(u'[')) {
        const qsizetype close = text.indexOf(QStringLiteral("]:"));
        if (close < 0)
            return Problem::UnclosedBracket;
        parts->host = text.mid(1, close - 1);
        parts->port = text.mid(close + 2);
        parts->hasHost = true;
        return Problem::None;
    }
    const qsizetype colon = text.lastIndexOf(u':');
    if (colon < 0) {
        parts->host.clear();
        parts->port = text;
        parts->hasHost = false;
        return Problem::None;
    }
    parts->host = text.left(colon);
    parts->port = text.mid(colon + 1);
    parts->hasHost = true;
    return parts->host.contains(u':') ? Problem::BareIpv6 : Problem::None;
}

std::optional<quint16> port(const QString &text, quint16 lowest)
{
    bool ok = false;
    const uint value = text.toUInt(&ok);
    if (!ok || value < lowest || value > 65535)
        return std::nullopt;
    return static_cast<quint16>(value);
}

} // namespace sb::hostport
