#include "common/json/JsonLiterals.h"

#include <QByteArray>
#include <QJsonArray>
#include <QJsonDocument>

#include <charconv>
#include <cmath>

namespace sb::jsonliteral {

bool isString(QByteArrayView value)
{
    return value.size() >= 2 && value.front() == '"';
}

std::optional<QByteArrayView> plainString(QByteArrayView value)
{
    if (!isString(value))
        return std::nullopt;
    const QByteArrayView contents = value.sliced(1, value.size() - 2);
    if (hasEscape(contents))
        return std::nullopt;
    return contents;
}

QString stringValue(QByteArrayView literal)
{
    if (const std::optional<QByteArrayView> plain = plainString(literal))
        return QString::fromUtf8(*plain);
    QByteArray array;
    array.reserve(literal.size() + 2);
    array.append('[').append(literal.data(), literal.size()).append(']');
    return QJsonDocument::fromJson(array).array().at(0).toString();
}

std::optional<qint64> plainInteger(QByteArrayView value)
{
    if (value.isEmpty() || value.size() > 15)
        return std::nullopt;
    for (const char c : value)
        if (c < '0' || c > '9')
            return std::nullopt;
    qint64 n = 0;
    std::from_chars(value.data(), value.data() + value.size(), n); // digits only, at most 15: always fits
    return n;
}

std::optional<int> intValue(QByteArrayView value)
{
    if (value.isEmpty())
        return std::nullopt;
    int n = 0;
    const char *end = value.data() + value.size();
    const auto [stop, error] = std::from_chars(value.data(), end, n);
    if (error != std::errc() || stop != end)
        return std::nullopt;
    return n;
}

std::optional<double> number(QByteArrayView value)
{
    if (value.isEmpty() || !(value.front() == '-' || (value.front() >= '0' && value.front() <= '9')))
        return std::nullopt;
    bool ok = false;
    const double d = value.toDouble(&ok);
    if (!ok || !std::isfinite(d))
        return std::nullopt;
    return d;
}

std::optional<bool> boolean(QByteArrayView value)
{
    if (value == QByteArrayView("true"))
        return true;
    if (value == QByteArrayView("false"))
        return false;
    return std::nullopt;
}

} // namespace sb::jsonliteral
