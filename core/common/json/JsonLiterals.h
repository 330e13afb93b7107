#pragma once

#include <QByteArrayView>
#include <QString>
#include <QtGlobal>

#include <cstring>
#include <optional>

namespace sb::jsonliteral {

// Whether JSON text holds a backslash (an escape somewhere). memchr: Qt's contains(char) goes
// through its general substring search, ~40 instructions a call before the first byte is looked at.
inline bool hasEscape(QByteArrayView text)
{
    return !text.isEmpty() && std::memchr(text.data(), '\\', std::size_t(text.size())) != nullptr;
}

// Reading single JSON values in text that JsonObjectScan has accepted, for the quick checks that
// take the usual request on its bytes: each answers only when it is sure, and says "not sure"
// (std::nullopt, false) for anything a caller should hand to Qt's parser instead.

bool isString(QByteArrayView value);
// A string literal's contents when it has no escapes.
std::optional<QByteArrayView> plainString(QByteArrayView value);
// A string literal's value, escapes decoded (those through Qt's parser, the rare case).
QString stringValue(QByteArrayView literal);
// A plain decimal integer (no sign, fraction or exponent) of at most 15 digits.
std::optional<qint64> plainInteger(QByteArrayView value);
// A JSON number that is an integer within an int (a minus sign and digits), as
// QByteArrayView::toInt reads one, without the call into Qt; std::nullopt for anything else
// (9.0, 1e2, a string, too large).
std::optional<int> intValue(QByteArrayView value);
// A finite number, as Qt's parser reads it; std::nullopt for anything else.
std::optional<double> number(QByteArrayView value);
// "true" or "false".
std::optional<bool> boolean(QByteArrayView value);

} // namespace sb::jsonliteral
