// The admin API's in-memory event ring: numbered, bounded, paged from an id.
#include "control/EventLog.h"

#include <QtTest>

using namespace sb;

namespace {

HealthEvent poolEvent(int channel, const QString &to)
{
    HealthEvent e;
    e.type = HealthEvent::Type::Pool;
    e.channelId = channel;
    e.to = to;
    return e;
}

} // namespace

class tst_EventLog : public QObject {
    Q_OBJECT

private slots:
    void pagesFromAnId()
    {
        EventLog log(100);
        for (int i = 1; i <= 10; ++i)
            log.append(poolEvent(i, QStringLiteral("drained")));
        QCOMPARE(log.lastSequence(), 10u);
        const auto all = log.since(0, 100);
        QCOMPARE(all.size(), 10u);
        QCOMPARE(all.front().sequence, 1u);
        QCOMPARE(all.front().event.channelId, 1);
        const auto newer = log.since(7, 100);
        QCOMPARE(newer.size(), 3u);
        QCOMPARE(newer.front().sequence, 8u);
        QVERIFY(log.since(10, 100).empty());
        QVERIFY(log.since(1000, 100).empty());
    }

    void limitKeepsTheNewest()
    {
        EventLog log(100);
        for (int i = 1; i <= 10; ++i)
            log.append(poolEvent(i, QStringLiteral("drained")));
        const auto page = log.since(0, 2);
        QCOMPARE(page.size(), 2u);
        QCOMPARE(page.front().sequence, 9u);
        QCOMPARE(page.back().sequence, 10u);
    }

    void capacityDropsTheOldest()
    {
        EventLog log(3);
        for (int i = 1; i <= 5; ++i)
            log.append(poolEvent(i, QStringLiteral("drained")));
        const auto all = log.all();
        QCOMPARE(all.size(), 3u);
        QCOMPARE(all.front().sequence, 3u);
        QCOMPARE(log.since(1, 100).front().sequence, 3u); // ids that fell out are skipped, not repeated
        QCOMPARE(log.since(4, 100).size(), 1u);
    }
};

QTEST_GUILESS_MAIN(tst_EventLog)
#include "tst_EventLog.moc"
