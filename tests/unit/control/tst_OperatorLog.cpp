// The log's lines for what the engine did on its own: one per circuit transition, pool change and
// key event, keys masked; failovers and panic choices summarised per route at most once a window,
// on the engine's clock (here a FakeClock, so every window is driven by the test).
#include "control/OperatorLog.h"

#include "FakeClock.h"
#include "common/Logging.h"
#include "common/SecretMask.h"
#include "routing/KeyRing.h"

#include <QtTest>

using namespace sb;
using namespace std::chrono_literals;
using test::FakeClock;

namespace {

HealthEvent channelEvent(HealthEvent::Type type, const char *from, const char *to, const char *reason)
{
    HealthEvent e;
    e.type = type;
    e.channelId = 1;
    e.channelName = QStringLiteral("gpt-4o/A");
    e.from = QString::fromLatin1(from);
    e.to = QString::fromLatin1(to);
    e.reason = QString::fromLatin1(reason);
    return e;
}

HealthEvent failover(const char *route, const char *from, const char *to, const char *cause)
{
    HealthEvent e;
    e.type = HealthEvent::Type::Failover;
    e.route = QString::fromLatin1(route);
    e.from = QString::fromLatin1(from);
    e.to = QString::fromLatin1(to);
    e.channelName = e.to;
    e.cause = QString::fromLatin1(cause);
    e.reason = QStringLiteral("attempt on %1 failed (%2); tier 0").arg(e.from, e.cause);
    return e;
}

// The log lines written since the test began (init() starts a fresh ring).
QStringList lines()
{
    return recentLogLines(2000);
}

QStringList linesAbout(const QString &text)
{
    return lines().filter(text);
}

} // namespace

class tst_OperatorLog : public QObject {
    Q_OBJECT
private slots:
    void init()
    {
        LoggingOptions options;
        options.toStderr = false;
        options.level = QStringLiteral("info"); // what the headless service runs with
        setupLogging(options);
    }

    void eachCircuitTransitionIsOneLineWithTheChannelAndWhy()
    {
        FakeClock clock;
        OperatorLog log(clock);
        log.note(channelEvent(HealthEvent::Type::Breaker, "closed", "open", "5 failures in a row"));
        log.note(channelEvent(HealthEvent::Type::Breaker, "open", "half_open", "open for 60 s"));
        log.note(channelEvent(HealthEvent::Type::Breaker, "half_open", "closed", "3 successes in a row"));
        const QStringList written = lines();
        QCOMPARE(written.size(), 3);
        QVERIFY2(written[0].contains(QStringLiteral("warn")), qPrintable(written[0]));
        QVERIFY(written[0].endsWith(QStringLiteral("channel gpt-4o/A: circuit open (was closed): 5 failures in a row")));
        QVERIFY2(written[1].contains(QStringLiteral("info")), qPrintable(written[1]));
        QVERIFY(written[1].endsWith(QStringLiteral("channel gpt-4o/A: circuit half-open (was open): open for 60 s")));
        QVERIFY(written[2].contains(QStringLiteral("info")));
        QVERIFY(written[2].endsWith(QStringLiteral("channel gpt-4o/A: circuit closed (was half-open): 3 successes in a row")));
    }

    void ejectionsAndReadmissionsAreOneLineEach()
    {
        FakeClock clock;
        OperatorLog log(clock);
        log.note(channelEvent(HealthEvent::Type::Pool, "active", "degraded", "score 42 < 50"));
        log.note(channelEvent(HealthEvent::Type::Pool, "degraded", "ejected", "score below 30 for 180 s"));
        log.note(channelEvent(HealthEvent::Type::Pool, "ejected", "active", "2 heartbeats in a row succeeded"));
        log.note(channelEvent(HealthEvent::Type::Pool, "active", "drained", "drained by an operator"));
        const QStringList written = lines();
        QCOMPARE(written.size(), 4);
        QVERIFY(written[0].contains(QStringLiteral("warn")));
        QVERIFY(written[0].endsWith(QStringLiteral("channel gpt-4o/A: degraded (was active): score 42 < 50")));
        QVERIFY(written[1].contains(QStringLiteral("warn")));
        QVERIFY(written[1].endsWith(QStringLiteral("channel gpt-4o/A: ejected from the pool (was degraded): score below 30 for 180 s")));
        QVERIFY(written[2].contains(QStringLiteral("info")));
        QVERIFY2(written[2].endsWith(QStringLiteral("channel gpt-4o/A: re-admitted to the pool as active (was ejected): "
                                                    "2 heartbeats in a row succeeded")),
                 qPrintable(written[2]));
        QVERIFY(written[3].endsWith(QStringLiteral("channel gpt-4o/A: drained from the pool (was active): drained by an operator")));
    }

