#pragma once

#include <QByteArray>
#include <QString>
#include <QtGlobal>

namespace sb {

// JSON written by hand into UTF-8 bytes, for the hot paths that build small documents without a
// QJsonObject (the answer's "model", the history's attempts column).

// `text` as a JSON string literal, quotes included, as QJsonDocument writes one.
void appendJsonString(QByteArray *out, const QString &text);

// `value` in decimal, without a temporary string.
void appendJsonNumber(QByteArray *out, qint64 value);

} // namespace sb
