#include "common/json/JsonText.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

namespace sb {

namespace {

char hexDigit(unsigned value) { return "0123456789abcdef"[value & 0xF]; }

// How many more bytes than one `c` takes in a JSON string.
qsizetype escapeExtra(unsigned c)
{
    if (c == '"' || c == '\\')
        return 1;
    if (c >= 0x20)
        return 0;
    return c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t' ? 1 : 5;
}

// Writes `c` escaped as QJsonDocument would; returns the position after it. `c` is a byte of UTF-8
// or an ASCII code unit.
char *writeEscaped(char *at, unsigned c)
{
    if (escapeExtra(c) == 0) {
        *at++ = char(c);
        return at;
    }
    *at++ = '\\';
    switch (c) {
    case '"': *at++ = '"'; break;
    case '\\': *at++ = '\\'; break;
    case '\b': *at++ = 'b'; break;
    case '\f': *at++ = 'f'; break;
    case '\n': *at++ = 'n'; break;
    case '\r': *at++ = 'r'; break;
    case '\t': *at++ = 't'; break;
    default:
        for (const char ch : {'u', '0', '0', hexDigit(c >> 4), hexDigit(c)})
            *at++ = ch;
    }
    return at;
}

// The string literal of `units` sized first and written once: appending byte by byte cost more
// than the history's whole attempts column.
template <typename Out, typename Unit>
void appendEscaped(Out *out, const Unit *units, qsizetype count)
{
    qsizetype length = count + 2;
    for (qsizetype i = 0; i < count; ++i)
        length += escapeExtra(units[i]);
    const auto start = out->size();
    out->resize(start + decltype(start)(length));
    char *at = out->data() + start;
    *at++ = '"';
    for (qsizetype i = 0; i < count; ++i)
        at = writeEscaped(at, units[i]);
    *at = '"';
}

template <typename Out>
void appendStringLiteral(Out *out, const QString &text)
{
    // ASCII (names, ids, outcomes: nearly everything written here) goes from UTF-16 straight to
    // bytes; anything else through UTF-8 first. constData(), never utf16(): for a string whose text
    // is a literal, utf16() copies it into a buffer of its own and swaps that in, a write through a
    // const reference. The engine's configuration is read by every worker without a lock, so two
    // workers writing the same literal-backed model name at once freed each other's copy.
    const auto *units = reinterpret_cast<const char16_t *>(text.constData());
    if (std::all_of(units, units + text.size(), [](char16_t u) { return u < 0x80; })) {
        appendEscaped(out, units, text.size());
        return;
    }
    const QByteArray utf8 = text.toUtf8();
    appendEscaped(out, reinterpret_cast<const unsigned char *>(utf8.constData()), utf8.size());
}

} // namespace

void appendJsonString(QByteArray *out, const QString &text)
{
    appendStringLiteral(out, text);
}

void appendJsonString(std::string *out, const QString &text)
{
    appendStringLiteral(out, text);
}

void appendJsonNumber(QByteArray *out, qint64 value)
{
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
    out->append(digits, end - digits);
}

void appendJsonNumber(std::string *out, qint64 value)
{
    char digits[24];
    out->append(digits, std::to_chars(digits, digits + sizeof digits, value).ptr);
}

namespace {

template <typename Out>
void appendBytes(Out *out, const QByteArray &bytes)
{
    out->append(bytes.constData(), std::size_t(bytes.size()));
}

template <typename Out>
void appendValue(Out *out, const QJsonValue &value)
{
    switch (value.type()) {
    case QJsonValue::Bool:
        out->append(value.toBool() ? "true" : "false");
        return;
    case QJsonValue::Double: {
        constexpr qint64 notIntegral = std::numeric_limits<qint64>::min();
        const qint64 integer = value.toInteger(notIntegral);
        if (integer != notIntegral)
            appendJsonNumber(out, integer);
        else if (std::isfinite(value.toDouble()))
            appendBytes(out, QByteArray::number(value.toDouble(), 'g', QLocale::FloatingPointShortest));
        else
            out->append("null");
        return;
    }
    case QJsonValue::String:
        appendJsonString(out, value.toString());
        return;
    case QJsonValue::Array:
        appendBytes(out, QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact));
        return;
    case QJsonValue::Object:
        appendBytes(out, QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact));
        return;
    case QJsonValue::Null:
    case QJsonValue::Undefined:
        break;
    }
    out->append("null");
}

} // namespace

void appendJsonValue(QByteArray *out, const QJsonValue &value)
{
    appendValue(out, value);
}

void appendJsonValue(std::string *out, const QJsonValue &value)
{
    appendValue(out, value);
}

} // namespace sb
