// ProxyCall's failover logic on FakeClock, with no sockets: the upstream is scripted
// (ScriptedUpstream), the client recorded (RecordingResponse), and every wait is a timer of the
// clock, so each figure below is exact.

#include "ProxyCallDoubles.h"

#include "frontends/openai_chat/ChatRequest.h"
#include "proxy/EngineContext.h"
#include "proxy/ProxyCall.h"
#include "routing/RetryPolicy.h"
#include "routing/RetryState.h"

#include "FakeClock.h"
#include "FakeRandom.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <memory>

using namespace std::chrono_literals;
using namespace sb;
using sb::test::FakeClock;
using sb::test::FakeRandom;
using sb::test::kAnswer;
using sb::test::kChunk;
using sb::test::kLastChunk;
using sb::test::RecordingResponse;
using sb::test::scriptedProvider;
using sb::test::ScriptedUpstream;

namespace {


const QByteArray kRateLimited = R"({"error":{"message":"slow down","type":"rate_limit_error"}})";

const QByteArray kRoleChunk = R"(data: {"id":"empty1","object":"chat.completion.chunk","created":1,"model":"m",)"
                              R"("choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]})"
                              "\n\n";

ChannelConfig channel(int id, int providerId, const QString &name)
{
    return ChannelConfig{id, name, providerId, QStringLiteral("upstream-model"), 1.0, true, {}, {}, {}};
}

RouteConfig route(int id, const QString &model, std::vector<int> channels)
{
    RouteConfig r;
    r.id = id;
    r.logicalModel = model;
    r.channelIds = std::move(channels);
    return r;
}

// "pair": channels A (p1) and B (p2), the dual-channel design. "solo": one channel on p3, with two keys.
// "single": one channel on p4, with one key.
EngineConfig baseConfig()
{
    EngineConfig c;
    c.providers = {scriptedProvider(1), scriptedProvider(2), scriptedProvider(3, 2), scriptedProvider(4)};
    c.channels = {channel(1, 1, QStringLiteral("pair/A")), channel(2, 2, QStringLiteral("pair/B")),
                  channel(3, 3, QStringLiteral("solo/A")), channel(4, 4, QStringLiteral("single/A"))};
    c.routes = {route(1, QStringLiteral("pair"), {1, 2}), route(2, QStringLiteral("solo"), {3}),
                route(3, QStringLiteral("single"), {4})};
    return c;
}

struct Rig {
    explicit Rig(EngineConfig config = baseConfig())
        : engine(clock, random, std::make_shared<const EngineConfig>(std::move(config)))
    {
        engine.setRequestSink([this](RequestRecord &&record) { records.push_back(std::move(record)); });
    }

    // Starts a call for `model`; `stream` asks for an event stream.
    ProxyCall &call(const QString &model, bool stream = false)
    {
        QJsonObject body{{QStringLiteral("model"), model},
                         {QStringLiteral("messages"), QJsonArray{QJsonObject{{QStringLiteral("role"), QStringLiteral("user")},
                                                                             {QStringLiteral("content"), QStringLiteral("hi")}}}}};
        if (stream)
            body.insert(QStringLiteral("stream"), true);
        ApiError error;
        auto parsed = ChatRequest::parse(QJsonDocument(body).toJson(QJsonDocument::Compact), &error);
        Q_ASSERT(parsed);
        ProxyCall::Input input;
        input.requestId = QStringLiteral("req-1");
        input.body = std::move(parsed->body);
        input.model = model;
        input.stream = stream;
        proxyCall = std::make_unique<ProxyCall>(engine, upstream, std::move(input), response, [this](ProxyCall *) { ++finished; });
        proxyCall->start();
        return *proxyCall;
    }

    // The provider's only key rests as after a 429 with that Retry-After.
    void restOnlyKeyOf(int providerId, std::chrono::milliseconds rest)
    {
        const auto keys = engine.router().keyRing(providerId);
        keys->reportRateLimited(keys->status().front().keyId, rest);
    }

    Clock::Duration sinceStart() const { return clock.now() - t0; }
    Clock::Duration untilNextTimer() const { return clock.nextDue() - clock.now(); }
    QJsonObject errorBody() const { return QJsonDocument::fromJson(response->body).object().value(QStringLiteral("error")).toObject(); }

    FakeClock clock;
    const Clock::TimePoint t0 = clock.now();
    FakeRandom random{7};
    EngineContext engine;
    ScriptedUpstream upstream{clock};
    std::shared_ptr<RecordingResponse> response = std::make_shared<RecordingResponse>();
    std::unique_ptr<ProxyCall> proxyCall;
    std::vector<RequestRecord> records;
    int finished = 0;
};

} // namespace

class tst_ProxyCall : public QObject {
    Q_OBJECT

private slots:
    void aFailureFailsOverAtOnceToTheOtherChannel()
    {
        Rig rig;
        rig.call(QStringLiteral("pair"));
        QCOMPARE(rig.upstream.count(), std::size_t(1));
        const QString first = rig.upstream.hostOf(0);
        rig.upstream.reply(0, 503, R"({"error":{"message":"overloaded","type":"server_error"}})");
        // The second attempt starts in the same instant, on the other provider's channel.
        QCOMPARE(rig.upstream.count(), std::size_t(2));
        QVERIFY(rig.upstream.hostOf(1) != first);
        QCOMPARE(rig.upstream.at(1).startedAt, rig.upstream.at(0).startedAt);
        rig.upstream.reply(1, 200, kAnswer);
        QCOMPARE(rig.response->status, 200);
        QCOMPARE(rig.response->headers.value("x-switchboard-failover"), QByteArray("true"));
        QCOMPARE(rig.response->headers.value("x-switchboard-attempts"), QByteArray("2"));
        QCOMPARE(rig.finished, 1);
        QCOMPARE(rig.records.size(), std::size_t(1));
        QCOMPARE(rig.records[0].attempts.size(), std::size_t(2));
        QVERIFY(rig.records[0].failover);
        QCOMPARE(rig.engine.retryBudget().stats().retriesInFlight, 0);
    }

