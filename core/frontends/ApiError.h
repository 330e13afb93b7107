#pragma once

#include <QByteArray>
#include <QString>

namespace sb {

// An error as the engine states it, in OpenAI's shape ({"error":{"message","type","param","code"}}):
// the engine speaks OpenAI chat completions inside, and each front door words it in its own API.
struct ApiError {
    int status = 400;
    QString message; // a sentence that says what to do
    QString type = QStringLiteral("invalid_request_error");
    QString param;   // the offending field, when there is one
    QString code;

    QByteArray toJson() const;
};

} // namespace sb
