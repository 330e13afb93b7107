// CostMeter and RouteBudget: the cost of a request from its usage and the price table, unknown
// cost never passing for free, and a route's spend against its budget over UTC days and months.
#include "FakeClock.h"

#include "routing/CostMeter.h"

#include <QDateTime>
#include <QtTest>

using namespace sb;
using namespace std::chrono_literals;

namespace {

qint64 utcMs(int year, int month, int day, int hour, int minute = 0)
{
    return QDateTime(QDate(year, month, day), QTime(hour, minute), Qt::UTC).toMSecsSinceEpoch();
}

std::vector<ModelPrice> prices()
{
    return {ModelPrice{QStringLiteral("gpt-4o"), 2.5, 10.0}, ModelPrice{QStringLiteral("gpt-4o-mini"), 0.15, 0.60},
            ModelPrice{QStringLiteral("claude-3-5-sonnet"), 3.0, 15.0}};
}

BudgetConfig budget(BudgetPeriod period, double soft, double hard)
{
    BudgetConfig b;
    b.model = QStringLiteral("gpt-4o");
    b.period = period;
    b.softLimitUsd = soft;
    b.hardLimitUsd = hard;
    return b;
}

TokenUsage tokens(int prompt, int completion, int cacheRead = -1, int cacheWrite = -1)
{
    TokenUsage u;
    u.promptTokens = prompt;
    u.completionTokens = completion;
    u.cacheReadTokens = cacheRead;
    u.cacheWriteTokens = cacheWrite;
    return u;
}

RequestCost usd(double value)
{
    RequestCost c;
    c.usd = value;
    return c;
}

} // namespace

class tst_CostMeter : public QObject {
    Q_OBJECT
private slots:
    void costIsUsageTimesThePricePerMillion()
    {
        // 1,000 prompt tokens at $2.50/M + 500 completion tokens at $10/M = $0.0025 + $0.005.
        const RequestCost c = CostMeter::cost(prices(), QStringLiteral("gpt-4o"), QStringLiteral("x"), tokens(1000, 500), true);
        QVERIFY(c.known);
        QVERIFY(c.note().isEmpty());
        QVERIFY(qAbs(c.usd - 0.0075) < 1e-12);
        // Embeddings report prompt tokens only.
        const RequestCost e = CostMeter::cost(prices(), QStringLiteral("gpt-4o-mini"), QString(), tokens(2'000'000, -1), true);
        QVERIFY(e.known);
        QVERIFY(qAbs(e.usd - 0.30) < 1e-12);
    }