    void aClientErrorIsTriedOnceOnTheOtherProviderAtOnce()
    {
        Rig rig;
        rig.call(QStringLiteral("pair"));
        const QString first = rig.upstream.hostOf(0);
        rig.upstream.reply(0, 400, R"({"error":{"message":"Unsupported parameter: max_tokens","type":"invalid_request_error","param":"max_tokens","code":"unsupported_parameter"}})");
        // The try elsewhere starts in the same instant, on the other provider, and spends no retry budget.
        QCOMPARE(rig.upstream.count(), std::size_t(2));
        QVERIFY(rig.upstream.hostOf(1) != first);
        QCOMPARE(rig.upstream.at(1).startedAt, rig.upstream.at(0).startedAt);
        QCOMPARE(rig.engine.retryBudget().stats().retriesInFlight, 0);
        QCOMPARE(rig.response->status, 0); // nothing sent yet
        rig.upstream.reply(1, 200, kAnswer);
        QCOMPARE(rig.response->status, 200);
        QCOMPARE(rig.response->headers.value("x-switchboard-attempts"), QByteArray("2"));
        QCOMPARE(rig.records.size(), std::size_t(1));
        QCOMPARE(rig.records[0].attempts.size(), std::size_t(2));
        QCOMPARE(toString(rig.records[0].attempts[0].outcome), toString(OutcomeKind::NonRetryableParamError));
        QCOMPARE(rig.records[0].attempts[0].httpStatus, 400);
    }

    void theOtherProvidersRefusalGivesTheClientTheFirstOne()
    {
        Rig rig;
        rig.call(QStringLiteral("pair"));
        const QByteArray firstChannel = rig.upstream.hostOf(0).startsWith(QLatin1String("p1")) ? "pair/A" : "pair/B";
        rig.upstream.reply(0, 422, R"({"error":{"message":"max_tokens is too large for this model","type":"invalid_request_error","code":"max_tokens_exceeded"}})");
        rig.upstream.reply(1, 400, R"({"error":{"message":"another provider complaint","type":"invalid_request_error","code":"other"}})");
        QCOMPARE(rig.upstream.count(), std::size_t(2)); // once, not round the route
        QCOMPARE(rig.response->status, 422);
        QVERIFY(rig.errorBody().value(QStringLiteral("message")).toString().contains(QLatin1String("max_tokens is too large")));
        QCOMPARE(rig.errorBody().value(QStringLiteral("code")).toString(), QStringLiteral("max_tokens_exceeded"));
        QCOMPARE(rig.response->headers.value("x-switchboard-channel"), firstChannel);
        QCOMPARE(rig.records[0].channelName, QString::fromLatin1(firstChannel));
        QCOMPARE(rig.records[0].attempts.size(), std::size_t(2));
    }

    void aClientErrorPastTheDeadlineIsNotTriedElsewhere()
    {
        Rig rig;
        rig.call(QStringLiteral("pair"));
        rig.clock.advance(Clock::Duration(rig.engine.config()->retry.overallDeadline) + 1ms);
        rig.upstream.reply(0, 400, R"({"error":{"message":"bad","type":"invalid_request_error"}})");
        QCOMPARE(rig.upstream.count(), std::size_t(1));
        QCOMPARE(rig.response->status, 400);
    }

    void aClientErrorGoesOnlyToAProviderNotYetAsked()
    {
        // A fails, B refuses: the only other provider has been asked already, so B's refusal is the answer.
        Rig rig;
        rig.call(QStringLiteral("pair"));
        const QByteArray secondChannel = rig.upstream.hostOf(0).startsWith(QLatin1String("p1")) ? "pair/B" : "pair/A";
        rig.upstream.reply(0, 503, {});
        rig.upstream.reply(1, 400, R"({"error":{"message":"bad","type":"invalid_request_error"}})");
        QCOMPARE(rig.upstream.count(), std::size_t(2));
        QCOMPARE(rig.response->status, 400);
        QCOMPARE(rig.response->headers.value("x-switchboard-channel"), secondChannel);
    }

    void anotherKeyOfTheSameProviderIsNoOtherProvider()
    {
        Rig rig;
        rig.call(QStringLiteral("solo")); // one channel, its provider with two keys
        rig.upstream.reply(0, 400, R"({"error":{"message":"bad","type":"invalid_request_error"}})");
        QCOMPARE(rig.upstream.count(), std::size_t(1));
        QCOMPARE(rig.response->status, 400);
        QCOMPARE(rig.response->headers.value("x-switchboard-attempts"), QByteArray("1"));
    }

