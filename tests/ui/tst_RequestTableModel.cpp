#include "FakeClock.h"
#include "HistoryFixture.h"
#include "history/HistoryService.h"
#include "requests/RequestTableModel.h"
#include "store/HistoryWriter.h"

#include <QElapsedTimer>
#include <QHeaderView>
#include <QScrollBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

using namespace sb;

// The Requests table over a real SQLite file with a million rows: the count comes from one query,
// scrolling anywhere fetches a few pages (never the table), filters narrow the count, and rows
// written later through the HistoryWriter reach the top of the list.
class tst_RequestTableModel : public QObject {
    Q_OBJECT
    static constexpr int kRows = 1'000'000;

    QTemporaryDir m_dir;
    QString m_path;

    std::unique_ptr<HistoryService> service() { return std::make_unique<HistoryService>(m_path); }

    static void waitCounted(RequestTableModel &model)
    {
        QTRY_VERIFY_WITH_TIMEOUT(!model.isCounting(), 60000);
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_path = m_dir.filePath(QStringLiteral("history.db"));
        Database db(m_path, QStringLiteral("fixture"));
        QString error;
        QVERIFY2(db.open(&error), qPrintable(error));
        test::HistoryFixture::addChannels(db);
        QElapsedTimer timer;
        timer.start();
        test::HistoryFixture::bulkRequests(db, kRows);
        qInfo("fixture: %d rows in %lld ms", kRows, qlonglong(timer.elapsed()));
    }

    void countsAMillionRowsWithOneQueryAndNoPages()
    {
        auto history = service();
        RequestTableModel model(history.get());
        model.reload();
        waitCounted(model);
        QCOMPARE(model.rowCount(), kRows);
        QCOMPARE(model.stats().countQueries, 1u);
        // Nobody painted a row yet: nothing fetched.
        QCOMPARE(model.stats().pageFetches, 0u);
        QCOMPARE(model.cachedRows(), 0);
    }

    void scrollingToTheMiddleAndEndFetchesOnlyPages()
    {
        auto history = service();
        RequestTableModel model(history.get());
        QTableView view;
        view.resize(900, 600);
        view.verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
        view.verticalHeader()->setDefaultSectionSize(22);
        view.setModel(&model);
        model.reload();
        waitCounted(model);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QTRY_VERIFY_WITH_TIMEOUT(model.record(0) != nullptr, 30000);
        QCOMPARE(model.record(0)->id, qint64(kRows)); // newest first
        const auto afterTop = model.stats();
        QCOMPARE(afterTop.pageFetches, 1u);

        const int middle = kRows / 2;
        view.scrollTo(model.index(middle, 0), QAbstractItemView::PositionAtTop);
        QTRY_VERIFY_WITH_TIMEOUT(model.record(middle) != nullptr, 30000);
        QCOMPARE(model.record(middle)->id, qint64(kRows - middle));
        QCOMPARE(model.data(model.index(middle, RequestTableModel::Model)).toString(),
                 (kRows - middle) % 4 == 0 ? QStringLiteral("gpt-4o-mini") : QStringLiteral("gpt-4o"));

        view.scrollToBottom();
        QTRY_VERIFY_WITH_TIMEOUT(model.record(kRows - 1) != nullptr, 30000);
        QCOMPARE(model.record(kRows - 1)->id, qint64(1));

        // A page or two per place the view stopped at: the screen's rows, never the table.
        const auto stats = model.stats();
        qInfo("pages fetched: %llu, rows fetched: %llu, cached: %d", qulonglong(stats.pageFetches),
              qulonglong(stats.rowsFetched), model.cachedRows());
        QVERIFY(stats.pageFetches <= 6);
        QVERIFY(stats.rowsFetched <= 6u * RequestTableModel::kPageSize);
        QVERIFY(model.cachedRows() <= RequestTableModel::kMaxCachedRows);
    }

    void pagesFollowFromTheNearestLoadedRow()
    {
        // Scrolling down page by page continues from the row above (a cursor), so every page is
        // the next 200 rows: no gap, no repeat.
        auto history = service();
        RequestTableModel model(history.get());
        model.reload();
        waitCounted(model);
        for (int page = 0; page < 3; ++page) {
            const int row = page * RequestTableModel::kPageSize;
            model.data(model.index(row, 0));
            QTRY_VERIFY_WITH_TIMEOUT(model.record(row) != nullptr, 30000);
        }
        for (int row = 0; row < 3 * RequestTableModel::kPageSize; ++row)
            QCOMPARE(model.record(row)->id, qint64(kRows - row));
        QCOMPARE(model.stats().pageFetches, 3u);
    }

