// Requests that wait far past their channel's usual time to first token, on FakeClock with no
// sockets (ARCHITECTURE.md, "Defaults and why", slow wait): each counts once against the channel
// while it waits, waiting requests alone open its breaker, and once it is open they move to the
// healthy channel before the client has seen a byte. A slow answer that does come is a success.

#include "ProxyCallDoubles.h"

#include "frontends/openai_chat/ChatRequest.h"
#include "proxy/EngineContext.h"
#include "proxy/ProxyCall.h"

#include "FakeClock.h"
#include "FakeRandom.h"

#include <QJsonArray>
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
using sb::test::ScriptedUpstream;

namespace {

const QByteArray kRoleChunk = R"(data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m",)"
                              R"("choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]})"
                              "\n\n";

constexpr int kWarmUpCalls = 12; // more than HealthConfig::minVolume: enough to learn what usual is

// A primary (A, on p1) tried first and a fallback (B, on p2); the relay breaker (5 in a row open it).
EngineConfig pairConfig()
{
    EngineConfig c;
    c.providers = {sb::test::scriptedProvider(1), sb::test::scriptedProvider(2)};
    c.channels = {ChannelConfig{1, QStringLiteral("pair/A"), 1, QStringLiteral("m"), 1.0, true, {}, {}, {}},
                  ChannelConfig{2, QStringLiteral("pair/B"), 2, QStringLiteral("m"), 1.0, true, {}, {}, {}}};
    RouteConfig r;
    r.id = 1;
    r.logicalModel = QStringLiteral("pair");
    r.channelIds = {1, 2};
    r.strategy = RoutingStrategy::Priority;
    c.routes = {r};
    return c;
}

struct Rig {
    explicit Rig(EngineConfig config = pairConfig())
        : engine(clock, random, std::make_shared<const EngineConfig>(std::move(config)))
    {
        engine.setRequestSink([this](RequestRecord &&record) { records.push_back(std::move(record)); });
    }

    // Starts a call; returns its index in calls/responses.
    std::size_t call(bool stream = false)
    {
        QJsonObject body{{QStringLiteral("model"), QStringLiteral("pair")},
                         {QStringLiteral("messages"), QJsonArray{QJsonObject{{QStringLiteral("role"), QStringLiteral("user")},
                                                                             {QStringLiteral("content"), QStringLiteral("hi")}}}}};
        if (stream)
            body.insert(QStringLiteral("stream"), true);
        ApiError error;
        auto parsed = ChatRequest::parse(QJsonDocument(body).toJson(QJsonDocument::Compact), &error);
        Q_ASSERT(parsed);
        ProxyCall::Input input;
        input.requestId = QStringLiteral("req-%1").arg(calls.size());
        input.body = std::move(parsed->body);
        input.model = QStringLiteral("pair");
        input.stream = stream;
        responses.push_back(std::make_shared<RecordingResponse>());
        calls.push_back(std::make_unique<ProxyCall>(engine, upstream, std::move(input), responses.back(), [](ProxyCall *) {}));
        calls.back()->start();
        return calls.size() - 1;
    }

    // kWarmUpCalls answers from A, `each` apart, then the control tick that learns from them.
    void warmUp(Clock::Duration each = 100ms)
    {
        for (int i = 0; i < kWarmUpCalls; ++i) {
            call();
            clock.advance(each);
            upstream.reply(upstream.count() - 1, 200, kAnswer);
        }
        engine.router().tick();
    }

    std::shared_ptr<ChannelHealth> primary() { return engine.router().pool().channel(1); }
    std::size_t transfersTo(const QString &host) const
    {
        std::size_t n = 0;
        for (std::size_t i = 0; i < upstream.count(); ++i)
            n += upstream.hostOf(i) == host ? 1 : 0;
        return n;
    }