    void aRetryOfAChannelAlreadyTriedWaitsItsBackoff()
    {
        Rig rig;
        const RetryConfig retry = rig.engine.config()->retry;
        rig.call(QStringLiteral("pair"));
        rig.upstream.reply(0, 503, {});
        rig.upstream.reply(1, 503, {});
        // Both channels tried: the third attempt is a retry, after min(t_max, t_base·2^0) + jitter.
        QCOMPARE(rig.upstream.count(), std::size_t(2));
        const Clock::Duration wait = rig.untilNextTimer();
        QVERIFY2(wait >= Clock::Duration(retry.baseDelay) && wait <= Clock::Duration(retry.baseDelay + retry.jitter),
                 qPrintable(QString::number(toMillis(wait))));
        rig.clock.advance(wait - 1ms);
        QCOMPARE(rig.upstream.count(), std::size_t(2));
        rig.clock.advance(1ms);
        QCOMPARE(rig.upstream.count(), std::size_t(3));
        QCOMPARE(rig.engine.retryBudget().stats().retriesInFlight, 1); // a retry spends the budget
        rig.upstream.reply(2, 503, {});
        // The next retry doubles the base: min(2 s, 100 ms · 2^1) + jitter.
        const Clock::Duration second = rig.untilNextTimer();
        QVERIFY2(second >= Clock::Duration(2 * retry.baseDelay) && second <= Clock::Duration(2 * retry.baseDelay + retry.jitter),
                 qPrintable(QString::number(toMillis(second))));
        rig.clock.advance(second);
        QCOMPARE(rig.upstream.count(), std::size_t(4));
        rig.upstream.reply(3, 503, {});
        // maxAttempts (4) spent: the client hears why, and no timer is left behind.
        QCOMPARE(rig.response->status, 502);
        QVERIFY(rig.errorBody().value(QStringLiteral("message")).toString().contains(QStringLiteral("4 attempts")));
        QCOMPARE(rig.clock.pendingTimers(), 0);
        QCOMPARE(rig.engine.retryBudget().stats().retriesInFlight, 0);
    }

    void aChannelWhoseTrialsAreTakenDoesNotMakeARetryAFailover()
    {
        // pair/B is HALF_OPEN and another request holds its one trial, so A's retries are retries:
        // each waits its backoff and spends the budget, as if B were not there.
        EngineConfig config = baseConfig();
        config.breaker.halfOpenMaxTrials = 1;
        Rig rig(config);
        Outcome down = Outcome::local(OutcomeKind::ProviderDown, QStringLiteral("down"));
        for (int i = 0; i < 5; ++i)
            rig.engine.router().record(2, down, 10ms);
        rig.clock.advance(config.breaker.openDuration);
        const RetryPolicy policy(config.retry);
        RetryState elsewhere(policy, rig.clock, rig.clock.now());
        elsewhere.attemptStarted(1);
        const RouteResult trial = rig.engine.router().choose(QStringLiteral("pair"), elsewhere, 1);
        QVERIFY(trial.choice && trial.choice->channelId == 2 && trial.choice->halfOpenTrial);

        rig.call(QStringLiteral("pair"));
        rig.upstream.reply(0, 500, {});
        rig.upstream.reply(1, 500, {}); // the first attempt's immediate second try
        QCOMPARE(rig.upstream.count(), std::size_t(2));
        QVERIFY2(rig.untilNextTimer() >= Clock::Duration(config.retry.baseDelay), qPrintable(QString::number(toMillis(rig.untilNextTimer()))));
        rig.clock.advance(rig.untilNextTimer());
        QCOMPARE(rig.upstream.count(), std::size_t(3));
        QCOMPARE(rig.upstream.hostOf(2), QStringLiteral("p1.test"));
        QCOMPARE(rig.engine.retryBudget().stats().retriesInFlight, 1);
        rig.upstream.reply(2, 200, kAnswer);
        QCOMPARE(rig.response->status, 200);
        rig.engine.router().release(*trial.choice);
    }

    void thePrimaryGetsThirtySecondsAndTheFallbackTwenty()
    {
        Rig rig;
        rig.call(QStringLiteral("pair"));
        QCOMPARE(rig.upstream.at(0).options.totalTimeout, std::chrono::milliseconds(30s));
        rig.clock.advance(30s);
        rig.upstream.fail(0, TransferError::Timeout, QStringLiteral("Operation timeout after 30000 ms"));
        QCOMPARE(rig.upstream.count(), std::size_t(2));
        QCOMPARE(rig.upstream.at(1).options.totalTimeout, std::chrono::milliseconds(20s));
    }

    void anAttemptsBudgetNeverRunsPastTheOverallDeadline()
    {
        EngineConfig config = baseConfig();
        config.retry.overallDeadline = 45s;
        Rig rig(config);
        rig.call(QStringLiteral("pair"));
        QCOMPARE(rig.upstream.at(0).options.totalTimeout, std::chrono::milliseconds(30s));
        rig.clock.advance(30s);
        rig.upstream.fail(0, TransferError::Timeout, QStringLiteral("timeout"));
        // 15 s are left of the 45 s: the fallback's 20 s budget is cut to them.
        QCOMPARE(rig.upstream.at(1).options.totalTimeout, std::chrono::milliseconds(15s));
        rig.clock.advance(15s);
        rig.upstream.fail(1, TransferError::Timeout, QStringLiteral("timeout"));
        QCOMPARE(rig.upstream.count(), std::size_t(2)); // no attempt squeezed in after the deadline
        QCOMPARE(rig.response->status, 504);
        QCOMPARE(rig.errorBody().value(QStringLiteral("code")).toString(), QStringLiteral("deadline_exceeded"));
    }