    void filtersNarrowTheCount_data()
    {
        QTest::addColumn<int>("which");
        QTest::addColumn<int>("expected");
        QTest::newRow("model gpt-4o-mini") << 0 << 250'000;
        QTest::newRow("tried channel 1 (answered or failed over from)") << 1 << 500'000;
        QTest::newRow("tried channel 2") << 2 << 600'000;
        QTest::newRow("errors") << 3 << 40'000;
        QTest::newRow("failed over") << 4 << 100'000;
        QTest::newRow("time range") << 5 << 1000;
    }

    void filtersNarrowTheCount()
    {
        QFETCH(int, which);
        QFETCH(int, expected);
        HistoryReader::RequestQuery filter;
        switch (which) {
        case 0: filter.logicalModel = QStringLiteral("gpt-4o-mini"); break;
        case 1: filter.attemptChannelId = 1; break;
        case 2: filter.attemptChannelId = 2; break;
        case 3: filter.status = RequestStatus::Error; break;
        case 4: filter.failoverOnly = true; break;
        case 5:
            filter.fromMs = test::HistoryFixture::kBaseMs + 1001 * test::HistoryFixture::kStepMs;
            filter.toMs = test::HistoryFixture::kBaseMs + 2001 * test::HistoryFixture::kStepMs;
            break;
        }
        auto history = service();
        RequestTableModel model(history.get());
        model.setFilter(filter);
        waitCounted(model);
        QCOMPARE(model.rowCount(), expected);
        // The rows shown match the filter too.
        model.data(model.index(0, 0));
        QTRY_VERIFY_WITH_TIMEOUT(model.record(0) != nullptr, 30000);
        for (int row = 0; row < std::min(expected, int(RequestTableModel::kPageSize)); ++row) {
            const RequestRecord *r = model.record(row);
            QVERIFY(r);
            switch (which) {
            case 0: QCOMPARE(r->logicalModel, QStringLiteral("gpt-4o-mini")); break;
            case 1: QVERIFY(r->channelId == 1 || r->attempts.front().channelId == 1); break;
            case 3: QCOMPARE(r->status, RequestStatus::Error); break;
            case 4: QVERIFY(r->failover); break;
            case 5: QVERIFY(r->id >= 1001 && r->id <= 2000); break;
            default: break;
            }
        }
    }

    void staleAnswersAreDropped()
    {
        // Five filter changes before the history thread answers: only the last one is shown.
        auto history = service();
        RequestTableModel model(history.get());
        QSignalSpy counted(&model, &RequestTableModel::counted);
        HistoryReader::RequestQuery filter;
        for (const char *name : {"a", "b", "c", "d", "gpt-4o-mini"}) {
            filter.logicalModel = QString::fromLatin1(name);
            model.setFilter(filter);
        }
        waitCounted(model);
        QTRY_COMPARE(counted.size(), 1);
        QCOMPARE(model.rowCount(), 250'000);
        QVERIFY(history->stats().superseded >= 1);
    }

    // Last: it adds rows to the shared file.
    void liveRowsWrittenByTheHistoryWriterReachTheTop()
    {
        auto history = service();
        RequestTableModel model(history.get());
        model.reload();
        waitCounted(model);
        model.data(model.index(0, 0));
        QTRY_VERIFY_WITH_TIMEOUT(model.record(0) != nullptr, 30000);

        test::FakeClock clock;
        HistoryWriter writer(m_path, clock);
        QVERIFY(writer.start());
        for (int i = 0; i < 3; ++i) {
            RequestRecord r;
            r.requestId = QStringLiteral("live-%1").arg(i);
            r.timeMs = test::HistoryFixture::kBaseMs + (kRows + 100 + i) * test::HistoryFixture::kStepMs;
            r.logicalModel = QStringLiteral("gpt-4o");
            r.channelId = 1;
            r.channelName = QStringLiteral("gpt-4o/A");
            r.attempts = {test::HistoryFixture::attempt(1, OutcomeKind::Success, 200, r.timeMs, 250)};
            QVERIFY(writer.enqueue(r));
        }
        writer.flush();

        QSignalSpy fresh(&model, &RequestTableModel::newRowsAvailable);
        model.checkForNew();
        QTRY_COMPARE(fresh.size(), 1);
        QCOMPARE(fresh.front().front().toLongLong(), 3);
        QCOMPARE(model.rowCount(), kRows); // nothing moves until the page accepts them
        model.acceptNew();
        QCOMPARE(model.rowCount(), kRows + 3);
        QCOMPARE(model.stats().rowsInserted, 3u);
        model.data(model.index(0, 0));
        QTRY_VERIFY_WITH_TIMEOUT(model.record(0) && model.record(0)->requestId == QStringLiteral("live-2"), 30000);
        QTRY_VERIFY_WITH_TIMEOUT(model.data(model.index(3, 0), RequestTableModel::IdRole).toLongLong() == kRows, 30000);
        writer.stop();
    }
};

QTEST_MAIN(tst_RequestTableModel)
#include "tst_RequestTableModel.moc"
