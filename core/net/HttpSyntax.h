#pragma once

#include <QByteArray>
#include <QByteArrayView>

#include <cstddef>

namespace sb {

// Pieces of HTTP/1.1 syntax both directions need: the local server reading requests, the
// Http1Engine writing requests and reading responses.

// RFC 9110 token (a method or a field name): one or more tchar. llhttp 8.1 lets a space inside a
// field name through, which proxies downstream may read differently (a smuggling vector).
bool isHttpToken(QByteArrayView text);

// RFC 9112 3.2: the value of a Host field is `uri-host [ ":" port ]` (RFC 3986), possibly empty.
// What else arrives there (a path, a userinfo, a space, a second host after a comma) is a request
// that proxies and virtual hosts downstream may each read differently, so it is refused.
bool isValidHostValue(QByteArrayView value);

// A request target in origin form made only of RFC 3986's pchar, '/' and '?' (a path and a query,
// no fragment): the targets the server's one-pass request reading takes; llhttp reads the rest.
bool isPlainOriginForm(QByteArrayView target);

} // namespace sb