    void aStreamsFirstEventMustArriveWithinTheBudget()
    {
        Rig rig;
        rig.call(QStringLiteral("pair"), true);
        const auto &first = rig.upstream.at(0);
        QCOMPARE(first.options.totalTimeout, std::chrono::milliseconds(0)); // a stream may run long ...
        QCOMPARE(first.options.idleTimeout, rig.engine.config()->retry.streamIdleTimeout); // ... but not stall
        rig.upstream.streamHead(0); // headers, then silence
        rig.clock.advance(30s - 1ms);
        QCOMPARE(rig.upstream.count(), std::size_t(1));
        rig.clock.advance(1ms);
        // The call's own timer gave up on the primary and went to the fallback, invisibly.
        QVERIFY(rig.upstream.at(0).cancelled);
        QCOMPARE(rig.upstream.count(), std::size_t(2));
        QCOMPARE(rig.upstream.at(1).startedAt - rig.t0, Clock::Duration(30s));
        QVERIFY(!rig.response->streamed);
        rig.upstream.streamHead(1);
        rig.upstream.data(1, kChunk);
        QVERIFY(rig.response->streamed);
        rig.upstream.data(1, kLastChunk);
        QCOMPARE(rig.response->status, 200);
        QVERIFY(rig.response->body.endsWith("data: [DONE]\n\n"));
        QCOMPARE(rig.response->headers.value("x-switchboard-failover"), QByteArray("true"));
    }

    void aStallAfterTheFirstTokenEndsTheStreamWithAnErrorEventWhenNotContinued()
    {
        EngineConfig config = baseConfig();
        config.retry.continueStreams = false;
        Rig rig(config);
        rig.call(QStringLiteral("pair"), true);
        rig.upstream.streamHead(0);
        rig.upstream.data(0, kChunk);
        QVERIFY(rig.response->streamed);
        // The stall deadline ends the attempt mid-answer.
        rig.clock.advance(rig.engine.config()->retry.streamIdleTimeout);
        QVERIFY(rig.upstream.at(0).cancelled);
        QCOMPARE(rig.upstream.count(), std::size_t(1)); // bytes went out, and continuation is off
        QVERIFY(rig.response->finished);
        QVERIFY(rig.response->body.contains(R"("type":"upstream_error")"));
        QVERIFY(!rig.response->body.contains("[DONE]"));
        QCOMPARE(rig.records.at(0).status, RequestStatus::MidStream);
        QVERIFY(rig.records.at(0).error.contains(QStringLiteral("not continued: continuation is turned off in Settings")));
    }