    void aMisconfiguredChannelIsOneWarningWithWhatToFixAndItsClearingOneInfoLine()
    {
        FakeClock clock;
        OperatorLog log(clock);
        log.note(channelEvent(HealthEvent::Type::Pool, "active", "misconfigured",
                              "Check the base URL of provider primary: POST http://127.0.0.1:9/v1/chat/completions answered "
                              "HTTP 404 '404 Not Found' (no such endpoint)"));
        log.note(channelEvent(HealthEvent::Type::Pool, "misconfigured", "active", "a heartbeat succeeded"));
        const QStringList written = lines();
        QCOMPARE(written.size(), 2);
        QVERIFY(written[0].contains(QStringLiteral("warn")));
        QVERIFY2(written[0].endsWith(QStringLiteral("channel gpt-4o/A: misconfigured, out of the pool until fixed (was active): "
                                                    "Check the base URL of provider primary: POST http://127.0.0.1:9/v1/chat/completions "
                                                    "answered HTTP 404 '404 Not Found' (no such endpoint)")),
                 qPrintable(written[0]));
        QVERIFY(written[1].contains(QStringLiteral("info")));
        QVERIFY2(written[1].endsWith(QStringLiteral("channel gpt-4o/A: re-admitted to the pool as active (was misconfigured): "
                                                    "a heartbeat succeeded")),
                 qPrintable(written[1]));
    }

    void keyCoolDownsAndDisablesSayHowLongAndWhyWithTheKeyMasked()
    {
        FakeClock clock;
        OperatorLog log(clock);
        auto events = std::make_shared<EventDispatcher>();
        events->setSink([&log](const HealthEvent &e) { log.note(e); });
        const std::vector<ApiKeyConfig> keys = {ApiKeyConfig{1, QStringLiteral("team"), QStringLiteral("sk-team-SECRETVALUE-0001aaaa"), true, {}},
                                                ApiKeyConfig{2, QStringLiteral("spare"), QStringLiteral("sk-spare-SECRETVALUE-0002bbbb"), true, {}}};
        KeyRing ring(clock, keys);
        ring.setEvents(events, 7, QStringLiteral("openai-main"));

        ring.reportRateLimited(1, std::nullopt);
        ring.reportRateLimited(1, std::nullopt); // still cooling: no news, no line
        ring.reportAuthError(2, QStringLiteral("HTTP 401: invalid api key"));
        clock.advance(1s);
        ring.reportRateLimited(1, std::chrono::milliseconds(14000), "x-ratelimit-reset-requests"); // the length and where it came from
        QStringList written = lines();
        QCOMPARE(written.size(), 3);
        QVERIFY2(written[2].endsWith(QStringLiteral("keys: openai-main key 'team' (%1) got a 429, cooling for 14.0 s "
                                                    "(the provider's hint, x-ratelimit-reset-requests)")
                                         .arg(maskSecret(keys[0].secret))),
                 qPrintable(written[2]));
        written.removeLast();
        QVERIFY(written[0].contains(QStringLiteral("info")));
        QVERIFY2(written[0].endsWith(QStringLiteral("keys: openai-main key 'team' (%1) got a 429, cooling for 1.0 s (no hint from the provider: the default)")
                                         .arg(maskSecret(keys[0].secret))),
                 qPrintable(written[0]));
        QVERIFY(written[1].contains(QStringLiteral("warn")));
        QVERIFY2(written[1].endsWith(QStringLiteral("keys: openai-main key 'spare' (%1) disabled: HTTP 401: invalid api key")
                                         .arg(maskSecret(keys[1].secret))),
                 qPrintable(written[1]));

        // The last enabled key gone: the provider gets no traffic, and the line says so.
        ring.reportAuthError(1, QStringLiteral("HTTP 403: key revoked"));
        QVERIFY2(lines().last().contains(QStringLiteral("no enabled key is left, so openai-main gets no traffic until a key is fixed")),
                 qPrintable(lines().last()));
        const QString all = lines().join(QLatin1Char('\n'));
        for (const auto &k : keys)
            QVERIFY2(!all.contains(k.secret), "a secret reached the log");
    }

