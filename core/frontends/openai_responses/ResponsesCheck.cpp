#include "frontends/openai_responses/ResponsesCheck.h"

#include <cmath>

namespace sb::responses {

namespace {

// An error quotes at most this much of a client's value: enough to recognise it, never a whole prompt.
constexpr qsizetype ShownValueChars = 60;

// Doubles hold integers exactly up to 2^53; past that "an integer" cannot be told from a fraction.
constexpr double LargestExactInteger = 9007199254740992.0;

QString quotedList(const QStringList &values)
{
    QStringList quoted;
    for (const QString &v : values)
        quoted << QLatin1Char('\'') + v + QLatin1Char('\'');
    if (quoted.size() < 2)
        return quoted.join(QString());
    const QString last = quoted.takeLast();
    return quoted.join(QStringLiteral(", ")) + QStringLiteral(" and ") + last;
}

QString numberText(double d)
{
    return QString::number(d, 'g', 15);
}

} // namespace

QString memberPath(const QString &path, QLatin1String key)
{
    return path.isEmpty() ? QString(key) : path + QLatin1Char('.') + key;
}

QString indexPath(const QString &path, qsizetype i)
{
    return path + QLatin1Char('[') + QString::number(i) + QLatin1Char(']');
}

QString jsonTypeName(const QJsonValue &value)
{
    switch (value.type()) {
    case QJsonValue::Null: return QStringLiteral("null");
    case QJsonValue::Bool: return QStringLiteral("a boolean");
    case QJsonValue::Double: return QStringLiteral("a number");
    case QJsonValue::String: return QStringLiteral("a string");
    case QJsonValue::Array: return QStringLiteral("an array");
    case QJsonValue::Object: return QStringLiteral("an object");
    case QJsonValue::Undefined: break;
    }
    return QStringLiteral("nothing");
}

QString shownValue(const QJsonValue &value)
{
    QString text;
    if (value.isString())
        text = value.toString();
    else if (value.isDouble())
        text = numberText(value.toDouble());
    else if (value.isBool())
        text = value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    else
        text = jsonTypeName(value);
    if (text.size() > ShownValueChars)
        text = text.left(ShownValueChars) + QStringLiteral("…");
    return text;
}

bool Check::fail(const QString &param, const QString &message, const QString &code)
{
    if (!error)
        error = ApiError{400, message, QStringLiteral("invalid_request_error"), param, code};
    return false;
}

bool Check::missing(const QString &param, const QString &hint)
{
    QString message = QStringLiteral("Missing required parameter: '%1'.").arg(param);
    if (!hint.isEmpty())
        message += QLatin1Char(' ') + hint;
    return fail(param, message, QStringLiteral("missing_required_parameter"));
}

bool Check::wrongType(const QString &param, const QJsonValue &got, const QString &expected)
{
    return fail(param,
                QStringLiteral("Invalid type for '%1': expected %2, but got %3 instead.").arg(param, expected, jsonTypeName(got)),
                QStringLiteral("invalid_type"));
}

bool Check::unsupportedValue(const QString &param, const QString &value, const QStringList &supported)
{
    return fail(param, QStringLiteral("Invalid value for '%1': '%2'. Supported values are: %3.")
                           .arg(param, shownValue(value), quotedList(supported)));
}

bool Check::requiredString(const QJsonObject &object, QLatin1String key, const QString &path, QString *out,
                           bool nonEmpty, const QString &hint)
{
    const QJsonValue value = object.value(key);
    const QString where = memberPath(path, key);
    if (!given(value))
        return missing(where, hint);
    if (!value.isString())
        return wrongType(where, value, QStringLiteral("a string"));
    if (nonEmpty && value.toString().isEmpty())
        return fail(where, QStringLiteral("Invalid '%1': empty string. Expected a string with at least 1 character.").arg(where),
                    QStringLiteral("empty_string"));
    *out = value.toString();
    return true;
}

bool Check::optionalString(const QJsonObject &object, QLatin1String key, const QString &path, QString *out)
{
    const QJsonValue value = object.value(key);
    if (!given(value))
        return true;
    if (!value.isString())
        return wrongType(memberPath(path, key), value, QStringLiteral("a string"));
    *out = value.toString();
    return true;
}

bool Check::optionalBool(const QJsonObject &object, QLatin1String key, const QString &path, std::optional<bool> *out)
{
    const QJsonValue value = object.value(key);
    if (!given(value))
        return true;
    if (!value.isBool())
        return wrongType(memberPath(path, key), value, QStringLiteral("a boolean"));
    *out = value.toBool();
    return true;
}

bool Check::optionalNumber(const QJsonObject &object, QLatin1String key, const QString &path, double min, double max,
                           std::optional<double> *out)
{
    const QJsonValue value = object.value(key);
    if (!given(value))
        return true;
    const QString where = memberPath(path, key);
    if (!value.isDouble() || !std::isfinite(value.toDouble()))
        return wrongType(where, value, QStringLiteral("a number"));
    const double d = value.toDouble();
    if (d < min)
        return fail(where, QStringLiteral("Invalid '%1': decimal below minimum value. Expected a value >= %2, but got %3 instead.")
                               .arg(where, numberText(min), numberText(d)),
                    QStringLiteral("decimal_below_min_value"));
    if (d > max)
        return fail(where, QStringLiteral("Invalid '%1': decimal above maximum value. Expected a value <= %2, but got %3 instead.")
                               .arg(where, numberText(max), numberText(d)),
                    QStringLiteral("decimal_above_max_value"));
    *out = d;
    return true;
}

bool Check::optionalInteger(const QJsonObject &object, QLatin1String key, const QString &path, qint64 min, qint64 max,
                            std::optional<qint64> *out)
{
    const QJsonValue value = object.value(key);
    if (!given(value))
        return true;
    const QString where = memberPath(path, key);
    const double d = value.toDouble();
    if (!value.isDouble() || !std::isfinite(d) || d != std::trunc(d) || std::fabs(d) > LargestExactInteger)
        return wrongType(where, value, QStringLiteral("an integer"));
    const auto n = static_cast<qint64>(d);
    if (n < min)
        return fail(where, QStringLiteral("Invalid '%1': integer below minimum value. Expected a value >= %2, but got %3 instead.")
                               .arg(where).arg(min).arg(n),
                    QStringLiteral("integer_below_min_value"));
    if (n > max)
        return fail(where, QStringLiteral("Invalid '%1': integer above maximum value. Expected a value <= %2, but got %3 instead.")
                               .arg(where).arg(max).arg(n),
                    QStringLiteral("integer_above_max_value"));
    *out = n;
    return true;
}

bool Check::optionalEnum(const QJsonObject &object, QLatin1String key, const QString &path, const QStringList &supported,
                         QString *out)
{
    QString value;
    if (!optionalString(object, key, path, &value))
        return false;
    if (!given(object.value(key)))
        return true;
    if (!supported.contains(value))
        return unsupportedValue(memberPath(path, key), value, supported);
    *out = value;
    return true;
}

void noteDropped(QStringList *dropped, const QString &what)
{
    if (dropped && !dropped->contains(what))
        dropped->append(what);
}

} // namespace sb::responses
