#pragma once

#include <QString>

#include <optional>

namespace sb::hostport {

// A "HOST:PORT" text taken apart: the listen address (--listen, Settings) and the address of an
// instance to attach to (--attach, the Attach dialog) share these rules and differ only in what
// they accept as a host, so each words its own refusals.
struct Parts {
    QString host;          // without the brackets of an IPv6 address
    QString port;
    bool hasHost = false;  // false for a bare "PORT"
};

enum class Problem {
    None,
    UnclosedBracket, // "[::1" or "[::1]8400"
    BareIpv6,        // "::1:8400": which colon ends the host?
};

// "HOST:PORT" and "[IPv6]:PORT" split at the port's colon; a text with no colon is all port.
Problem split(const QString &text, Parts *parts);

// A port number from `lowest` to 65535, or nothing.
std::optional<quint16> port(const QString &text, quint16 lowest);

} // namespace sb::hostport
