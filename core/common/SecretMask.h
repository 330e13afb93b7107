#pragma once

#include <QByteArray>
#include <QString>

namespace sb {

// The only form in which an API key may be shown or logged: a short prefix and the last four
// characters ("sk-…a1F3"), enough to tell keys apart, never enough to use one.
QString maskSecret(const QString &secret);

// Whether a token a client sent is the one set, in a time that tells nothing of where they differ
// or how long either is.
bool sameSecret(const QByteArray &given, const QByteArray &expected);

} // namespace sb
