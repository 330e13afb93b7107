// The semantic cache: the three presets' thresholds, scoping, expiry, the entry limit, the
// brute-force index, and entries surviving a restart in a real SQLite file.
#include "FakeClock.h"
#include "cache/SemanticCache.h"
#include "model/CacheConfig.h"
#include "store/Database.h"

#include <QtTest>
#include <QSqlQuery>
#include <QTemporaryDir>

#include <cmath>

using namespace sb;
using sb::test::FakeClock;
using namespace std::chrono_literals;

namespace {

constexpr int kDim = 16;

// A unit vector at cosine `similarity` from the first axis (in the plane of axes 0 and `axis`).
std::vector<float> at(double similarity, int axis = 1)
{
    std::vector<float> v(kDim, 0.0f);
    v[0] = float(similarity);
    v[std::size_t(axis)] = float(std::sqrt(1.0 - similarity * similarity));
    return v;
}

std::vector<float> axis0(float scale = 1.0f)
{
    std::vector<float> v(kDim, 0.0f);
    v[0] = scale;
    return v;
}

CachedAnswer answer(const QByteArray &text)
{
    CachedAnswer a;
    a.events = {"{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" + text + "\"}}]}"};
    return a;
}

QByteArray text(const std::shared_ptr<const CachedAnswer> &a)
{
    return a ? a->events.at(0) : QByteArray();
}

} // namespace

class tst_SemanticCache : public QObject {
    Q_OBJECT
private slots:
    void presetsAreDocumentedThresholds()
    {
        QCOMPARE(similarityThreshold(SemanticPreset::Strict), 0.97);
        QCOMPARE(similarityThreshold(SemanticPreset::Balanced), 0.93);
        QCOMPARE(similarityThreshold(SemanticPreset::Loose), 0.88);
        SemanticPreset p{};
        QVERIFY(semanticPresetFromString(u"LOOSE", &p));
        QCOMPARE(p, SemanticPreset::Loose);
        QVERIFY(!semanticPresetFromString(u"fuzzy", &p));
    }

    void presetsDecideWhatMatches_data()
    {
        QTest::addColumn<double>("similarity");
        QTest::addColumn<bool>("strict");
        QTest::addColumn<bool>("balanced");
        QTest::addColumn<bool>("loose");
        QTest::newRow("0.99 rewording") << 0.99 << true << true << true;
        QTest::newRow("0.95 paraphrase") << 0.95 << false << true << true;
        QTest::newRow("0.90 same topic") << 0.90 << false << false << true;
        QTest::newRow("0.80 other question") << 0.80 << false << false << false;
    }
    void presetsDecideWhatMatches()
    {
        QFETCH(double, similarity);
        QFETCH(bool, strict);
        QFETCH(bool, balanced);
        QFETCH(bool, loose);
        FakeClock clock;
        SemanticCache cache(clock);
        QVERIFY(cache.store("scope", axis0(3.0f), answer("Paris"), 60s)); // any length: it is normalised
        QCOMPARE(bool(cache.find("scope", at(similarity), similarityThreshold(SemanticPreset::Strict))), strict);
        QCOMPARE(bool(cache.find("scope", at(similarity), similarityThreshold(SemanticPreset::Balanced))), balanced);
        QCOMPARE(bool(cache.find("scope", at(similarity), similarityThreshold(SemanticPreset::Loose))), loose);
    }

    void theClosestEntryAnswers()
    {
        FakeClock clock;
        SemanticCache cache(clock);
        QVERIFY(cache.store("s", at(0.95, 1), answer("near"), 60s));
        QVERIFY(cache.store("s", at(0.99, 2), answer("nearest"), 60s));
        QVERIFY(cache.store("s", at(0.50, 3), answer("far"), 60s));
        const auto hit = cache.find("s", axis0(), 0.9);
        QVERIFY(hit);
        QCOMPARE(text(hit->answer), answer("nearest").events[0]);
        QVERIFY(std::fabs(hit->similarity - 0.99f) < 1e-4f);
    }

    void scopesAreSeparate()
    {
        FakeClock clock;
        SemanticCache cache(clock);
        QVERIFY(cache.store("route-a/system-1", axis0(), answer("a1"), 60s));
        QVERIFY(!cache.find("route-a/system-2", axis0(), 0.5));
        QVERIFY(!cache.find("route-b/system-1", axis0(), 0.5));
        QVERIFY(cache.find("route-a/system-1", axis0(), 0.5));
        // Another embeddings model (another dimension) in the same scope never matches.
        QVERIFY(!cache.find("route-a/system-1", std::vector<float>(8, 1.0f), 0.0));
    }

    void badVectorsAreRefused()
    {
        FakeClock clock;
        SemanticCache cache(clock);
        QVERIFY(!cache.store("s", std::vector<float>(kDim, 0.0f), answer("x"), 60s));
        QVERIFY(!cache.store("s", {}, answer("x"), 60s));
        QVERIFY(!cache.store("s", {NAN, 1.0f}, answer("x"), 60s));
        QVERIFY(!cache.find("s", std::vector<float>(kDim, 0.0f), 0.0));
    }

