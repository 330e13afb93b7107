#include "net/HttpSyntax.h"

#include <cstring>

namespace sb {

bool isHttpToken(QByteArrayView text)
{
    if (text.isEmpty())
        return false;
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                        || (c != 0 && std::strchr("!#$%&'*+-.^_`|~", c) != nullptr);
        if (!ok)
            return false;
    }
    return true;
}

bool isValidHostValue(QByteArrayView value)
{
    // reg-name / IPv4 / "[" IPv6 "]", then an optional ":" port: unreserved, pct-encoded and
    // sub-delims except ",", which would make one field read as a list of hosts.
    for (const char ch : value) {
        const auto c = static_cast<unsigned char>(ch);
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                        || (c != 0 && std::strchr("-._~%!$&'()*+;=:[]", c) != nullptr);
        if (!ok)
            return false;
    }
    return true;
}

} // namespace sb
