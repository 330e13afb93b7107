#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QJsonValue>
#include <QString>
#include <QtGlobal>

#include <string>

namespace sb {

// JSON written by hand into UTF-8 bytes, for the hot paths that build small documents without a
// QJsonObject (the answer's "model", the history's attempts column).

// `text` as a JSON string literal, quotes included, as QJsonDocument writes one.
void appendJsonString(QByteArray *out, const QString &text);
// The same into a std::string: for documents built from many small pieces, where each
// QByteArray::append costs a call into Qt's general insert.
void appendJsonString(std::string *out, const QString &text);

// `value` in decimal, without a temporary string.
void appendJsonNumber(QByteArray *out, qint64 value);
void appendJsonNumber(std::string *out, qint64 value);

// Bytes that already are JSON text (a literal, an object written before), as they are.
inline void appendJsonText(std::string *out, QByteArrayView json) { out->append(json.data(), std::size_t(json.size())); }

// Any JSON value as QJsonDocument writes it compactly: scalars by hand, an object or array through
// QJsonDocument. A number with an integral value that fits 64 bits is written as an integer.
void appendJsonValue(QByteArray *out, const QJsonValue &value);
void appendJsonValue(std::string *out, const QJsonValue &value);

} // namespace sb
