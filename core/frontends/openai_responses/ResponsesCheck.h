#pragma once

#include "frontends/ApiError.h"

#include <QJsonObject>
#include <QJsonValue>
#include <QLatin1String>
#include <QString>
#include <QStringList>

#include <initializer_list>
#include <optional>

namespace sb::responses {

// The checks shared by the parts of the Responses translation (top level, items, tools). Each fails
// with OpenAI's 400 in OpenAI's words, `param` naming the field the way OpenAI does
// (input[2].content[0].type, text.format.schema); the first failure is the one kept, since a client
// fixes one thing at a time and OpenAI reports one.

// "path.key", or "key" at the top level.
QString memberPath(const QString &path, QLatin1String key);
// "path[i]".
QString indexPath(const QString &path, qsizetype i);

// Present with a value: JSON's null counts as absent, as OpenAI reads optional fields.
inline bool given(const QJsonValue &value) { return !value.isUndefined() && !value.isNull(); }

// Names a value's JSON type for an error ("a string", "an object", …).
QString jsonTypeName(const QJsonValue &value);

// A value's short form for an error, a long string cut.
QString shownValue(const QJsonValue &value);

class Check {
public:
    std::optional<ApiError> error;

    bool ok() const { return !error; }

    // Always returns false, so that a check reads `return check.fail(...)`.
    bool fail(const QString &param, const QString &message, const QString &code = QStringLiteral("invalid_value"));
    // "Missing required parameter: 'param'." and what to send.
    bool missing(const QString &param, const QString &hint = QString());
    // "Invalid type for 'param': expected a string, but got a number instead."
    bool wrongType(const QString &param, const QJsonValue &got, const QString &expected);
    // "Invalid value: 'x'. Supported values are: 'a', 'b' and 'c'."
    bool unsupportedValue(const QString &param, const QString &value, const QStringList &supported);

    // object[key] must be a string (non-empty when asked); absent is an error.
    bool requiredString(const QJsonObject &object, QLatin1String key, const QString &path, QString *out,
                        bool nonEmpty = false, const QString &hint = QString());
    // object[key] may be absent or null, otherwise a string; *out keeps its value when absent.
    bool optionalString(const QJsonObject &object, QLatin1String key, const QString &path, QString *out);
    // The same for a boolean.
    bool optionalBool(const QJsonObject &object, QLatin1String key, const QString &path, std::optional<bool> *out);
    // A number within [min, max], absent or null allowed.
    bool optionalNumber(const QJsonObject &object, QLatin1String key, const QString &path, double min, double max,
                        std::optional<double> *out);
    // An integer within [min, max], absent or null allowed.
    bool optionalInteger(const QJsonObject &object, QLatin1String key, const QString &path, qint64 min, qint64 max,
                         std::optional<qint64> *out);
    // A string out of `supported`, absent or null allowed.
    bool optionalEnum(const QJsonObject &object, QLatin1String key, const QString &path, const QStringList &supported,
                      QString *out);
};

// A list of what a translation left out, each named once (for the request log).
void noteDropped(QStringList *dropped, const QString &what);

} // namespace sb::responses