    void aKeylessProviderRefusingForWantOfAKeyIsCalledMisconfiguredEveryTenMinutesAtMost()
    {
        FakeClock clock;
        KeyRing ring(clock, {});
        ring.setEvents(std::make_shared<EventDispatcher>(), 3, QStringLiteral("local-anthropic"));
        for (int i = 0; i < 5; ++i)
            ring.reportAuthError(0, QStringLiteral("HTTP 401: x-api-key header is required"));
        QStringList written = linesAbout(QStringLiteral("misconfigured"));
        QCOMPARE(written.size(), 1);
        QVERIFY(written[0].contains(QStringLiteral("warn")));
        QVERIFY2(written[0].contains(QStringLiteral("provider local-anthropic is misconfigured: it refused a request "
                                                    "(HTTP 401: x-api-key header is required) and has no API key")),
                 qPrintable(written[0]));
        clock.advance(9min);
        ring.reportAuthError(0, QStringLiteral("HTTP 401"));
        QCOMPARE(linesAbout(QStringLiteral("misconfigured")).size(), 1);
        clock.advance(1min);
        ring.reportAuthError(0, QStringLiteral("HTTP 401"));
        QCOMPARE(linesAbout(QStringLiteral("misconfigured")).size(), 2);
    }

    void theFirstFailoverOfAQuietRouteIsWrittenAtOnceTheRestSummarised()
    {
        FakeClock clock;
        OperatorLog log(clock);
        log.start();
        log.note(failover("gpt-4o", "A", "B", "PROVIDER_DOWN, HTTP 503"));
        QCOMPARE(lines().size(), 1);
        QVERIFY(lines()[0].contains(QStringLiteral("warn")));
        QVERIFY2(lines()[0].endsWith(QStringLiteral("route gpt-4o: failover from A to B (PROVIDER_DOWN, HTTP 503); "
                                                    "further failovers of this route are summarised every 10 s")),
                 qPrintable(lines()[0]));

        // Twelve more in the next nine seconds: counted, not written, however many requests fail over.
        for (int second = 0; second < 9; ++second) {
            log.note(failover("gpt-4o", "A", "B", "PROVIDER_DOWN, HTTP 503"));
            if (second % 3 == 0)
                log.note(failover("gpt-4o", "A", "B", "PROVIDER_DOWN, HTTP 503"));
            clock.advance(1s);
        }
        QCOMPARE(lines().size(), 1);
        clock.advance(1s); // ten seconds after the first line
        QCOMPARE(lines().size(), 2);
        QVERIFY2(lines()[1].endsWith(QStringLiteral("route gpt-4o: 12 failover(s) from A to B in the last 10 s (PROVIDER_DOWN, HTTP 503)")),
                 qPrintable(lines()[1]));
    }

