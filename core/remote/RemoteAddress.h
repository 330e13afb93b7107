#pragma once

#include "remote/RemoteGateway.h"

#include <QString>

#include <optional>

namespace sb {

// Where an attached console looks: `--attach HOST:PORT` on the command line and
// the Attach dialog's host and port fields share these rules, so both refuse the same input with the
// same sentence. Unlike a listen address, a host name is fine here: it is resolved when the first
// poll connects, never while parsing.
namespace RemoteAddress {

// "HOST:PORT", "[IPv6]:PORT", either after "https://" for an instance reached over TLS; the token is never part of it (it comes from the environment or the
// dialog). Port 1–65535: port 0 means "any free port" when listening, but nothing can be reached there.
std::optional<RemoteGateway::Target> parse(const QString &hostPort, QString *error = nullptr);

// An empty string when `host` can be connected to (an IP address or a host name), else what is wrong.
QString hostProblem(const QString &host);

} // namespace RemoteAddress

} // namespace sb
