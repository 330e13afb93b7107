#pragma once

#include "common/HttpHeaders.h"
#include "model/Outcome.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>

#include <optional>

namespace sb {

// DashScope (Qwen's native API) answers errors as {"code","message","request_id"}. The code string
// is authoritative: the throttling codes also arrive inside HTTP 200 stream events (event:error),
// which is exactly the case that once looked like an empty success and set off a retry storm
// across every provider (ARCHITECTURE.md, "Defaults and why"). Inside a 200 the code and the
// message are weighed together by judgeInBodyError.
class DashScopeErrorMap {
public:
    static Outcome classify(int httpStatus, const HttpHeaders &headers, const QByteArray &body);
    // A listing endpoint (the probe's models list): a 2xx without an error code is a success.
    static Outcome classifyListing(int httpStatus, const HttpHeaders &headers, const QByteArray &body);
    // A body or event object whose "code" is set → its Outcome.
    static Outcome fromErrorBody(const QJsonObject &body, int httpStatus);
    static OutcomeKind kindForCode(const QString &code, int httpStatus);
    // The table behind kindForCode(): what DashScope's own code says, when it is one we know.
    static std::optional<OutcomeKind> kindOfCode(const QString &code);
    // What keeps a 2xx without an error from being a generation (no output, no choices and no text,
    // a choice with neither content nor a finish reason) or, when `embeddings`, an embeddings
    // answer (no output.embeddings); std::nullopt when it is one.
    static std::optional<QString> answerProblem(const QByteArray &body, bool embeddings);
    // True when the object is an error report rather than a generation result.
    static bool isError(const QJsonObject &body);
};

} // namespace sb