    void aRouteGetsAtMostOneLineAWindowAndEachRouteItsOwn()
    {
        FakeClock clock;
        OperatorLog log(clock);
        log.start();
        // 40 seconds of failovers on two routes, several a second, some to a second channel.
        std::vector<int> secondsOfLines;
        int seen = 0;
        for (int second = 0; second < 40; ++second) {
            for (int i = 0; i < 5; ++i)
                log.note(failover("gpt-4o", "A", i == 4 ? "C" : "B", i == 4 ? "TIMEOUT" : "PROVIDER_DOWN, HTTP 502"));
            log.note(failover("claude", "X", "Y", "CONNECT_FAILED"));
            clock.advance(1s);
            const QStringList written = linesAbout(QStringLiteral("route gpt-4o:"));
            for (; seen < written.size(); ++seen)
                secondsOfLines.push_back(second);
        }
        // The first at once, then one every ten seconds: never two within a window.
        QCOMPARE(secondsOfLines, (std::vector<int>{0, 9, 19, 29, 39}));
        // The first window: the 49 after the one written at once, to two channels.
        const QStringList gpt = linesAbout(QStringLiteral("route gpt-4o:"));
        QVERIFY2(gpt[1].endsWith(QStringLiteral("route gpt-4o: 49 failover(s) in the last 10 s: 39 from A to B (PROVIDER_DOWN, HTTP 502), "
                                                "10 from A to C (TIMEOUT)")),
                 qPrintable(gpt[1]));
        QCOMPARE(linesAbout(QStringLiteral("route claude:")).size(), 5);
        QVERIFY(linesAbout(QStringLiteral("route claude:"))[1].endsWith(
            QStringLiteral("route claude: 9 failover(s) from X to Y in the last 10 s (CONNECT_FAILED)")));
    }

    void aQuietWindowEndsTheSummaryAndTheNextFailoverIsNewsAgain()
    {
        FakeClock clock;
        OperatorLog log(clock);
        log.start();
        log.note(failover("gpt-4o", "A", "B", "TIMEOUT"));
        clock.advance(30s); // nothing more: no summary line for an empty window
        QCOMPARE(lines().size(), 1);
        log.note(failover("gpt-4o", "A", "B", "TIMEOUT"));
        QCOMPARE(lines().size(), 2);
        QVERIFY(lines()[1].contains(QStringLiteral("route gpt-4o: failover from A to B (TIMEOUT); further failovers")));
    }

    void panicChoicesAreSummarisedLikeFailovers()
    {
        FakeClock clock;
        OperatorLog log(clock);
        log.start();
        for (int i = 0; i < 8; ++i) {
            HealthEvent e = channelEvent(HealthEvent::Type::Panic, "ejected", "ejected",
                                         "every channel of \"gpt-4o\" is out of the pool or open; using the least bad one (score 12)");
            e.route = QStringLiteral("gpt-4o");
            log.note(e);
        }
        QCOMPARE(lines().size(), 1);
        QVERIFY2(lines()[0].contains(QStringLiteral("route gpt-4o: panic mode, every channel of \"gpt-4o\" is out of the pool or open; "
                                                    "using the least bad one (score 12); further panic choices")),
                 qPrintable(lines()[0]));
        clock.advance(10s);
        QCOMPARE(lines().size(), 2);
        QVERIFY2(lines()[1].endsWith(QStringLiteral("route gpt-4o: 7 request(s) in panic mode in the last 10 s, every channel out "
                                                    "of the pool or open (used: gpt-4o/A 7 time(s))")),
                 qPrintable(lines()[1]));
    }

    void stoppingWritesWhatTheOpenWindowsCounted()
    {
        FakeClock clock;
        OperatorLog log(clock);
        log.start();
        log.note(failover("gpt-4o", "A", "B", "TIMEOUT"));
        log.note(failover("gpt-4o", "A", "B", "TIMEOUT"));
        clock.advance(3s);
        log.stop();
        QCOMPARE(lines().size(), 2);
        QVERIFY2(lines()[1].endsWith(QStringLiteral("route gpt-4o: 1 failover(s) from A to B in the last 3 s (TIMEOUT)")),
                 qPrintable(lines()[1]));
        QCOMPARE(clock.pendingTimers(), 0);
    }

    void budgetEventsAreLeftToTheProxy()
    {
        FakeClock clock;
        OperatorLog log(clock);
        HealthEvent e;
        e.type = HealthEvent::Type::Budget;
        e.reason = QStringLiteral("route gpt-4o reached its soft limit");
        log.note(e);
        QCOMPARE(lines(), QStringList()); // ProxyCall writes "budget: …" where it counts the spend
    }
};

QTEST_GUILESS_MAIN(tst_OperatorLog)
#include "tst_OperatorLog.moc"
