#pragma once

#include "common/HttpHeaders.h"
#include "model/Outcome.h"

#include <QByteArray>
#include <QJsonObject>

namespace sb {

// Baidu Qianfan's v1 (wenxinworkshop) API answers almost every error with HTTP 200 and
// {"error_code": N, "error_msg": "..."} — QPS limits and expired access tokens included — and does
// so even when a stream was asked for (a plain JSON body instead of SSE). The code decides.
class ErnieErrorMap {
public:
    static Outcome classify(int httpStatus, const HttpHeaders &headers, const QByteArray &body);
    static Outcome fromErrorBody(const QJsonObject &body, int httpStatus);
    static OutcomeKind kindForCode(int errorCode);
    static bool isError(const QJsonObject &body);
};

} // namespace sb
