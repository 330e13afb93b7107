#pragma once

#include <QString>

namespace sb {

// Empties this thread's OpenSSL error queue into one line, its entries joined by "; " (empty when
// OpenSSL recorded nothing).
QString takeOpenSslErrors();

} // namespace sb