    FakeClock clock;
    FakeRandom random{7};
    EngineContext engine;
    ScriptedUpstream upstream{clock};
    std::vector<std::shared_ptr<RecordingResponse>> responses;
    std::vector<std::unique_ptr<ProxyCall>> calls;
    std::vector<RequestRecord> records;
};

} // namespace

class tst_ProxyCallSlowWait : public QObject {
    Q_OBJECT

private slots:
    void waitingRequestsAloneOpenTheBreakerAndMoveToTheFallback()
    {
        Rig rig;
        rig.warmUp();
        // 3 × a p99 of about 100 ms is far below the floor: the floor, 2 s, is the threshold.
        QCOMPARE(rig.primary()->slowWaitThreshold(), std::optional<Clock::Duration>(2s));
        const std::size_t before = rig.upstream.count();
        for (int i = 0; i < 5; ++i)
            rig.call();
        QCOMPARE(rig.transfersTo(QStringLiteral("p1.test")), std::size_t(kWarmUpCalls + 5));

        rig.clock.advance(2s - 1ms);
        QCOMPARE(rig.primary()->stats().slowWaits, 0u);
        QCOMPARE(rig.upstream.count(), before + 5);

        // All five cross the threshold together: five failures in a row open the relay breaker,
        // with no attempt having timed out (its budget is 30 s).
        rig.clock.advance(1ms);
        QCOMPARE(rig.primary()->stats().slowWaits, 5u);
        QCOMPARE(rig.primary()->breakerState(), BreakerState::Open);
        // The last to cross found the circuit open and moved at once; the others at their next look.
        rig.clock.advance(250ms);
        QCOMPARE(rig.transfersTo(QStringLiteral("p2.test")), std::size_t(5));
        for (std::size_t i = before; i < before + 5; ++i)
            QVERIFY(rig.upstream.at(i).cancelled);
        for (std::size_t i = before + 5; i < rig.upstream.count(); ++i)
            rig.upstream.reply(i, 200, kAnswer);
        for (std::size_t i = kWarmUpCalls; i < rig.responses.size(); ++i) {
            QCOMPARE(rig.responses[i]->status, 200);
            QCOMPARE(rig.responses[i]->headers.value("x-switchboard-channel"), QByteArray("pair/B"));
            QCOMPARE(rig.responses[i]->headers.value("x-switchboard-failover"), QByteArray("true"));
        }
        // One piece of evidence per waiting request: the hedge's own outcome is not counted again.
        const WindowSnapshot window = rig.primary()->window(300s);
        QCOMPARE(window.failures, 5u);
        QCOMPARE(window.calls, std::uint64_t(kWarmUpCalls + 5));
        QCOMPARE(rig.records.size(), std::size_t(kWarmUpCalls + 5));
        QCOMPARE(rig.records.back().attempts.front().outcome, OutcomeKind::Timeout);
        QVERIFY(rig.records.back().attempts.front().message.contains(QStringLiteral("slow-wait threshold 2000 ms")));
        QCOMPARE(rig.clock.pendingTimers(), 0);

        // The next request does not wait at all: the circuit is open.
        rig.call();
        QCOMPARE(rig.upstream.hostOf(rig.upstream.count() - 1), QStringLiteral("p2.test"));
    }

    void aSlowAnswerOnAHealthyChannelCountsOnceAndItsSuccessToo()
    {
        Rig rig;
        rig.warmUp();
        const std::size_t slow = rig.call();
        rig.clock.advance(10s); // far past the threshold, and many looks at the breaker
        QCOMPARE(rig.primary()->stats().slowWaits, 1u);
        QCOMPARE(rig.primary()->breakerState(), BreakerState::Closed);
        QCOMPARE(rig.upstream.count(), std::size_t(kWarmUpCalls + 1)); // no hedge while the channel is not bad
        rig.upstream.reply(rig.upstream.count() - 1, 200, kAnswer);
        QCOMPARE(rig.responses[slow]->status, 200);
        QCOMPARE(rig.responses[slow]->headers.value("x-switchboard-channel"), QByteArray("pair/A"));
        // The evidence stays (an answer 100 times slower than usual is a degraded channel) and the
        // success is recorded as any other, its latency included.
        const WindowSnapshot window = rig.primary()->window(300s);
        QCOMPARE(window.failures, 1u);
        QCOMPARE(window.count(OutcomeKind::Success), std::uint64_t(kWarmUpCalls + 1));
        QCOMPARE(window.latencySamples, std::uint64_t(kWarmUpCalls + 1));
        QCOMPARE(rig.primary()->stats().slowWaits, 1u);
    }