    void cachedPromptTokensArePricedApart()
    {
        // Claude's published convention as an example: reads at 10% of the input price, writes at 125%.
        ModelPrice claude{QStringLiteral("claude-sonnet-4"), 3.0, 15.0};
        claude.cachedInputUsdPerM = 0.30;
        claude.cacheWriteUsdPerM = 3.75;
        const std::vector<ModelPrice> table{claude};
        // 10,000 prompt tokens of which 8,000 read and 1,000 written; 500 completion tokens:
        // 1,000 × $3 + 8,000 × $0.30 + 1,000 × $3.75 + 500 × $15, per million.
        const RequestCost c = CostMeter::cost(table, QStringLiteral("claude-sonnet-4"), {}, tokens(10'000, 500, 8'000, 1'000), true);
        QVERIFY(c.known);
        QVERIFY(qAbs(c.usd - (3'000.0 + 2'400.0 + 3'750.0 + 7'500.0) / 1e6) < 1e-12);
        const RequestCost full = CostMeter::cost(table, QStringLiteral("claude-sonnet-4"), {}, tokens(10'000, 500), true);
        QVERIFY(c.usd < full.usd); // a cached read is not billed as a full input token
        QVERIFY(qAbs(full.usd - (30'000.0 + 7'500.0) / 1e6) < 1e-12);

        // Unset cache prices are the input price: an old table bills cached prompts as before.
        const RequestCost unsetCost = CostMeter::cost(prices(), QStringLiteral("gpt-4o"), {}, tokens(1000, 500, 800, 100), true);
        QVERIFY(qAbs(unsetCost.usd - 0.0075) < 1e-12);
        // A price of 0 is a price: free reads.
        ModelPrice freeReads{QStringLiteral("gpt-4o"), 2.5, 10.0};
        freeReads.cachedInputUsdPerM = 0.0;
        const RequestCost freeCost = CostMeter::cost({freeReads}, QStringLiteral("gpt-4o"), {}, tokens(1000, 0, 800), true);
        QVERIFY(qAbs(freeCost.usd - 200 * 2.5 / 1e6) < 1e-12);
        // Cache counts larger than the prompt are trusted no further than the prompt.
        const RequestCost odd = CostMeter::cost(table, QStringLiteral("claude-sonnet-4"), {}, tokens(100, 0, 500, 500), true);
        QVERIFY(qAbs(odd.usd - 100 * 0.30 / 1e6) < 1e-12);
    }

    void priceMatchesDatedVersionsCaseAndTheLogicalModel()
    {
        const auto table = prices();
        QCOMPARE(CostMeter::findPrice(table, QStringLiteral("gpt-4o-2024-08-06"), {})->model, QStringLiteral("gpt-4o"));
        // The longest priced prefix wins: a dated mini is priced as mini, not as gpt-4o.
        QCOMPARE(CostMeter::findPrice(table, QStringLiteral("gpt-4o-mini-2024-07-18"), {})->model, QStringLiteral("gpt-4o-mini"));
        QCOMPARE(CostMeter::findPrice(table, QStringLiteral("Claude-3-5-Sonnet"), {})->model, QStringLiteral("claude-3-5-sonnet"));
        QCOMPARE(CostMeter::findPrice(table, QStringLiteral("claude-3-5-sonnet@20240620"), {})->model, QStringLiteral("claude-3-5-sonnet"));
        // A prefix that is not followed by a version separator is another model.
        QVERIFY(!CostMeter::findPrice(table, QStringLiteral("gpt-4omni"), {}));
        // Failing the upstream model, the logical model's price.
        QCOMPARE(CostMeter::findPrice(table, QStringLiteral("my-finetune"), QStringLiteral("gpt-4o-mini"))->model, QStringLiteral("gpt-4o-mini"));
        QVERIFY(!CostMeter::findPrice(table, QStringLiteral("my-finetune"), QStringLiteral("custom")));
    }

    void unknownPriceOrUsageIsUnknownNotFree()
    {
        const RequestCost noPrice = CostMeter::cost(prices(), QStringLiteral("llama-3-70b"), QStringLiteral("llama"), tokens(100, 100), true);
        QVERIFY(!noPrice.known);
        QCOMPARE(noPrice.usd, 0.0);
        QVERIFY2(noPrice.note().contains(QStringLiteral("llama-3-70b")), qPrintable(noPrice.note()));

        const RequestCost noUsage = CostMeter::cost(prices(), QStringLiteral("gpt-4o"), {}, tokens(-1, -1), true);
        QVERIFY(!noUsage.known);
        QVERIFY(noUsage.note().contains(QStringLiteral("usage")));

        // Nothing answered (an error before any byte): nothing was billed.
        const RequestCost failed = CostMeter::cost(prices(), QStringLiteral("gpt-4o"), {}, tokens(-1, -1), false);
        QVERIFY(failed.known);
        QCOMPARE(failed.usd, 0.0);

        CostMeter meter;
        const qint64 now = utcMs(2026, 11, 30, 12);
        meter.record(QStringLiteral("llama"), noPrice, nullptr, now, {});
        meter.record(QStringLiteral("gpt-4o"), usd(0.25), nullptr, now, {});
        QCOMPARE(meter.stats(now).unpricedToday, 1u);
        QCOMPARE(meter.stats(now).todayUsd, 0.25);
    }

    void softAlertOncePerPeriod()
    {
        test::FakeClock clock(utcMs(2026, 11, 29, 10));
        CostMeter meter;
        const BudgetConfig b = budget(BudgetPeriod::Day, 1.0, 0.0);
        const QString route = QStringLiteral("gpt-4o");
        QVERIFY(meter.record(route, usd(0.6), &b, clock.wallMillis(), clock.now()).empty());
        const auto events = meter.record(route, usd(0.6), &b, clock.wallMillis(), clock.now());
        QCOMPARE(events.size(), std::size_t(1));
        QCOMPARE(events[0].type, HealthEvent::Type::Budget);
        QCOMPARE(events[0].to, QStringLiteral("over_soft_limit"));
        QCOMPARE(events[0].channelName, route);
        QCOMPARE(events[0].wallMillis, clock.wallMillis());
        QVERIFY2(events[0].reason.contains(QStringLiteral("US$1.20")), qPrintable(events[0].reason));
        QVERIFY(meter.record(route, usd(0.6), &b, clock.wallMillis(), clock.now()).empty()); // not again today
        QVERIFY(!meter.refusal(route, &b, clock.wallMillis())); // a soft limit never refuses

        clock.advance(24h); // the next day: spend starts from zero and the alert may come again
        QCOMPARE(meter.spent(route, BudgetPeriod::Day, clock.wallMillis()), 0.0);
        QVERIFY(meter.record(route, usd(0.9), &b, clock.wallMillis(), clock.now()).empty());
        QCOMPARE(meter.record(route, usd(0.2), &b, clock.wallMillis(), clock.now()).size(), std::size_t(1));
    }

    void hardStopRefusesUntilThePeriodRollsOver()
    {
        test::FakeClock clock(utcMs(2026, 11, 29, 22));
        CostMeter meter;
        BudgetConfig b = budget(BudgetPeriod::Day, 0.5, 1.0);
        const QString route = QStringLiteral("gpt-4o");
        meter.record(route, usd(0.4), &b, clock.wallMillis(), clock.now());
        QVERIFY(!meter.refusal(route, &b, clock.wallMillis()));
        const auto events = meter.record(route, usd(0.7), &b, clock.wallMillis(), clock.now());
        QCOMPARE(events.size(), std::size_t(2)); // crossed both limits with one request
        QCOMPARE(events[0].to, QStringLiteral("over_soft_limit"));
        QCOMPARE(events[1].to, QStringLiteral("hard_stop"));

        const auto refusal = meter.refusal(route, &b, clock.wallMillis());
        QVERIFY(refusal);
        QVERIFY2(refusal->message.contains(QStringLiteral("daily budget of route \"gpt-4o\"")), qPrintable(refusal->message));
        QVERIFY2(refusal->message.contains(QStringLiteral("2026-11-30 00:00")), qPrintable(refusal->message));
        QCOMPARE(refusal->retryAfterMs, qint64(2 * 3600 * 1000)); // until midnight UTC
        QVERIFY(meter.refusal(QStringLiteral("other-route"), &b, clock.wallMillis()) == std::nullopt);
        QCOMPARE(meter.stats(clock.wallMillis()).refusedToday, 1u);

        // Raising the limit lifts the stop at once.
        BudgetConfig raised = b;
        raised.hardLimitUsd = 5.0;
        QVERIFY(!meter.refusal(route, &raised, clock.wallMillis()));

        clock.advance(1h + 59min);
        QVERIFY(meter.refusal(route, &b, clock.wallMillis()));
        clock.advance(1min); // 00:00 UTC
        QVERIFY(!meter.refusal(route, &b, clock.wallMillis()));
    }

    void monthlyBudgetRollsOverOnTheFirst()
    {
        test::FakeClock clock(utcMs(2026, 12, 31, 23));
        CostMeter meter;
        const BudgetConfig b = budget(BudgetPeriod::Month, 0.0, 10.0);
        const QString route = QStringLiteral("gpt-4o");
        meter.record(route, usd(12.0), &b, clock.wallMillis(), clock.now());
        const auto refusal = meter.refusal(route, &b, clock.wallMillis());
        QVERIFY(refusal);
        QVERIFY(refusal->message.contains(QStringLiteral("monthly")));
        QVERIFY2(refusal->message.contains(QStringLiteral("2027-01-01 00:00")), qPrintable(refusal->message));
        clock.advance(30min);
        QCOMPARE(meter.spent(route, BudgetPeriod::Month, clock.wallMillis()), 12.0);
        clock.advance(30min); // a new month and a new year
        QCOMPARE(meter.spent(route, BudgetPeriod::Month, clock.wallMillis()), 0.0);
        QVERIFY(!meter.refusal(route, &b, clock.wallMillis()));
        // The day total does not carry the month over either.
        QCOMPARE(meter.stats(clock.wallMillis()).todayUsd, 0.0);
    }

    void dayAndMonthSpendAreKeptApart()
    {
        test::FakeClock clock(utcMs(2026, 11, 10, 12));
        CostMeter meter;
        const QString route = QStringLiteral("gpt-4o");
        meter.record(route, usd(1.0), nullptr, clock.wallMillis(), clock.now());
        clock.advance(24h);
        meter.record(route, usd(2.0), nullptr, clock.wallMillis(), clock.now());
        QCOMPARE(meter.spent(route, BudgetPeriod::Day, clock.wallMillis()), 2.0);
        QCOMPARE(meter.spent(route, BudgetPeriod::Month, clock.wallMillis()), 3.0);
    }

    void restoreReadsDayAndMonthBack()
    {
        const qint64 now = utcMs(2026, 11, 30, 15);
        const qint64 dayStart = utcMs(2026, 11, 30, 0);
        const qint64 monthStart = utcMs(2026, 11, 1, 0);
        QList<QPair<QString, qint64>> asked;
        CostMeter meter;
        meter.restore({QStringLiteral("gpt-4o"), QStringLiteral("mini")}, now, [&](const QString &route, qint64 fromMs) {
            asked << qMakePair(route, fromMs);
            if (route.isEmpty())
                return fromMs == dayStart ? 5.0 : 50.0; // every request, including a removed route's
            if (route == u"gpt-4o")
                return fromMs == dayStart ? 3.0 : 30.0;
            return fromMs == dayStart ? 1.0 : 10.0;
        });
        QVERIFY(asked.contains(qMakePair(QStringLiteral("gpt-4o"), dayStart)));
        QVERIFY(asked.contains(qMakePair(QStringLiteral("gpt-4o"), monthStart)));
        QCOMPARE(meter.spent(QStringLiteral("gpt-4o"), BudgetPeriod::Day, now), 3.0);
        QCOMPARE(meter.spent(QStringLiteral("gpt-4o"), BudgetPeriod::Month, now), 30.0);
        QCOMPARE(meter.spent(QStringLiteral("mini"), BudgetPeriod::Month, now), 10.0);
        QCOMPARE(meter.stats(now).todayUsd, 5.0); // 3 + 1 + 1 from the removed route

        // A restored spend already past the hard limit refuses from the first request.
        const BudgetConfig b = budget(BudgetPeriod::Month, 0.0, 25.0);
        QVERIFY(meter.refusal(QStringLiteral("gpt-4o"), &b, now));
    }

    void periodKeysNeverCollide()
    {
        const qint64 t = utcMs(2026, 11, 30, 12);
        QVERIFY(RouteBudget::periodKey(BudgetPeriod::Day, t) != 0);
        QVERIFY(RouteBudget::periodKey(BudgetPeriod::Month, t) != 0);
        QVERIFY(RouteBudget::periodKey(BudgetPeriod::Day, t) != RouteBudget::periodKey(BudgetPeriod::Month, t));
        QCOMPARE(RouteBudget::periodEndMs(BudgetPeriod::Day, t), utcMs(2026, 12, 1, 0));
        QCOMPARE(RouteBudget::periodEndMs(BudgetPeriod::Month, t), utcMs(2026, 12, 1, 0));
        QCOMPARE(RouteBudget::periodEndMs(BudgetPeriod::Month, utcMs(2028, 2, 10, 0)), utcMs(2028, 3, 1, 0));
    }

    void routeSpendReportsEachRouteInItsBudgetsPeriod()
    {
        EngineConfig config;
        for (const char *name : {"gpt-4o", "claude", "mini"}) {
            RouteConfig r;
            r.logicalModel = QString::fromLatin1(name);
            config.routes.push_back(r);
        }
        config.budgets = {budget(BudgetPeriod::Month, 8.0, 10.0)}; // gpt-4o, monthly
        BudgetConfig claude = budget(BudgetPeriod::Day, 1.0, 0.0);
        claude.model = QStringLiteral("claude");
        config.budgets.push_back(claude);

        CostMeter meter;
        const qint64 yesterday = utcMs(2026, 11, 28, 12);
        const qint64 now = utcMs(2026, 11, 29, 12);
        meter.record(QStringLiteral("gpt-4o"), usd(2.0), nullptr, yesterday, {});
        meter.record(QStringLiteral("gpt-4o"), usd(1.12), nullptr, now, {});
        meter.record(QStringLiteral("claude"), usd(0.5), nullptr, yesterday, {});
        meter.record(QStringLiteral("claude"), usd(1.25), nullptr, now, {});

        const std::vector<RouteSpend> spend = meter.routeSpend(config, now);
        QCOMPARE(spend.size(), std::size_t(3));
        QCOMPARE(spend[0].route, QStringLiteral("gpt-4o"));
        QVERIFY(spend[0].hasBudget);
        QCOMPARE(spend[0].period, BudgetPeriod::Month);
        QVERIFY(qAbs(spend[0].spentUsd - 3.12) < 1e-12); // the month holds yesterday too
        QCOMPARE(spend[0].limitUsd(), 10.0);             // measured against the hard stop
        QVERIFY(!spend[0].overSoftLimit());
        QCOMPARE(spend[1].route, QStringLiteral("claude"));
        QCOMPARE(spend[1].period, BudgetPeriod::Day);
        QVERIFY(qAbs(spend[1].spentUsd - 1.25) < 1e-12); // today only
        QCOMPARE(spend[1].limitUsd(), 1.0);               // no hard stop: the alert
        QVERIFY(spend[1].overSoftLimit());
        QVERIFY(!spend[1].hardStopped());
        QCOMPARE(spend[2].route, QStringLiteral("mini")); // no budget, no traffic
        QVERIFY(!spend[2].hasBudget);
        QCOMPARE(spend[2].spentUsd, 0.0);
        QCOMPARE(spend[2].limitUsd(), 0.0);
    }
};

QTEST_APPLESS_MAIN(tst_CostMeter)
#include "tst_CostMeter.moc"