    void entriesExpire()
    {
        FakeClock clock;
        SemanticCache cache(clock);
        QVERIFY(cache.store("s", axis0(), answer("old"), 60s));
        clock.advance(61s);
        QVERIFY(cache.store("s", at(0.95), answer("new"), 60s));
        // The expired exact match is dropped; the fresh, slightly less similar entry answers.
        const auto hit = cache.find("s", axis0(), 0.9);
        QVERIFY(hit);
        QCOMPARE(text(hit->answer), answer("new").events[0]);
        QCOMPARE(cache.stats().expired, quint64(1));
        QCOMPARE(cache.stats().entries, qint64(1));
    }

    void theOldestEntriesLeaveFirst()
    {
        FakeClock clock;
        SemanticCache cache(clock, 3);
        for (int i = 1; i <= 4; ++i)
            QVERIFY(cache.store("s", at(0.5, i), answer(QByteArray::number(i)), 60s));
        QCOMPARE(cache.stats().entries, qint64(3));
        QCOMPARE(cache.stats().evictions, quint64(1));
        QVERIFY(!cache.find("s", at(0.5, 1), 0.99));
        QVERIFY(cache.find("s", at(0.5, 4), 0.99));
        cache.setMaxEntries(1);
        QCOMPARE(cache.stats().entries, qint64(1));
        QVERIFY(cache.find("s", at(0.5, 4), 0.99));
    }

    void indexRemovalKeepsTheOtherRows()
    {
        SemanticIndex index;
        for (int i = 1; i <= 5; ++i) {
            auto v = at(0.5, i);
            QVERIFY(SemanticIndex::normalise(v));
            index.add("s", i, v);
        }
        index.remove(2); // the last row moves into its place
        index.remove(99);
        QCOMPARE(index.size(), qsizetype(4));
        for (int i : {1, 3, 4, 5}) {
            const auto m = index.best("s", at(0.5, i));
            QVERIFY(m);
            QCOMPARE(m->id, qint64(i));
            QVERIFY(m->similarity > 0.999f);
        }
        QVERIFY(index.best("s", at(0.5, 2))->similarity < 0.5f);
    }

    void entriesSurviveARestart()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("switchboard.db");
        FakeClock clock;
        {
            SemanticCache cache(clock);
            QString error;
            QVERIFY2(cache.open(path, &error), qPrintable(error));
            QVERIFY(cache.store("s", axis0(), answer("kept"), 3600s));
            QVERIFY(cache.store("s", at(0.5, 3), answer("short-lived"), 10s));
            cache.flush();
        }
        clock.advance(60s);
        SemanticCache reopened(clock);
        QString error;
        QVERIFY2(reopened.open(path, &error), qPrintable(error));
        QCOMPARE(reopened.stats().loaded, qint64(1)); // the expired one was dropped at open
        const auto hit = reopened.find("s", axis0(), 0.97);
        QVERIFY(hit);
        QCOMPARE(text(hit->answer), answer("kept").events[0]);
        // New entries get ids after the loaded ones and are written too.
        QVERIFY(reopened.store("s", at(0.5, 4), answer("third"), 3600s));
        reopened.flush();

        Database db(path, QStringLiteral("check"));
        QVERIFY(db.open(&error));
        QSqlQuery q(db.connection());
        QVERIFY(q.exec("SELECT count(*), count(DISTINCT id) FROM semantic_cache"));
        QVERIFY(q.next());
        QCOMPARE(q.value(0).toInt(), 2);
        QCOMPARE(q.value(1).toInt(), 2);
    }

    void evictionsAreDeletedFromTheDatabase()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("switchboard.db");
        FakeClock clock;
        {
            SemanticCache cache(clock, 2);
            QString error;
            QVERIFY2(cache.open(path, &error), qPrintable(error));
            for (int i = 1; i <= 5; ++i)
                QVERIFY(cache.store("s", at(0.5, i), answer("x"), 3600s));
            cache.flush();
        }
        SemanticCache reopened(clock, 10);
        QString error;
        QVERIFY(reopened.open(path, &error));
        QCOMPARE(reopened.stats().loaded, qint64(2));
        QVERIFY(reopened.find("s", at(0.5, 5), 0.99));
        QVERIFY(!reopened.find("s", at(0.5, 1), 0.99));
    }

    void anUnusableDatabaseIsASentence()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("not-a-db");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray(4096, 'x'));
        f.close();
        FakeClock clock;
        SemanticCache cache(clock);
        QString error;
        QVERIFY(!cache.open(path, &error));
        QVERIFY2(!error.isEmpty(), "an error sentence");
        // Still usable in memory.
        QVERIFY(cache.store("s", axis0(), answer("x"), 60s));
        QVERIFY(cache.find("s", axis0(), 0.99));
    }
};

QTEST_GUILESS_MAIN(tst_SemanticCache)
#include "tst_SemanticCache.moc"
