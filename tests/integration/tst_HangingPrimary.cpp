// A primary that accepts connections and never answers, end to end in every upstream dialect, with
// the shipped attempt budgets (30 s primary, 20 s fallback) and the launch-day breaker: a real
// Gateway on a loopback port in front of two of the simulator's providers of one dialect, and real
// HTTP clients. After the primary has answered enough to have a usual time to first token, it
// hangs (the simulator's `hang`); requests already waiting on it count against it once they have
// waited its slow-wait threshold, open its breaker between them, and fail over to the fallback
// before the client sees a byte: seconds, not the 30 s budget (ARCHITECTURE.md, "Defaults and why").
#include "DialectRows.h"
#include "FakeProviderSpecs.h"
#include "ProxyClient.h"
#include "ProxyUnderTest.h"
#include "RequestRecords.h"
#include "StreamText.h"

#include "proxy/EngineContext.h"

#include <QElapsedTimer>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QtTest>

#include <mutex>

using namespace sb;
using namespace sb::sim;
using namespace sb::test;
using namespace std::chrono_literals;

namespace {

constexpr double kHangsFrom = 4.0; // scenario (= real) seconds after the providers started
constexpr int kWarmUpCalls = 12;   // more than HealthConfig::minVolume
constexpr int kWaiting = 5;        // requests in flight when it hangs (the client's connections per host allow 6)

struct Timed {
    Reply reply;
    qint64 elapsedMs = 0;
};

} // namespace

class tst_HangingPrimary : public QObject {
    Q_OBJECT

    SystemClock &m_clock = SystemClock::instance();
    SplitMixRandom m_random{777};
    ProxyUnderTest m_proxy{m_clock, m_random};
    ProxyClient m_client;
    RequestRecords m_records;

    void startPair(const QString &dialect)
    {
        FaultSpec hang;
        hang.type = FaultSpec::Type::Blackout;
        hang.from = kHangsFrom;
        hang.mix = {ErrorMixEntry{SimError::Hang, 1.0}};
        QString error;
        const bool started = m_proxy.startInDialect(dialect, fakeProviderSpec(QStringLiteral("primary"), {hang}),
                                                    fakeProviderSpec(QStringLiteral("fallback")), [](EngineConfig &config) {
                                               // The shipped defaults, where the proxy tests' own differ.
                                               const EngineConfig shipped;
                                               config.breaker = BreakerConfig::launchDay();
                                               config.health = shipped.health;
                                               config.retry = shipped.retry;
                                               for (ProviderConfig &provider : config.providers) {
                                                   provider.connectTimeout = ProviderConfig{}.connectTimeout;
                                                   provider.primaryTimeout = ProviderConfig{}.primaryTimeout;
                                                   provider.fallbackTimeout = ProviderConfig{}.fallbackTimeout;
                                               }
                                           },
                                           &error);
        QVERIFY2(started, qPrintable(error));
        m_records.attach(*m_proxy.gateway);
    }

    std::shared_ptr<ChannelHealth> channel(const QString &name)
    {
        for (const auto &health : m_proxy.gateway->context().router().pool().channels())
            if (health->name() == name)
                return health;
        return nullptr;
    }

