#include "net/HttpSyntax.h"

#include <array>

namespace sb {

namespace {

// Every byte of a class as a table, looked up once a byte: these run over each field of every
// request and response, where a search of the punctuation for each byte was ~100 instructions a name.
using ByteClass = std::array<bool, 256>;

constexpr ByteClass byteClass(const char *punctuation)
{
    ByteClass in{};
    for (int c = '0'; c <= '9'; ++c)
        in[std::size_t(c)] = true;
    for (int c = 'a'; c <= 'z'; ++c)
        in[std::size_t(c)] = in[std::size_t(c - 'a' + 'A')] = true;
    for (const char *p = punctuation; *p; ++p)
        in[static_cast<unsigned char>(*p)] = true;
    return in;
}

// RFC 9110 tchar.
constexpr ByteClass kTokenBytes = byteClass("!#$%&'*+-.^_`|~");
// reg-name / IPv4 / "[" IPv6 "]", then an optional ":" port: unreserved, pct-encoded and
// sub-delims except ",", which would make one field read as a list of hosts.
constexpr ByteClass kHostBytes = byteClass("-._~%!$&'()*+;=:[]");
// pchar (unreserved, pct-encoded, sub-delims, ":" and "@"), "/" and "?".
constexpr ByteClass kOriginFormBytes = byteClass("-._~%!$&'()*+,;=:@/?");

bool allIn(const ByteClass &allowed, QByteArrayView text)
{
    for (const char c : text)
        if (!allowed[static_cast<unsigned char>(c)])
            return false;
    return true;
}

} // namespace

bool isHttpToken(QByteArrayView text)
{
    return !text.isEmpty() && allIn(kTokenBytes, text);
}

bool isValidHostValue(QByteArrayView value)
{
    return allIn(kHostBytes, value);
}

bool isPlainOriginForm(QByteArrayView target)
{
    return !target.isEmpty() && target.front() == '/' && allIn(kOriginFormBytes, target);
}

} // namespace sb
