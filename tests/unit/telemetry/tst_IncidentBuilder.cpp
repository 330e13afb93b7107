#include "telemetry/IncidentBuilder.h"

#include <QtTest>

using namespace sb;

namespace {

qint64 g_nextId = 1;

EventRecord breaker(qint64 t, int channel, const char *from, const char *to)
{
    EventRecord e;
    e.id = g_nextId++;
    e.timeMs = t;
    e.kind = EventKind::CircuitTransition;
    e.channelId = channel;
    e.fromState = QString::fromLatin1(from);
    e.toState = QString::fromLatin1(to);
    e.message = QStringLiteral("ch%1: circuit %2 → %3 (errors)").arg(channel).arg(e.fromState, e.toState);
    return e;
}

EventRecord pool(qint64 t, int channel, const char *from, const char *to)
{
    EventRecord e = breaker(t, channel, from, to);
    e.kind = QLatin1String(to) == QLatin1String("ejected") || QLatin1String(to) == QLatin1String("drained") ? EventKind::Ejection
        : QLatin1String(from) == QLatin1String("ejected") || QLatin1String(from) == QLatin1String("drained") ? EventKind::Readmission
                                                                                                             : EventKind::Other;
    return e;
}

EventRecord failover(qint64 t, int toChannel)
{
    EventRecord e;
    e.id = g_nextId++;
    e.timeMs = t;
    e.kind = EventKind::Failover;
    e.channelId = toChannel;
    e.message = QStringLiteral("failover to ch%1 (503)").arg(toChannel);
    return e;
}

} // namespace

class tst_IncidentBuilder : public QObject {
    Q_OBJECT
private slots:
    void itKnowsWhatOpenedItAndTheChannelsLastStates()
    {
        const std::vector<EventRecord> events{breaker(1000, 1, "closed", "open"), pool(1500, 1, "active", "ejected"),
                                              breaker(2000, 1, "open", "half_open"), breaker(2500, 1, "half_open", "closed")};
        const auto incidents = IncidentBuilder().build(events);
        QCOMPARE(incidents.size(), std::size_t(1));
        QCOMPARE(incidents[0].cause, QStringLiteral("ch1: circuit closed → open (errors)"));
        QVERIFY(incidents[0].isOpen()); // the breaker closed, but the channel is still out of the pool
        QCOMPARE(incidents[0].breaker, QStringLiteral("closed"));
        QCOMPARE(incidents[0].pool, QStringLiteral("ejected"));
        QCOMPARE(incidents[0].worstState, QStringLiteral("ejected"));
    }