    // `count` requests at once, each timed from its send to its last byte.
    std::vector<Timed> concurrently(int count, bool stream)
    {
        QNetworkAccessManager http;
        std::vector<Timed> results(static_cast<std::size_t>(count));
        std::vector<QElapsedTimer> timers(static_cast<std::size_t>(count));
        int done = 0;
        for (int i = 0; i < count; ++i) {
            QNetworkRequest request(QUrl(QStringLiteral("http://127.0.0.1:%1/v1/chat/completions").arg(m_proxy.gateway->port())));
            request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
            request.setTransferTimeout(60'000);
            timers[std::size_t(i)].start();
            QNetworkReply *reply = http.post(request, chatBody(stream));
            connect(reply, &QNetworkReply::finished, this, [&, reply, i] {
                Timed &t = results[std::size_t(i)];
                t.elapsedMs = timers[std::size_t(i)].elapsed();
                t.reply.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
                t.reply.body = reply->readAll();
                for (const auto &[name, value] : reply->rawHeaderPairs())
                    t.reply.headers.insert(name.toLower(), value);
                reply->deleteLater();
                ++done;
            });
        }
        if (!QTest::qWaitFor([&] { return done == count; }, 60'000))
            qWarning("%d of %d requests still unanswered after a minute", count - done, count);
        return results;
    }

    void checkAnsweredByTheFallback(const Reply &reply, bool stream)
    {
        QVERIFY2(reply.status == 200, qPrintable(QStringLiteral("%1 %2").arg(reply.status).arg(QString::fromUtf8(reply.body.left(400)))));
        QCOMPARE(reply.headers.value("x-switchboard-channel"), QByteArray("gpt-4o/B"));
        if (stream) {
            const StreamText text = parseStream(reply.body);
            QVERIFY2(text.done && text.error.isEmpty() && !text.content.isEmpty(), reply.body.left(400).constData());
        } else {
            QCOMPARE(reply.json().value("object").toString(), QStringLiteral("chat.completion"));
        }
    }

private slots:
    void cleanup() { m_proxy.stop(); }

    void waitingRequestsFailOverInSecondsNotTheAttemptBudget_data()
    {
        QTest::addColumn<QString>("dialect");
        QTest::addColumn<bool>("stream");
        for (const QString &dialect : simDialects()) {
            QTest::newRow(qPrintable(dialect + QStringLiteral(", non-stream"))) << dialect << false;
            QTest::newRow(qPrintable(dialect + QStringLiteral(", stream"))) << dialect << true;
        }
    }

    void waitingRequestsFailOverInSecondsNotTheAttemptBudget()
    {
        QFETCH(QString, dialect);
        QFETCH(bool, stream);
        startPair(dialect);
        if (QTest::currentTestFailed())
            return;

        // The primary's usual: answers in milliseconds, learnt by the control tick.
        for (int i = 0; i < kWarmUpCalls; ++i) {
            const Reply reply = m_client.postChat(m_proxy.gateway->port(), chatBody(stream));
            QCOMPARE(reply.status, 200);
            QCOMPARE(reply.headers.value("x-switchboard-channel"), QByteArray("gpt-4o/A"));
        }
        const auto primary = channel(QStringLiteral("gpt-4o/A"));
        QVERIFY(primary);
        QVERIFY2(QTest::qWaitFor([&] { return primary->slowWaitThreshold().has_value(); }, 3000),
                 "the control tick never learnt the primary's usual time to first token");
        QCOMPARE(primary->slowWaitThreshold(), std::optional<Clock::Duration>(2s)); // the floor: it is fast
        QVERIFY2(m_proxy.scenarioClock->now() < kHangsFrom - 0.2,
                 "the warm-up ran into the hang: this machine is too slow for the test's timeline");
        QVERIFY(QTest::qWaitFor([&] { return m_proxy.scenarioClock->now() >= kHangsFrom + 0.05; }, 10'000));
        m_records.clear();

        // Requests in flight on the hung primary: nothing but their waiting counts against it.
        const std::vector<Timed> waiting = concurrently(kWaiting, stream);
        for (const Timed &t : waiting) {
            checkAnsweredByTheFallback(t.reply, stream);
            QCOMPARE(t.reply.headers.value("x-switchboard-failover"), QByteArray("true"));
            // Half the primary's 30 s budget would not have been enough to tell; a timeout takes all of it.
            QVERIFY2(t.elapsedMs < 15'000, qPrintable(QStringLiteral("answered after %1 ms").arg(t.elapsedMs)));
        }
        QCOMPARE(primary->breakerState(), BreakerState::Open);
        QCOMPARE(primary->stats().slowWaits, std::uint64_t(kWaiting));
        {
            // A request is recorded once its answer is out, so the last one may still be on its way.
            QTRY_COMPARE_WITH_TIMEOUT(m_records.all().size(), std::size_t(kWaiting), 3000);
            const std::vector<RequestRecord> records = m_records.all();
            for (const RequestRecord &record : records) {
                QCOMPARE(record.status, RequestStatus::Ok);
                QCOMPARE(record.attempts.size(), std::size_t(2));
                const AttemptRecord &hung = record.attempts.front();
                QCOMPARE(hung.channelName, QStringLiteral("gpt-4o/A"));
                QCOMPARE(hung.outcome, OutcomeKind::Timeout);
                QVERIFY2(hung.message.contains(QStringLiteral("slow-wait threshold")), qPrintable(hung.message));
                QVERIFY2(hung.latencyMs < 15'000, qPrintable(QString::number(hung.latencyMs)));
            }
        }
        // The next request does not go near the primary.
        const Reply next = m_client.postChat(m_proxy.gateway->port(), chatBody(stream));
        checkAnsweredByTheFallback(next, stream);
        QCOMPARE(next.headers.value("x-switchboard-attempts"), QByteArray("1"));
    }
};

QTEST_GUILESS_MAIN(tst_HangingPrimary)
#include "tst_HangingPrimary.moc"
