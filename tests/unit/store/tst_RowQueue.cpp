// RowQueue: first in, first out under any mix of pushes and batch takes (checked against a
// std::deque), and rows that own memory arrive whole after the front has been compacted.
#include "store/RowQueue.h"

#include <QString>
#include <QTest>

#include <deque>
#include <random>
#include <vector>

using namespace sb;

class tst_RowQueue : public QObject {
    Q_OBJECT
private slots:
    void takesRowsInTheOrderTheyCame()
    {
        RowQueue<int> queue;
        std::deque<int> reference;
        std::mt19937 random(7);
        int next = 0;
        for (int round = 0; round < 20'000; ++round) {
            const int pushes = int(random() % 7);
            for (int i = 0; i < pushes; ++i) {
                queue.push_back(next);
                reference.push_back(next++);
            }
            const std::size_t n = std::min<std::size_t>(random() % 9, queue.size());
            std::vector<int> taken = {-1}; // takeInto appends
            queue.takeInto(taken, n);
            QCOMPARE(taken.size(), n + 1);
            for (std::size_t i = 0; i < n; ++i) {
                QCOMPARE(taken[i + 1], reference.front());
                reference.pop_front();
            }
            QCOMPARE(queue.size(), reference.size());
        }
        std::vector<int> rest;
        queue.takeInto(rest, queue.size());
        QCOMPARE(rest, std::vector<int>(reference.begin(), reference.end()));
        QVERIFY(queue.empty());
    }

    void rowsSurviveTheFrontBeingCompacted()
    {
        RowQueue<QString> queue;
        for (int i = 0; i < 10; ++i)
            queue.push_back(QStringLiteral("row %1").arg(i));
        std::vector<QString> taken;
        queue.takeInto(taken, 6); // more than half: the rest moves to the front
        queue.push_back(QStringLiteral("row 10"));
        queue.takeInto(taken, 5);
        QCOMPARE(taken.size(), std::size_t(11));
        for (int i = 0; i < 11; ++i)
            QCOMPARE(taken[std::size_t(i)], QStringLiteral("row %1").arg(i));
        QVERIFY(queue.empty());
    }
};

QTEST_GUILESS_MAIN(tst_RowQueue)
#include "tst_RowQueue.moc"
