#pragma once

#include <QByteArray>

namespace sb::test {

// Raw HTTP/1.1 on a plain socket, for what a client library would not send as written: odd paths
// (no normalisation), a client that stops reading, or one that leaves in the middle of a stream.

// A request as bytes. A null `body` sends no body headers; any other (even empty) is sent as JSON
// with its Content-Length. `extraHeaders` are whole lines, each ending in "\r\n".
QByteArray rawRequest(const QByteArray &method, const QByteArray &target, const QByteArray &body = {},
                      const QByteArray &extraHeaders = {});

// Sends `bytes` on a new connection to 127.0.0.1:`port` and reads until the server closes it (or
// is silent for 5 s); empty when nothing could connect.
QByteArray exchangeUntilClose(quint16 port, const QByteArray &bytes);

} // namespace sb::test
