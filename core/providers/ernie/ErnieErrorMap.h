#pragma once

#include "common/HttpHeaders.h"
#include "model/Outcome.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>

#include <optional>

namespace sb {

// Baidu Qianfan's v1 (wenxinworkshop) API answers almost every error with HTTP 200 and
// {"error_code": N, "error_msg": "..."} — QPS limits and expired access tokens included — and does
// so even when a stream was asked for (a plain JSON body instead of SSE). The code and the message,
// weighed together by judgeInBodyError, decide.
class ErnieErrorMap {
public:
    static Outcome classify(int httpStatus, const HttpHeaders &headers, const QByteArray &body);
    static Outcome fromErrorBody(const QJsonObject &body, int httpStatus);
    static OutcomeKind kindForCode(int errorCode);
    // The table behind kindForCode(): what Qianfan's own code says, when it is one we know.
    static std::optional<OutcomeKind> kindOfCode(int errorCode);
    // What keeps a 2xx without an error from being a chat answer (no result string; an empty one
    // with no function call, refusal or finish reason) or, when `embeddings`, an embeddings one (no
    // data); std::nullopt when it is one.
    static std::optional<QString> answerProblem(const QByteArray &body, bool embeddings);
    static bool isError(const QJsonObject &body);
};

} // namespace sb
