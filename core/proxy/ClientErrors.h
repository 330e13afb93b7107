#pragma once

#include "common/Clock.h"
#include "frontends/ApiError.h"
#include "model/Outcome.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <optional>

namespace sb {

struct RouteRefusal;

// What a request's attempts came to, for the error its client gets after the last one.
struct FailureSummary {
    QString model;            // the logical model the client asked for
    int attempts = 0;
    QString stoppedBecause;   // why no further attempt was made ("the retry budget is exhausted …"); may be empty
    QStringList untried;      // channels of the model the request never reached, each with why
    bool deadlineReached = false;
};

// The wording and status of every error the proxy itself gives a chat or embeddings client: pure
// functions of what happened, so that each sentence is tested on its own.
namespace clienterrors {

// The router refused the attempt outright: unknown model (404), every channel rate limited (429),
// none available (503).
ApiError refusal(const RouteRefusal &refusal);
// After the last failed attempt; *retryAfter is set when the client should be told when to come back.
ApiError afterFailure(const Outcome &last, const FailureSummary &summary, std::optional<Clock::Duration> *retryAfter);
// No attempt was ever made and there is no outcome to report.
ApiError noChannel(const QString &why);
// Whether afterFailure() names the untried channels for this outcome (the caller need not look
// them up otherwise): a parameter or key error is the same on every channel.
bool namesUntriedChannels(const Outcome &last);
// The error event that ends a stream that broke after its first byte reached the client.
ApiError midStream(const Outcome &outcome);
// The value of a Retry-After header: whole seconds, rounded up, at least 1.
QByteArray retryAfterSeconds(Clock::Duration wait);

} // namespace clienterrors

} // namespace sb
