// A value read through each thread's own handle: every read is the value as set (or the one before,
// for a reader that has not looked since), and every copy keeps what it was taken from, whatever
// the snapshot, the thread or the other readers do afterwards. Under the debug preset's ASan a
// copy that did not keep its value fails here as a use after free.

#include "common/ThreadSnapshot.h"

#include <QtTest>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

using namespace sb;

namespace {
// A value whose parts say which value it is, so a read of a freed or half-made one shows.
struct Numbered {
    explicit Numbered(int id) : id(id), copies(64, id) {}
    bool whole(int expected) const
    {
        if (id != expected)
            return false;
        for (int copy : copies)
            if (copy != id)
                return false;
        return true;
    }
    int id;
    std::vector<int> copies;
};

std::shared_ptr<const Numbered> numbered(int id)
{
    return std::make_shared<const Numbered>(id);
}
} // namespace

class tst_ThreadSnapshot : public QObject {
    Q_OBJECT

private slots:
    void readsTheValueLastSetAndCopiesKeepTheirs()
    {
        ThreadSnapshot<Numbered> snapshot(numbered(1));
        const auto first = snapshot.get();
        QVERIFY(first->whole(1));
        QCOMPARE(snapshot.current().get(), first.get());
        snapshot.set(numbered(2));
        const auto second = snapshot.get();
        QVERIFY(second->whole(2));
        QVERIFY(first->whole(1)); // the first value, released by the snapshot and this thread's handle
        QCOMPARE(snapshot.latest().get(), second.get());
    }

    void anEmptyValueReadsAsNull()
    {
        ThreadSnapshot<Numbered> snapshot;
        QVERIFY(!snapshot.get());
        snapshot.set(numbered(3));
        QVERIFY(snapshot.get()->whole(3));
        snapshot.set(nullptr);
        QVERIFY(!snapshot.get());
        QVERIFY(!snapshot.current());
    }

    void copiesOutliveTheSnapshot()
    {
        std::shared_ptr<const Numbered> kept;
        {
            ThreadSnapshot<Numbered> snapshot(numbered(4));
            kept = snapshot.get();
        }
        QVERIFY(kept->whole(4));
        // A snapshot made afterwards, perhaps where the last one lived, never reads the last one's value.
        ThreadSnapshot<Numbered> next(numbered(5));
        QVERIFY(next.get()->whole(5));
        QVERIFY(kept->whole(4));
    }

    void twoSnapshotsOfOneTypeReadAlternatelyEachGiveTheirOwn()
    {
        ThreadSnapshot<Numbered> a(numbered(6));
        ThreadSnapshot<Numbered> b(numbered(7));
        for (int round = 0; round < 3; ++round) {
            QVERIFY(a.get()->whole(6));
            QVERIFY(b.get()->whole(7));
        }
        b.set(numbered(8));
        QVERIFY(a.get()->whole(6));
        QVERIFY(b.get()->whole(8));
    }

    void aCopyOutlivesTheThreadThatTookIt()
    {
        ThreadSnapshot<Numbered> snapshot(numbered(9));
        std::shared_ptr<const Numbered> fromThread;
        std::thread([&] { fromThread = snapshot.get(); }).join(); // its handle went with it
        snapshot.set(numbered(10));
        QVERIFY(fromThread->whole(9));
        QVERIFY(snapshot.get()->whole(10));
    }

    // Readers keep the copy of their previous turn while one thread sets new values under them:
    // every copy is whole, and no reader ever goes back to a value older than one it has seen.
    void readersSeeWholeValuesWhileTheyChange()
    {
        ThreadSnapshot<Numbered> snapshot(numbered(0));
        std::atomic<bool> stop{false};
        std::atomic<int> wrong{0}, reads{0};
        std::vector<std::thread> readers;
        for (int t = 0; t < 3; ++t) {
            readers.emplace_back([&] {
                auto kept = snapshot.get();
                while (!stop.load()) {
                    const auto now = snapshot.get();
                    if (!kept->whole(kept->id) || !now->whole(now->id) || now->id < kept->id)
                        wrong.fetch_add(1);
                    reads.fetch_add(1);
                    kept = now;
                }
            });
        }
        for (int id = 1; id <= 500; ++id) {
            snapshot.set(numbered(id));
            std::this_thread::yield();
        }
        stop.store(true);
        for (auto &reader : readers)
            reader.join();
        QCOMPARE(wrong.load(), 0);
        QVERIFY(reads.load() > 0);
        QVERIFY(snapshot.get()->whole(500));
    }
};

QTEST_APPLESS_MAIN(tst_ThreadSnapshot)
#include "tst_ThreadSnapshot.moc"