    void oneTripAndRecoveryIsOneIncident()
    {
        const std::vector<EventRecord> events{
            breaker(1000, 1, "closed", "open"), breaker(31'000, 1, "open", "half_open"), breaker(33'000, 1, "half_open", "closed")};
        const auto incidents = IncidentBuilder().build(events, {{1, QStringLiteral("gpt-4o/A")}});
        QCOMPARE(incidents.size(), 1u);
        const Incident &i = incidents.front();
        QCOMPARE(i.channelId, 1);
        QCOMPARE(i.channelName, QStringLiteral("gpt-4o/A"));
        QCOMPARE(i.startMs, 1000);
        QCOMPARE(i.endMs, 33'000);
        QVERIFY(!i.isOpen());
        QCOMPARE(i.durationMs(99'999), 32'000);
        QCOMPARE(i.worstState, QStringLiteral("open"));
        QCOMPARE(i.events.size(), 3u);
        QCOMPARE(i.transitions, 2); // open, half-open; the close ends it
        QCOMPARE(i.affectedRequests, -1); // counted from the requests later, not from events
    }

    void ejectionKeepsItOpenUntilReadmitted()
    {
        // The breaker closes while the pool still holds the channel out: not recovered yet.
        const std::vector<EventRecord> events{breaker(1000, 1, "closed", "open"), pool(2000, 1, "active", "ejected"),
                                              breaker(40'000, 1, "half_open", "closed"), pool(90'000, 1, "ejected", "active")};
        const auto incidents = IncidentBuilder().build(events);
        QCOMPARE(incidents.size(), 1u);
        QCOMPARE(incidents[0].endMs, 90'000);
        QCOMPARE(incidents[0].worstState, QStringLiteral("ejected"));
        QCOMPARE(incidents[0].channelName, QStringLiteral("ch1")); // from the message when no name is given
    }

    void overlappingChannelsAreSeparateIncidents()
    {
        std::vector<EventRecord> events{breaker(1000, 1, "closed", "open"), breaker(5000, 2, "closed", "open"),
                                        failover(6000, 3), breaker(20'000, 1, "open", "closed"), breaker(50'000, 2, "open", "closed")};
        // Arrival order does not matter.
        std::reverse(events.begin(), events.end());
        const auto incidents = IncidentBuilder().build(events);
        QCOMPARE(incidents.size(), 2u);
        // Newest first.
        QCOMPARE(incidents[0].channelId, 2);
        QCOMPARE(incidents[0].startMs, 5000);
        QCOMPARE(incidents[0].endMs, 50'000);
        QCOMPARE(incidents[1].channelId, 1);
        QCOMPARE(incidents[1].startMs, 1000);
        QCOMPARE(incidents[1].endMs, 20'000);
        // A failover into channel 3 is no incident of channel 3.
        for (const Incident &i : incidents)
            QVERIFY(i.channelId != 3);
    }

    void openIncidentAtTheEnd()
    {
        const std::vector<EventRecord> events{breaker(1000, 1, "closed", "open"), breaker(2000, 1, "open", "closed"),
                                              breaker(500'000, 2, "closed", "open"), breaker(530'000, 2, "open", "half_open")};
        const auto incidents = IncidentBuilder().build(events);
        QCOMPARE(incidents.size(), 2u);
        QVERIFY(incidents[0].isOpen());
        QCOMPARE(incidents[0].channelId, 2);
        QCOMPARE(incidents[0].endMs, -1);
        QCOMPARE(incidents[0].durationMs(600'000), 100'000);
        QCOMPARE(incidents[0].worstState, QStringLiteral("open"));
        QVERIFY(!incidents[1].isOpen());
    }

    void flappingWithinTheGapIsOneIncident()
    {
        const std::vector<EventRecord> events{breaker(0, 1, "closed", "open"), breaker(10'000, 1, "open", "closed"),
                                              breaker(40'000, 1, "closed", "open"), breaker(50'000, 1, "open", "closed"),
                                              // Far later: a new incident.
                                              breaker(500'000, 1, "closed", "open"), breaker(510'000, 1, "open", "closed")};
        const auto incidents = IncidentBuilder(IncidentBuilder::Options{60'000}).build(events);
        QCOMPARE(incidents.size(), 2u);
        QCOMPARE(incidents[1].startMs, 0);
        QCOMPARE(incidents[1].endMs, 50'000);
        QCOMPARE(incidents[1].transitions, 2);
        QCOMPARE(incidents[0].startMs, 500'000);
        // With no merge gap the flap is two incidents.
        QCOMPARE(IncidentBuilder(IncidentBuilder::Options{0}).build(events).size(), 3u);
    }

    void degradedCountsAndContextEventsAreKept()
    {
        EventRecord cooldown;
        cooldown.id = g_nextId++;
        cooldown.timeMs = 3000;
        cooldown.kind = EventKind::KeyCooldown;
        cooldown.channelId = 1;
        cooldown.message = QStringLiteral("key #10 cooling down");
        const std::vector<EventRecord> events{pool(1000, 1, "active", "degraded"), cooldown, pool(9000, 1, "degraded", "active")};
        const auto incidents = IncidentBuilder().build(events);
        QCOMPARE(incidents.size(), 1u);
        QCOMPARE(incidents[0].worstState, QStringLiteral("degraded"));
        QCOMPARE(incidents[0].events.size(), 3u);
        QCOMPARE(incidents[0].endMs, 9000);
    }

    void healthyEventsMakeNoIncident()
    {
        EventRecord config;
        config.kind = EventKind::ConfigChange;
        config.timeMs = 5;
        const std::vector<EventRecord> events{config, failover(10, 1), breaker(20, 1, "half_open", "closed")};
        QVERIFY(IncidentBuilder().build(events).empty());
    }

    void budgetAlertsAreNeitherIncidentsNorPartOfOne()
    {
        EventRecord alert;
        alert.kind = EventKind::Budget;
        alert.timeMs = 20;
        alert.fromState = QStringLiteral("within_budget");
        alert.toState = QStringLiteral("hard_stop");
        QVERIFY(IncidentBuilder().build({alert}).empty());
        // Inside a running channel incident it is not that channel's story either, even if a
        // channel id were set on it.
        alert.channelId = 1;
        const auto incidents = IncidentBuilder().build({breaker(10, 1, "closed", "open"), alert});
        QCOMPARE(incidents.size(), 1u);
        QCOMPARE(incidents[0].events.size(), 1u);
    }
};

QTEST_MAIN(tst_IncidentBuilder)
#include "tst_IncidentBuilder.moc"
