#include "net/OpenSslErrors.h"

#include <QStringList>

#include <openssl/err.h>

namespace sb {

QString takeOpenSslErrors()
{
    QStringList parts;
    while (const unsigned long code = ERR_get_error()) {
        char text[256];
        ERR_error_string_n(code, text, sizeof text);
        parts << QString::fromLatin1(text);
    }
    return parts.join(QStringLiteral("; "));
}

} // namespace sb