    void aWaitThatEndsInATimeoutIsNotCountedTwice()
    {
        Rig rig;
        rig.warmUp();
        rig.call();
        rig.clock.advance(30s);
        rig.upstream.fail(rig.upstream.count() - 1, TransferError::Timeout, QStringLiteral("Operation timeout after 30000 ms"));
        QCOMPARE(rig.primary()->stats().slowWaits, 1u);
        QCOMPARE(rig.primary()->window(300s).failures, 1u);
        QCOMPARE(rig.upstream.hostOf(rig.upstream.count() - 1), QStringLiteral("p2.test")); // the ordinary failover
    }

    void aStreamsHeldPreambleDoesNotMeetTheFirstContentDeadline()
    {
        Rig rig;
        rig.warmUp();
        const std::size_t before = rig.upstream.count();
        for (int i = 0; i < 5; ++i)
            rig.call(true);
        rig.clock.advance(100ms);
        for (std::size_t i = before; i < before + 5; ++i) {
            rig.upstream.streamHead(i);
            rig.upstream.data(i, kRoleChunk); // the role, then nothing
        }
        rig.clock.advance(1900ms);
        QCOMPARE(rig.primary()->stats().slowWaits, 5u);
        rig.clock.advance(250ms);
        QCOMPARE(rig.transfersTo(QStringLiteral("p2.test")), std::size_t(5));
        for (std::size_t i = kWarmUpCalls; i < rig.responses.size(); ++i)
            QVERIFY(!rig.responses[i]->streamed); // nothing of the stuck streams reached a client
        for (std::size_t i = before + 5; i < rig.upstream.count(); ++i) {
            rig.upstream.streamHead(i);
            rig.upstream.data(i, kChunk);
            rig.upstream.data(i, kLastChunk);
        }
        for (std::size_t i = kWarmUpCalls; i < rig.responses.size(); ++i) {
            QVERIFY(rig.responses[i]->body.endsWith("data: [DONE]\n\n"));
            QCOMPARE(rig.responses[i]->headers.value("x-switchboard-channel"), QByteArray("pair/B"));
        }
    }

    void aStreamWhoseContentComesInTimeIsNotEvidence()
    {
        Rig rig;
        rig.warmUp();
        const std::size_t i = rig.call(true);
        rig.clock.advance(1500ms);
        rig.upstream.streamHead(rig.upstream.count() - 1);
        rig.upstream.data(rig.upstream.count() - 1, kChunk);
        rig.clock.advance(20s); // a long answer after a first token in time is no slow wait
        QCOMPARE(rig.primary()->stats().slowWaits, 0u);
        rig.upstream.data(rig.upstream.count() - 1, kLastChunk);
        QVERIFY(rig.responses[i]->body.endsWith("data: [DONE]\n\n"));
    }

    void aChannelWithNoUsualYetHasNoSlowWait()
    {
        Rig rig; // no warm-up: nothing to be slow relative to; the attempt budget alone decides
        rig.call();
        rig.clock.advance(29s);
        QCOMPARE(rig.primary()->slowWaitThreshold(), std::nullopt);
        QCOMPARE(rig.primary()->stats().slowWaits, 0u);
        QCOMPARE(rig.upstream.count(), std::size_t(1));
    }

};

QTEST_GUILESS_MAIN(tst_ProxyCallSlowWait)
#include "tst_ProxyCallSlowWait.moc"
