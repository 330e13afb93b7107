#pragma once

#include <QHostAddress>

#include <optional>

namespace sb {

// Whether the proxy could listen on a port now, found by listening on it for a moment (the way the
// proxy itself would, so the answer matches; another program may still take it right after). For
// a console whose port is in use at start, to offer the next one that is free.
bool isPortFree(const QHostAddress &host, quint16 port);
// The first free port after `after`, trying up to `tries` of them; none when all are taken.
std::optional<quint16> nextFreePort(const QHostAddress &host, quint16 after, int tries = 100);

} // namespace sb
