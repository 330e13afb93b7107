// The errors the proxy words for a chat client, one outcome at a time: status, type, code and the
// sentence, as an OpenAI SDK would show them.

#include "proxy/ClientErrors.h"
#include "routing/Router.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace std::chrono_literals;
using namespace sb;

namespace {

Outcome outcome(OutcomeKind kind, int status, const QString &message = {})
{
    Outcome o;
    o.kind = kind;
    o.httpStatus = status;
    o.message = message;
    return o;
}

FailureSummary summary(int attempts = 2)
{
    FailureSummary s;
    s.model = QStringLiteral("gpt-4o");
    s.attempts = attempts;
    return s;
}

} // namespace

class tst_ClientErrors : public QObject {
    Q_OBJECT

private slots:
    void refusalsNameTheirCause()
    {
        RouteRefusal unknown;
        unknown.httpStatus = 404;
        unknown.message = QStringLiteral("No route for model \"x\".");
        const ApiError notFound = clienterrors::refusal(unknown);
        QCOMPARE(notFound.status, 404);
        QCOMPARE(notFound.code, QStringLiteral("model_not_found"));
        QCOMPARE(notFound.param, QStringLiteral("model"));
        RouteRefusal limited;
        limited.httpStatus = 429;
        QCOMPARE(clienterrors::refusal(limited).type, QStringLiteral("rate_limit_error"));
        RouteRefusal none;
        QCOMPARE(clienterrors::refusal(none).status, 503);
        QCOMPARE(clienterrors::refusal(none).code, QStringLiteral("no_channel_available"));
    }

    void aProvidersParameterErrorKeepsItsStatusAndCode()
    {
        Outcome o = outcome(OutcomeKind::NonRetryableParamError, 422, QStringLiteral("max_tokens too large"));
        o.providerCode = QStringLiteral("context_length_exceeded");
        std::optional<Clock::Duration> retryAfter;
        FailureSummary s = summary();
        s.untried = {QStringLiteral("gpt-4o/B: circuit open")};
        s.deadlineReached = true; // a client's mistake is no timeout, whenever it comes
        const ApiError e = clienterrors::afterFailure(o, s, &retryAfter);
        QCOMPARE(e.status, 422);
        QCOMPARE(e.code, QStringLiteral("context_length_exceeded"));
        QCOMPARE(e.message, QStringLiteral("The provider rejected the request: max_tokens too large"));
        QVERIFY(!retryAfter);
    }

    void rateLimitsSayWhenToComeBack()
    {
        Outcome o = outcome(OutcomeKind::RetryableRateLimit, 429, QStringLiteral("slow down"));
        o.retryAfter = 7s;
        std::optional<Clock::Duration> retryAfter;
        const ApiError e = clienterrors::afterFailure(o, summary(1), &retryAfter);
        QCOMPARE(e.status, 429);
        QVERIFY(e.message.contains(QStringLiteral("(1 attempt: slow down)")));
        QCOMPARE(retryAfter, std::optional<Clock::Duration>(7s));
        Outcome bare = outcome(OutcomeKind::RetryableRateLimit, 429);
        clienterrors::afterFailure(bare, summary(), &retryAfter);
        QCOMPARE(retryAfter, std::optional<Clock::Duration>(1s)); // a hint is always given
        QCOMPARE(clienterrors::retryAfterSeconds(1500ms), QByteArray("2"));
        QCOMPARE(clienterrors::retryAfterSeconds(0ms), QByteArray("1"));
    }

    void aFailureNamesTheChannelsNeverTriedAndWhyItStopped()
    {
        FailureSummary s = summary(4);
        s.stoppedBecause = QStringLiteral("the retry budget is exhausted");
        s.untried = {QStringLiteral("gpt-4o/B: circuit open"), QStringLiteral("gpt-4o/C: keys cooling")};
        std::optional<Clock::Duration> retryAfter;
        const ApiError e = clienterrors::afterFailure(outcome(OutcomeKind::ProviderDown, 503, QStringLiteral("HTTP 503")), s, &retryAfter);
        QCOMPARE(e.status, 502);
        QCOMPARE(e.code, QStringLiteral("upstream_unavailable"));
        QCOMPARE(e.message, QStringLiteral("Every channel for \"gpt-4o\" failed (4 attempts; last: HTTP 503). Stopped retrying: the "
                                           "retry budget is exhausted. Not tried: gpt-4o/B: circuit open; gpt-4o/C: keys cooling."));
        QVERIFY(clienterrors::namesUntriedChannels(outcome(OutcomeKind::Timeout, 0)));
        QVERIFY(!clienterrors::namesUntriedChannels(outcome(OutcomeKind::AuthError, 401)));
    }

    void thePassedDeadlineIsA504WhateverFailedLast()
    {
        FailureSummary s = summary();
        s.deadlineReached = true;
        std::optional<Clock::Duration> retryAfter;
        const ApiError e = clienterrors::afterFailure(outcome(OutcomeKind::ProviderDown, 500), s, &retryAfter);
        QCOMPARE(e.status, 504);
        QCOMPARE(e.code, QStringLiteral("deadline_exceeded"));
        const ApiError timeout = clienterrors::afterFailure(outcome(OutcomeKind::Timeout, 0, QStringLiteral("no answer")), summary(), &retryAfter);
        QCOMPARE(timeout.status, 504);
        QCOMPARE(timeout.code, QStringLiteral("upstream_timeout"));
    }

    void aKeyRefusedIsTheOperatorsToFix()
    {
        std::optional<Clock::Duration> retryAfter;
        const ApiError e = clienterrors::afterFailure(outcome(OutcomeKind::AuthError, 401, QStringLiteral("invalid key")), summary(), &retryAfter);
        QCOMPARE(e.status, 502);
        QCOMPARE(e.code, QStringLiteral("upstream_auth_error"));
        QVERIFY(e.message.endsWith(QStringLiteral("Fix the key in Providers.")));
    }

    void aBrokenStreamsErrorEventIsWellFormedJson()
    {
        const ApiError e = clienterrors::midStream(outcome(OutcomeKind::ProviderDown, 0, QStringLiteral("connection reset")));
        const QJsonObject error = QJsonDocument::fromJson(e.toJson()).object().value(QStringLiteral("error")).toObject();
        QCOMPARE(error.value(QStringLiteral("type")).toString(), QStringLiteral("upstream_error"));
        QCOMPARE(error.value(QStringLiteral("code")).toString(), QStringLiteral("provider_down"));
        QVERIFY(error.value(QStringLiteral("message")).toString().contains(QStringLiteral("connection reset")));
        QVERIFY(error.value(QStringLiteral("param")).isNull());
        const ApiError none = clienterrors::noChannel(QString());
        QCOMPARE(none.status, 503);
        QCOMPARE(none.message, QStringLiteral("No channel could take the request."));
    }
};

QTEST_APPLESS_MAIN(tst_ClientErrors)
#include "tst_ClientErrors.moc"
