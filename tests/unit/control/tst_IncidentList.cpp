// Incidents derived from the event log: open on a trip, ejection or panic; count the failovers away
// from the channel; close only once the breaker is closed and the channel is back in the pool.
#include "control/IncidentList.h"

#include <QtTest>

using namespace sb;

namespace {

class Events {
public:
    Events &add(HealthEvent::Type type, int channel, const QString &from, const QString &to, std::int64_t ms, int fromChannel = 0)
    {
        HealthEvent e;
        e.type = type;
        e.channelId = channel;
        e.channelName = QStringLiteral("ch-%1").arg(channel);
        e.from = from;
        e.to = to;
        e.reason = QStringLiteral("because");
        e.wallMillis = ms;
        e.fromChannelId = fromChannel;
        m_entries.push_back(EventLog::Entry{m_entries.size() + 1, e});
        return *this;
    }
    const std::vector<EventLog::Entry> &entries() const { return m_entries; }

private:
    std::vector<EventLog::Entry> m_entries;
};

using T = HealthEvent::Type;

} // namespace

class tst_IncidentList : public QObject {
    Q_OBJECT

private slots:
    void breakerTripOpensAndRecoveryCloses()
    {
        Events ev;
        ev.add(T::Failover, 2, "ch-1", "ch-2", 100, 1)              // before the trip: not part of it
            .add(T::Breaker, 1, "closed", "open", 200)
            .add(T::Failover, 2, "ch-1", "ch-2", 210, 1)
            .add(T::Failover, 1, "ch-2", "ch-1", 220, 2)            // away from another channel
            .add(T::Breaker, 1, "open", "half_open", 300)
            .add(T::Breaker, 1, "half_open", "closed", 400);
        const auto incidents = deriveIncidents(ev.entries());
        QCOMPARE(incidents.size(), 1u);
        const Incident &i = incidents.front();
        QCOMPARE(i.channelId, 1);
        QCOMPARE(i.id, 2u);
        QCOMPARE(i.openedAtMs, 200);
        QVERIFY(!i.open);
        QCOMPARE(i.closedAtMs, 400);
        QCOMPARE(i.failovers, 1);
        QCOMPARE(i.events, 4); // trip, failover, half-open, close
        QCOMPARE(i.breaker, QStringLiteral("closed"));
    }

    void closedBreakerWhileEjectedStaysOpen()
    {
        Events ev;
        ev.add(T::Breaker, 1, "closed", "open", 100)
            .add(T::Pool, 1, "active", "ejected", 150)
            .add(T::Breaker, 1, "half_open", "closed", 200);
        auto incidents = deriveIncidents(ev.entries());
        QCOMPARE(incidents.size(), 1u);
        QVERIFY(incidents.front().open);
        QCOMPARE(incidents.front().pool, QStringLiteral("ejected"));
        ev.add(T::Pool, 1, "ejected", "active", 300);
        incidents = deriveIncidents(ev.entries());
        QVERIFY(!incidents.front().open);
        QCOMPARE(incidents.front().closedAtMs, 300);
    }

    void drainingByHandIsNoIncident()
    {
        Events ev;
        ev.add(T::Pool, 1, "active", "drained", 100).add(T::Pool, 1, "drained", "active", 200);
        QVERIFY(deriveIncidents(ev.entries()).empty());
    }

    void newestFirstAndPerChannel()
    {
        Events ev;
        ev.add(T::Breaker, 1, "closed", "open", 100)
            .add(T::Breaker, 1, "half_open", "closed", 150)
            .add(T::Panic, 2, "ejected", "ejected", 200)
            .add(T::Breaker, 1, "closed", "open", 300);
        const auto incidents = deriveIncidents(ev.entries());
        QCOMPARE(incidents.size(), 3u);
        QCOMPARE(incidents[0].openedAtMs, 300);
        QVERIFY(incidents[0].open);
        QCOMPARE(incidents[1].channelId, 2);
        QVERIFY(incidents[1].open); // a panic leaves the route without a healthy channel until its channel recovers
        QVERIFY(!incidents[2].open);
    }
};

QTEST_GUILESS_MAIN(tst_IncidentList)
#include "tst_IncidentList.moc"
