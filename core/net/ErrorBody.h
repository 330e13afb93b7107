#pragma once

#include <QByteArray>
#include <QString>

namespace sb {

// The OpenAI error envelope: {"error":{"message":…,"type":…,"code":…}}. Every error the proxy
// produces itself (HTTP-level rejections, routing failures) uses it, so an OpenAI SDK shows the
// message instead of a parse failure. An empty code is written as null, as OpenAI does.
QByteArray openAiErrorBody(const QString &message, const QString &type = QStringLiteral("invalid_request_error"),
                           const QString &code = QString());

} // namespace sb
