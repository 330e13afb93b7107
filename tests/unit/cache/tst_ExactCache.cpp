// The exact cache's bounds: TTL, least-recently-used eviction by entries and by bytes, the answer
// size limit, and concurrent use from several workers.
#include "FakeClock.h"
#include "cache/ExactCache.h"

#include <QtTest>

#include <thread>

using namespace sb;
using sb::test::FakeClock;
using namespace std::chrono_literals;

namespace {

CachedAnswer answerOf(const QByteArray &text, int copies = 1)
{
    CachedAnswer a;
    a.completion = "{\"choices\":[{\"message\":{\"content\":\"" + text.repeated(copies) + "\"}}]}";
    return a;
}

QByteArray key(int i)
{
    return QByteArray::number(i).rightJustified(32, '0');
}

} // namespace

class tst_ExactCache : public QObject {
    Q_OBJECT
private slots:
    void storesAndFinds()
    {
        FakeClock clock;
        ExactCache cache(clock);
        QVERIFY(!cache.find(key(1)));
        QVERIFY(cache.store(key(1), answerOf("Paris"), 60s));
        const auto hit = cache.find(key(1));
        QVERIFY(hit);
        QVERIFY(hit->completion.contains("Paris"));
        const auto stats = cache.stats();
        QCOMPARE(stats.hits, quint64(1));
        QCOMPARE(stats.misses, quint64(1));
        QCOMPARE(stats.stores, quint64(1));
        QCOMPARE(stats.entries, qint64(1));
        QVERIFY(stats.bytes > 0);
    }

    void expiresAfterTtl()
    {
        FakeClock clock;
        ExactCache cache(clock);
        QVERIFY(cache.store(key(1), answerOf("Paris"), 60s));
        clock.advance(59s);
        QVERIFY(cache.find(key(1)));
        clock.advance(1s);
        QVERIFY(!cache.find(key(1)));
        QCOMPARE(cache.stats().expired, quint64(1));
        QCOMPARE(cache.stats().entries, qint64(0));
        QCOMPARE(cache.stats().bytes, qint64(0));
    }

    void evictsLeastRecentlyUsedByEntries()
    {
        FakeClock clock;
        CacheLimits limits;
        limits.maxEntries = 3;
        ExactCache cache(clock, limits);
        for (int i = 1; i <= 3; ++i)
            QVERIFY(cache.store(key(i), answerOf("a"), 60s));
        QVERIFY(cache.find(key(1))); // 1 is now the most recent; 2 the least
        QVERIFY(cache.store(key(4), answerOf("a"), 60s));
        QVERIFY(cache.find(key(1)));
        QVERIFY(!cache.find(key(2)));
        QVERIFY(cache.find(key(3)));
        QVERIFY(cache.find(key(4)));
        QCOMPARE(cache.stats().evictions, quint64(1));
        QCOMPARE(cache.stats().entries, qint64(3));
    }

    void evictsByBytes()
    {
        FakeClock clock;
        CacheLimits limits;
        const qint64 one = answerOf("x", 1000).bytes() + 32;
        limits.maxBytes = 2 * one + one / 2; // room for two
        ExactCache cache(clock, limits);
        for (int i = 1; i <= 3; ++i)
            QVERIFY(cache.store(key(i), answerOf("x", 1000), 60s));
        QVERIFY(!cache.find(key(1)));
        QVERIFY(cache.find(key(2)));
        QVERIFY(cache.find(key(3)));
        QVERIFY(cache.stats().bytes <= limits.maxBytes);
    }

    void refusesAnswersAboveTheLimit()
    {
        FakeClock clock;
        CacheLimits limits;
        limits.maxAnswerBytes = 500;
        ExactCache cache(clock, limits);
        QVERIFY(!cache.store(key(1), answerOf("x", 1000), 60s));
        QVERIFY(cache.store(key(2), answerOf("x", 10), 60s));
        QCOMPARE(cache.stats().rejected, quint64(1));
        QVERIFY(!cache.find(key(1)));
    }

    void shrinkingTheLimitsEvictsAtOnce()
    {
        FakeClock clock;
        ExactCache cache(clock);
        for (int i = 0; i < 10; ++i)
            QVERIFY(cache.store(key(i), answerOf("a"), 60s));
        CacheLimits limits;
        limits.maxEntries = 4;
        cache.setLimits(limits);
        QCOMPARE(cache.stats().entries, qint64(4));
        QVERIFY(cache.find(key(9)));
        QVERIFY(!cache.find(key(0)));
        limits.maxEntries = 0; // off
        cache.setLimits(limits);
        QVERIFY(!cache.store(key(1), answerOf("a"), 60s));
        QCOMPARE(cache.stats().entries, qint64(0));
    }

    void replacingAnEntryKeepsTheAccountsRight()
    {
        FakeClock clock;
        ExactCache cache(clock);
        QVERIFY(cache.store(key(1), answerOf("a"), 60s));
        const qint64 bytes = cache.stats().bytes;
        QVERIFY(cache.store(key(1), answerOf("b"), 60s));
        QCOMPARE(cache.stats().entries, qint64(1));
        QCOMPARE(cache.stats().bytes, bytes);
        QVERIFY(cache.find(key(1))->completion.contains("\"b\""));
    }

    void concurrentWorkersKeepItConsistent()
    {
        FakeClock clock;
        CacheLimits limits;
        limits.maxEntries = 50;
        ExactCache cache(clock, limits);
        std::vector<std::thread> threads;
        for (int t = 0; t < 4; ++t)
            threads.emplace_back([&cache, t] {
                for (int i = 0; i < 2000; ++i) {
                    const QByteArray k = key((i * 7 + t) % 120);
                    if (!cache.find(k))
                        cache.store(k, answerOf("v"), std::chrono::seconds(60));
                }
            });
        for (auto &t : threads)
            t.join();
        const auto stats = cache.stats();
        QVERIFY(stats.entries <= 50);
        QCOMPARE(stats.hits + stats.misses, quint64(8000));
        // Every entry has the same size, so the byte account must match the entry count exactly.
        QCOMPARE(stats.bytes, stats.entries * (answerOf("v").bytes() + 32));
    }
};

QTEST_GUILESS_MAIN(tst_ExactCache)
#include "tst_ExactCache.moc"