    void aRoleChunkAndPingsDoNotMeetTheFirstContentDeadline()
    {
        EngineConfig config = baseConfig();
        config.retry.firstContentTimeout = 5s;
        Rig rig(config);
        rig.call(QStringLiteral("pair"), true);
        rig.upstream.streamHead(0);
        rig.upstream.data(0, R"(data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant"},"finish_reason":null}]})"
                             "\n\n");
        for (int i = 0; i < 4; ++i) { // keep-alive comments, a second apart
            rig.clock.advance(1s);
            rig.upstream.data(0, ": keep-alive\n\n");
        }
        QCOMPARE(rig.upstream.count(), std::size_t(1));
        rig.clock.advance(1s);
        // Five seconds without content: the fallback gets the request, and the client saw nothing yet.
        QVERIFY(rig.upstream.at(0).cancelled);
        QCOMPARE(rig.upstream.count(), std::size_t(2));
        QVERIFY(!rig.response->streamed);
        rig.upstream.streamHead(1);
        rig.upstream.data(1, kChunk);
        rig.upstream.data(1, kLastChunk);
        QCOMPARE(rig.response->headers.value("x-switchboard-failover"), QByteArray("true"));
        QVERIFY(rig.response->body.endsWith("data: [DONE]\n\n"));
    }

    void aStallWithPingsIsContinuedOnTheFallback()
    {
        Rig rig;
        rig.call(QStringLiteral("pair"), true);
        rig.upstream.streamHead(0);
        rig.upstream.data(0, kChunk); // "hel" reached the client
        const Clock::Duration stall = rig.engine.config()->retry.streamIdleTimeout;
        for (Clock::Duration waited{}; waited + 10s < stall; waited += 10s) {
            rig.clock.advance(10s);
            rig.upstream.data(0, ": keep-alive\n\n"); // the connection is warm; the answer is not moving
        }
        QCOMPARE(rig.upstream.count(), std::size_t(1));
        rig.clock.advance(stall - 20s);
        QVERIFY(rig.upstream.at(0).cancelled);
        QCOMPARE(rig.upstream.count(), std::size_t(2));
        // The fallback is asked for the rest of the same answer, in words (an OpenAI-compatible upstream).
        const QJsonArray messages = QJsonDocument::fromJson(rig.upstream.at(1).request.body)["messages"].toArray();
        QCOMPARE(messages.size(), 3);
        QCOMPARE(messages.at(1)["role"].toString(), QStringLiteral("assistant"));
        QCOMPARE(messages.at(1)["content"].toString(), QStringLiteral("hel"));
        QCOMPARE(messages.at(2)["content"].toString(), QString::fromLatin1(StreamContinuation::kInstruction));
        rig.upstream.streamHead(1);
        rig.upstream.data(1, R"(data: {"id":"c2","object":"chat.completion.chunk","created":2,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"lo"},"finish_reason":null}]})"
                             "\n\n");
        rig.upstream.data(1, kLastChunk);
        QCOMPARE(rig.response->status, 200);
        QCOMPARE(rig.response->body.count("data: [DONE]"), 1);
        QVERIFY(!rig.response->body.contains("upstream_error"));
        QVERIFY(!rig.response->body.contains(R"("id":"c2")")); // one stream: the first attempt's id throughout
        QVERIFY(rig.response->body.contains(R"("content":"lo")"));
        QCOMPARE(rig.records.at(0).status, RequestStatus::Ok);
        QCOMPARE(int(rig.records.at(0).attempts.size()), 2);
        QVERIFY(rig.records.at(0).attempts.at(0).message.contains(QStringLiteral("stalled")));
        QVERIFY(rig.records.at(0).attempts.at(1).message.startsWith(QStringLiteral("continued the answer after 3 characters")));
    }

    void anotherKeyOfTheOnlyProviderIsTriedAtOnce()
    {
        // The provider's hint cools the key that got it, not the provider: its other key serves now.
        Rig rig;
        rig.call(QStringLiteral("solo"));
        HttpHeaders headers;
        headers.set("Retry-After", "3");
        rig.upstream.reply(0, 429, kRateLimited, headers);
        QCOMPARE(rig.upstream.count(), std::size_t(2));
        QCOMPARE(rig.sinceStart(), Clock::Duration::zero());
        QVERIFY(rig.upstream.keyOf(1) != rig.upstream.keyOf(0));
        rig.upstream.reply(1, 200, kAnswer);
        QCOMPARE(rig.response->status, 200);
    }

    void aHintLongerThanTheMaxWaitIsA429AtOnceWithItsRetryAfter()
    {
        // One channel, one key, a 14 s hint: the caller hears it at once, not after 42 s and three
        // more 429s of a key that was still cooling.
        Rig rig;
        rig.call(QStringLiteral("single"));
        HttpHeaders headers;
        headers.set("Retry-After", "14");
        rig.upstream.reply(0, 429, kRateLimited, headers);
        QCOMPARE(rig.finished, 1);
        QCOMPARE(rig.sinceStart(), Clock::Duration::zero());
        QCOMPARE(rig.upstream.count(), std::size_t(1)); // never the same key inside its cool-down
        QCOMPARE(rig.response->status, 429);
        QCOMPARE(rig.response->headers.value("retry-after"), QByteArray("14"));
        QCOMPARE(rig.errorBody().value(QStringLiteral("type")).toString(), QStringLiteral("rate_limit_error"));
        QVERIFY2(rig.errorBody().value(QStringLiteral("message")).toString().contains(QStringLiteral("max client wait")),
                 rig.response->body.constData());
        const auto keys = rig.engine.router().keyRing(4);
        QCOMPARE(keys->soonestAvailableIn(), std::optional<Clock::Duration>(14s));
    }

    void aHintWithinTheMaxWaitIsWaitedOutOnceAndTheKeyServesAgain()
    {
        Rig rig;
        rig.call(QStringLiteral("single"));
        HttpHeaders headers;
        headers.set("Retry-After", "2");
        rig.upstream.reply(0, 429, kRateLimited, headers);
        QCOMPARE(rig.untilNextTimer(), Clock::Duration(2s));
        rig.clock.advance(2s - 1ms);
        QCOMPARE(rig.upstream.count(), std::size_t(1));
        rig.clock.advance(1ms);
        QCOMPARE(rig.upstream.count(), std::size_t(2));
        QCOMPARE(rig.upstream.keyOf(1), rig.upstream.keyOf(0)); // the only key, its rest over
        rig.upstream.reply(1, 200, kAnswer);
        QCOMPARE(rig.response->status, 200);
        QCOMPARE(rig.sinceStart(), Clock::Duration(2s));
    }

    void theMaxWaitCountsEveryWaitOfTheRequest()
    {
        // 2 s waited of 3: a second 2 s hint does not fit, so the client hears it then.
        Rig rig;
        rig.call(QStringLiteral("single"));
        HttpHeaders headers;
        headers.set("Retry-After", "2");
        rig.upstream.reply(0, 429, kRateLimited, headers);
        rig.clock.advance(2s);
        rig.upstream.reply(1, 429, kRateLimited, headers);
        QCOMPARE(rig.finished, 1);
        QCOMPARE(rig.sinceStart(), Clock::Duration(2s));
        QCOMPARE(rig.response->status, 429);
        QCOMPARE(rig.response->headers.value("retry-after"), QByteArray("2"));
    }

    void theMaxWaitIsASetting()
    {
        EngineConfig config = baseConfig();
        config.retry.maxClientWait = 20s;
        Rig rig(config);
        rig.call(QStringLiteral("single"));
        HttpHeaders headers;
        headers.set("Retry-After", "14");
        rig.upstream.reply(0, 429, kRateLimited, headers);
        QCOMPARE(rig.untilNextTimer(), Clock::Duration(14s));
        rig.clock.advance(14s);
        QCOMPARE(rig.upstream.count(), std::size_t(2));
        rig.upstream.reply(1, 200, kAnswer);
        QCOMPARE(rig.response->status, 200);
    }

    void aLongRetryAfterOnAnotherFailureIsNotWaitedPastTheMaxWait()
    {
        Rig rig;
        rig.call(QStringLiteral("single"));
        HttpHeaders headers;
        headers.set("Retry-After", "14");
        rig.upstream.reply(0, 503, R"({"error":{"message":"overloaded","type":"server_error"}})", headers);
        QCOMPARE(rig.finished, 1);
        QCOMPARE(rig.sinceStart(), Clock::Duration::zero());
        QCOMPARE(rig.response->status, 502);
        QVERIFY2(rig.errorBody().value(QStringLiteral("message")).toString().contains(QStringLiteral("the provider asked for 14 s")),
                 rig.response->body.constData());
    }

    void withTwoChannelsARateLimitFailsOverAtOnce()

    {
        Rig rig;
        rig.call(QStringLiteral("pair"));
        HttpHeaders headers;
        headers.set("Retry-After", "14");
        rig.upstream.reply(0, 429, kRateLimited, headers);
        QCOMPARE(rig.upstream.count(), std::size_t(2));
        QCOMPARE(rig.sinceStart(), Clock::Duration::zero());
        QCOMPARE(rig.upstream.hostOf(1), QStringLiteral("p2.test"));
        rig.upstream.reply(1, 200, kAnswer);
        QCOMPARE(rig.response->status, 200);
        QCOMPARE(rig.response->headers.value("x-switchboard-failover"), QByteArray("true"));
    }

    void withoutAHintTheShortDefaultIsWaitedAndGrowsOnlyWhileRefused()
    {
        Rig rig;
        rig.call(QStringLiteral("single"));
        rig.upstream.reply(0, 429, kRateLimited);
        QCOMPARE(rig.untilNextTimer(), Clock::Duration(1s)); // the default, not 30 s
        rig.clock.advance(1s);
        QCOMPARE(rig.upstream.count(), std::size_t(2));
        rig.upstream.reply(1, 429, kRateLimited); // refused again after its rest: 2 s, which still fits
        QCOMPARE(rig.untilNextTimer(), Clock::Duration(2s));
        rig.clock.advance(2s);
        QCOMPARE(rig.upstream.count(), std::size_t(3));
        rig.upstream.reply(2, 429, kRateLimited); // 4 s: past the max wait
        QCOMPARE(rig.response->status, 429);
        QCOMPARE(rig.response->headers.value("retry-after"), QByteArray("4"));
        QCOMPARE(rig.sinceStart(), Clock::Duration(3s));
    }

    void theLastAttemptWaitsForTheUntriedChannelWhoseKeyComesFree()
    {
        // pair/B's only key rests 1 s; pair/A refuses connections. The earlier attempts retry A as
        // before, the last one waits out B's rest instead of spending itself on A once more.
        Rig rig;
        rig.restOnlyKeyOf(2, 1000ms);
        rig.call(QStringLiteral("pair"));
        rig.upstream.fail(0, TransferError::ConnectFailed, QStringLiteral("connection refused"));
        rig.upstream.fail(1, TransferError::ConnectFailed, QStringLiteral("connection refused")); // at once
        rig.clock.advance(rig.untilNextTimer()); // a retry's backoff
        rig.upstream.fail(2, TransferError::ConnectFailed, QStringLiteral("connection refused"));
        rig.clock.advance(rig.untilNextTimer()); // the next one's
        QCOMPARE(rig.upstream.count(), std::size_t(3));
        for (std::size_t i = 0; i < 3; ++i)
            QCOMPARE(rig.upstream.hostOf(i), QStringLiteral("p1.test"));
        QVERIFY2(rig.sinceStart() < 1000ms, qPrintable(QString::number(toMillis(rig.sinceStart()))));
        QCOMPARE(rig.untilNextTimer(), 1000ms - rig.sinceStart()); // to the end of B's rest, no later
        rig.clock.advance(rig.untilNextTimer());
        QCOMPARE(rig.upstream.count(), std::size_t(4));
        QCOMPARE(rig.upstream.hostOf(3), QStringLiteral("p2.test"));
        rig.upstream.reply(3, 200, kAnswer);
        QCOMPARE(rig.response->status, 200);
        QCOMPARE(rig.response->headers.value("x-switchboard-attempts"), QByteArray("4"));
    }

    void aKeyFreeSoonIsWaitedForThoughTheOtherChannelsCircuitIsOpen()
    {
        // pair/A's circuit is open and its key rests 10 s (so not even panic mode can use it); B's only
        // key rests 400 ms. No channel can take the request now, but one can in 400 ms: it waits for
        // that rather than answer 503 at once.
        Rig rig;
        const Outcome down = Outcome::local(OutcomeKind::ProviderDown, QStringLiteral("down"));
        for (int i = 0; i < 5; ++i)
            rig.engine.router().record(1, down, 10ms);
        rig.restOnlyKeyOf(1, 10s);
        rig.restOnlyKeyOf(2, 400ms);
        rig.call(QStringLiteral("pair"));
        QCOMPARE(rig.upstream.count(), std::size_t(0));
        QCOMPARE(rig.untilNextTimer(), Clock::Duration(400ms));
        rig.clock.advance(400ms);
        QCOMPARE(rig.upstream.count(), std::size_t(1));
        QCOMPARE(rig.upstream.hostOf(0), QStringLiteral("p2.test"));
        rig.upstream.reply(0, 200, kAnswer);
        QCOMPARE(rig.response->status, 200);
    }

    void anUntriedChannelsRestLongerThanTheMaxWaitIsNotWaitedFor()
    {
        // B rests 10 s, past the 3 s a request is held: the last attempt is A's, and the error names B
        // with the reason it was passed over then, though its rest is over when the error is written.
        Rig rig;
        rig.restOnlyKeyOf(2, 10s);
        rig.call(QStringLiteral("pair"));
        rig.upstream.fail(0, TransferError::ConnectFailed, QStringLiteral("connection refused"));
        for (std::size_t i = 1; i < 3; ++i) {
            rig.upstream.fail(i, TransferError::ConnectFailed, QStringLiteral("connection refused"));
            rig.clock.advance(rig.untilNextTimer()); // a retry's backoff
        }
        QCOMPARE(rig.upstream.count(), std::size_t(4));
        QCOMPARE(rig.upstream.hostOf(3), QStringLiteral("p1.test"));
        rig.clock.advance(10s); // the attempt hangs until B's key is free again, then fails
        rig.upstream.fail(3, TransferError::ConnectFailed, QStringLiteral("connection refused"));
        QCOMPARE(rig.response->status, 502);
        const QString message = rig.errorBody().value(QStringLiteral("message")).toString();
        QVERIFY2(message.contains(QStringLiteral("pair/B: every API key is cooling down (next in 9.")), qPrintable(message));
        QCOMPARE(rig.records.size(), std::size_t(1));
    }

    void aRetryRefusedByTheBudgetAnswersAtOnceAndSaysWhy()

    {
        Rig rig;
        rig.call(QStringLiteral("solo"));
        // Other requests hold every retry the budget allows (its minimum, 3).
        for (int i = 0; i < 3; ++i)
            QVERIFY(rig.engine.retryBudget().tryStartRetry());
        rig.upstream.reply(0, 503, {});
        // The first failover is free and immediate, even back to the one channel ...
        QCOMPARE(rig.upstream.count(), std::size_t(2));
        rig.upstream.reply(1, 503, {});
        // ... the retry after it waits its backoff, then must win the budget, and is refused.
        rig.clock.advance(rig.untilNextTimer());
        QCOMPARE(rig.upstream.count(), std::size_t(2));
        QCOMPARE(rig.response->status, 502);
        QVERIFY(rig.errorBody().value(QStringLiteral("message")).toString().contains(QStringLiteral("retry budget is exhausted")));
        QCOMPARE(rig.engine.counters().retryBudgetRefusals.load(), std::uint64_t(1));
        QCOMPARE(rig.clock.pendingTimers(), 0);
        for (int i = 0; i < 3; ++i)
            rig.engine.retryBudget().retryFinished();
        QCOMPARE(rig.engine.retryBudget().stats().retriesInFlight, 0);
    }

    void aMalformed200IsAProviderFailureThatFailsOverUnseen()
    {
        Rig rig;
        rig.call(QStringLiteral("pair"));
        // A 200 without choices: not an answer, so not the client's answer.
        rig.upstream.reply(0, 200, R"({"id":"c0","object":"chat.completion","created":1,"model":"m"})");
        QCOMPARE(rig.upstream.count(), std::size_t(2));
        rig.upstream.reply(1, 200, kAnswer);
        QCOMPARE(rig.response->status, 200);
        QVERIFY(rig.response->body.contains(R"("content":"hi")"));
        QCOMPARE(rig.response->headers.value("x-switchboard-failover"), QByteArray("true"));
        const AttemptRecord &failed = rig.records.at(0).attempts.at(0);
        QCOMPARE(failed.outcome, OutcomeKind::ProviderDown);
        QCOMPARE(failed.httpStatus, 200);
        QVERIFY2(failed.message.contains(QStringLiteral("without choices")), qPrintable(failed.message));
        // It counts against the channel like a 5xx would.
        bool seen = false;
        for (const ChannelSnapshot &c : rig.engine.router().snapshots()) {
            if (c.channelId != failed.channelId)
                continue;
            seen = true;
            QCOMPARE(c.calls30s, std::uint64_t(1));
            QCOMPARE(c.errorRate30s, 1.0);
        }
        QVERIFY(seen);
    }

    void anEmptyStreamFailsOverBeforeTheClientSeesAByte()
    {
        Rig rig;
        rig.call(QStringLiteral("pair"), true);
        rig.upstream.streamHead(0);
        rig.upstream.data(0, kRoleChunk); // held: nothing of the answer yet
        QVERIFY(!rig.response->streamed);
        rig.upstream.data(0, "data: [DONE]\n\n"); // and nothing ever came
        QCOMPARE(rig.upstream.count(), std::size_t(2));
        QVERIFY(!rig.response->streamed);
        rig.upstream.streamHead(1);
        rig.upstream.data(1, kChunk);
        rig.upstream.data(1, kLastChunk);
        QCOMPARE(rig.response->status, 200);
        QVERIFY(!rig.response->body.contains("empty1")); // the first attempt's role chunk never went out
        QVERIFY(rig.response->body.contains(R"("content":"hel")"));
        QVERIFY(rig.response->body.endsWith("data: [DONE]\n\n"));
        QCOMPARE(rig.records.at(0).attempts.at(0).outcome, OutcomeKind::ProviderDown);
        QCOMPARE(rig.records.at(0).status, RequestStatus::Ok);
    }

    void aDisagreeingFirstEventFailsOverInsteadOfReachingTheClientAsA400()
    {
        Rig rig;
        rig.call(QStringLiteral("pair"), true);
        rig.upstream.streamHead(0);
        rig.upstream.data(0, kRoleChunk);
        rig.upstream.data(0, R"(data: {"error":{"message":"The server is overloaded.","type":"server_overloaded","code":"invalid_request_error"}})"
                             "\n\n");
        QCOMPARE(rig.upstream.count(), std::size_t(2));
        rig.upstream.streamHead(1);
        rig.upstream.data(1, kChunk);
        rig.upstream.data(1, kLastChunk);
        QCOMPARE(rig.response->status, 200);
        QVERIFY(!rig.response->body.contains("server_overloaded"));
        QCOMPARE(rig.records.at(0).attempts.at(0).outcome, OutcomeKind::ProviderDown);
    }

    void anAnthropicStreamWithNothingInItFailsOverUnseen()
    {
        // Events that carry nothing (a block opened empty, a ping, a delta without a stop reason)
        // must not let the held role chunk out: only content or a finish does.
        EngineConfig config = baseConfig();
        for (ProviderConfig &p : config.providers)
            p.dialect = QStringLiteral("anthropic");
        Rig rig(config);
        rig.call(QStringLiteral("pair"), true);
        const auto event = [](const char *name, const QByteArray &data) { return QByteArray("event: ") + name + "\ndata: " + data + "\n\n"; };
        rig.upstream.streamHead(0);
        rig.upstream.data(0, event("message_start", R"({"type":"message_start","message":{"id":"msg_empty","model":"m","usage":{"input_tokens":3}}})")
                                 + event("content_block_start", R"({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}})")
                                 + event("ping", R"({"type":"ping"})")
                                 + event("content_block_stop", R"({"type":"content_block_stop","index":0})")
                                 + event("message_delta", R"({"type":"message_delta","delta":{"stop_reason":null},"usage":{"output_tokens":0}})"));
        QVERIFY(!rig.response->streamed);
        rig.upstream.data(0, event("message_stop", R"({"type":"message_stop"})"));
        QCOMPARE(rig.upstream.count(), std::size_t(2));
        QVERIFY(!rig.response->streamed);
        rig.upstream.streamHead(1);
        rig.upstream.data(1, event("message_start", R"({"type":"message_start","message":{"id":"msg_full","model":"m","usage":{"input_tokens":3}}})")
                                 + event("content_block_delta", R"({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}})")
                                 + event("message_delta", R"({"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":1}})")
                                 + event("message_stop", R"({"type":"message_stop"})"));
        QCOMPARE(rig.response->status, 200);
        QVERIFY(!rig.response->body.contains("msg_empty"));
        QVERIFY(rig.response->body.contains("msg_full"));
        QVERIFY(rig.response->body.endsWith("data: [DONE]\n\n"));
        QCOMPARE(rig.records.at(0).attempts.at(0).outcome, OutcomeKind::ProviderDown);
    }

    void aRoleChunkDoesNotMeetTheFirstContentDeadline()
    {
        // The role chunk is no answer: a stream whose content does not come within the deadline
        // (the attempt's budget, 30 s) goes to the fallback, unseen, the role chunk never sent.
        Rig rig;
        rig.call(QStringLiteral("pair"), true);
        rig.upstream.streamHead(0);
        rig.clock.advance(1s);
        rig.upstream.data(0, kRoleChunk);
        rig.clock.advance(29s - 1ms);
        QCOMPARE(rig.upstream.count(), std::size_t(1));
        rig.clock.advance(1ms);
        QVERIFY(rig.upstream.at(0).cancelled);
        QCOMPARE(rig.upstream.count(), std::size_t(2));
        QVERIFY(!rig.response->streamed);
        rig.upstream.streamHead(1);
        rig.upstream.data(1, kChunk);
        rig.upstream.data(1, kLastChunk);
        QCOMPARE(rig.records.at(0).status, RequestStatus::Ok);
        QCOMPARE(rig.records.at(0).attempts.size(), std::size_t(2));
        QCOMPARE(rig.records.at(0).attempts.at(0).phase, OutcomePhase::BeforeFirstByte);
    }

    void theRoleChunkGoesOutWithTheFirstContent()
    {
        Rig rig;
        rig.call(QStringLiteral("pair"), true);
        rig.upstream.streamHead(0);
        rig.upstream.data(0, kRoleChunk);
        QVERIFY(!rig.response->streamed);
        rig.upstream.data(0, kChunk);
        QVERIFY(rig.response->streamed);
        // In the order the provider sent them.
        const qsizetype role = rig.response->body.indexOf("empty1");
        QVERIFY(role >= 0);
        QVERIFY(role < rig.response->body.indexOf(R"("content":"hel")"));
        rig.upstream.data(0, kLastChunk);
        QCOMPARE(rig.upstream.count(), std::size_t(1));
        QCOMPARE(rig.records.at(0).status, RequestStatus::Ok);
    }

    void aClientThatLeavesCancelsTheAttemptAndTheBackoff()
    {
        Rig rig;
        rig.call(QStringLiteral("pair"));
        rig.upstream.reply(0, 503, {});
        rig.upstream.reply(1, 503, {});
        QCOMPARE(rig.clock.pendingTimers(), 1); // the backoff before the retry
        rig.response->clientLeaves();
        rig.clock.advance(10s); // past the backoff: nothing starts
        QCOMPARE(rig.clock.pendingTimers(), 0);
        QCOMPARE(rig.upstream.count(), std::size_t(2));
        QCOMPARE(rig.records.at(0).status, RequestStatus::Cancelled);
        QCOMPARE(rig.engine.retryBudget().stats().retriesInFlight, 0);
    }
};

QTEST_GUILESS_MAIN(tst_ProxyCall)
#include "tst_ProxyCall.moc"
