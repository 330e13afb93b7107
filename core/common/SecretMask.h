#pragma once

#include <QString>

namespace sb {

// The only form in which an API key may be shown or logged: a short prefix and the last four
// characters ("sk-…a1F3"), enough to tell keys apart, never enough to use one.
QString maskSecret(const QString &secret);

} // namespace sb
