#pragma once

#include "common/HttpHeaders.h"
#include "model/Outcome.h"

#include <QByteArray>
#include <QJsonObject>

namespace sb {

// DashScope (Qwen's native API) answers errors as {"code","message","request_id"}. The code string
// is authoritative: the throttling codes also arrive inside HTTP 200 stream events (event:error),
// which is exactly the case that once looked like an empty success and set off a retry storm
// across every provider (ARCHITECTURE.md, "Defaults and why").
class DashScopeErrorMap {
public:
    static Outcome classify(int httpStatus, const HttpHeaders &headers, const QByteArray &body);
    // A listing endpoint (the probe's models list): a 2xx without an error code is a success.
    static Outcome classifyListing(int httpStatus, const HttpHeaders &headers, const QByteArray &body);
    // A body or event object whose "code" is set → its Outcome.
    static Outcome fromErrorBody(const QJsonObject &body, int httpStatus);
    static OutcomeKind kindForCode(const QString &code, int httpStatus);
    // True when the object is an error report rather than a generation result.
    static bool isError(const QJsonObject &body);
};

} // namespace sb
