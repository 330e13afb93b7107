#include "FakeClock.h"
#include "HistoryFixture.h"
#include "TestPaths.h"
#include "history/HistoryService.h"
#include "requests/RequestInspector.h"
#include "requests/RequestTableModel.h"
#include "requests/RequestsPage.h"
#include "store/HistoryWriter.h"

#include <QComboBox>
#include <QScrollBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>

using namespace sb;

namespace {

// Secrets that an upstream error might quote back; none may reach the screen.
const QString kKeyA = QStringLiteral("sk-live-ABCDEFGHIJKLMNOP1234");
const QString kKeyB = QStringLiteral("sk-proj-SECRETSECRET9876zz");

constexpr qint64 kStart = test::HistoryFixture::kBaseMs;

RequestRecord request(int i, int channel)
{
    RequestRecord r;
    r.requestId = QStringLiteral("req-%1").arg(i);
    r.timeMs = kStart + i * 1000;
    r.logicalModel = QStringLiteral("gpt-4o");
    r.channelId = channel;
    r.channelName = channel == 1 ? QStringLiteral("gpt-4o/A") : QStringLiteral("gpt-4o/B");
    r.httpStatus = 200;
    r.ttftMs = 180;
    r.latencyMs = 900;
    r.inputTokens = 1200;
    r.outputTokens = 340;
    r.costUsd = 0.0123;
    r.streamed = true;
    r.attempts = {test::HistoryFixture::attempt(channel, OutcomeKind::Success, 200, r.timeMs + 2, 898)};
    return r;
}

// The page at the size of its screenshots, not following live history.
bool showStill(RequestsPage &page)
{
    page.setLive(false);
    page.resize(1100, 700);
    page.show();
    return QTest::qWaitForWindowExposed(&page);
}

} // namespace

class tst_RequestsPage : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_path;
    test::FakeClock m_clock;
    std::unique_ptr<HistoryWriter> m_writer;
    int m_next = 0;

    void write(const RequestRecord &r)
    {
        QVERIFY(m_writer->enqueue(r));
        m_writer->flush();
    }

    void writePlain(int count)
    {
        for (int n = 0; n < count; ++n) {
            const int i = m_next++;
            QVERIFY(m_writer->enqueue(request(i, 1 + i % 2))); // even: channel A, odd: B
        }
        m_writer->flush();
    }

    // The fixture fits in one page: ask for it and look the request up.
    static int rowOf(RequestsPage &page, const QString &requestId)
    {
        RequestTableModel *model = page.model();
        model->data(model->index(0, 0));
        if (!QTest::qWaitFor([&] { return model->record(model->rowCount() - 1) != nullptr; }, 10000))
            return -1;
        for (int row = 0; row < model->rowCount(); ++row) {
            if (model->record(row)->requestId == requestId)
                return row;
        }
        return -1;
    }

private slots:
    void initTestCase()
    {
        QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
        QVERIFY(m_dir.isValid());
        m_path = m_dir.filePath(QStringLiteral("history.db"));
        {
            Database db(m_path, QStringLiteral("fixture"));
            QVERIFY(db.open());
            test::HistoryFixture::addChannels(db);
        }
        m_writer = std::make_unique<HistoryWriter>(m_path, m_clock);
        QVERIFY(m_writer->start());
        writePlain(40);

        // A failover: channel A refused (its error quotes a key), channel B answered.
        RequestRecord failover = request(m_next++, 2);
        failover.requestId = QStringLiteral("req-failover");
        failover.failover = true;
        failover.attempts = {test::HistoryFixture::attempt(1, OutcomeKind::ProviderDown, 503, failover.timeMs + 1, 42,
                                                           QStringLiteral("upstream 503: overloaded (Authorization: Bearer %1)").arg(kKeyA)),
                             test::HistoryFixture::attempt(2, OutcomeKind::Success, 200, failover.timeMs + 45, 850)};
        write(failover);
        // An error the client saw, whose message quotes the key it was sent.
        RequestRecord error = request(m_next++, 1);
        error.requestId = QStringLiteral("req-error");
        error.status = RequestStatus::Error;
        error.outcome = OutcomeKind::AuthError;
        error.httpStatus = 401;
        error.ttftMs = -1;
        error.error = QStringLiteral("Incorrect API key provided: %1").arg(kKeyB);
        error.attempts = {test::HistoryFixture::attempt(1, OutcomeKind::AuthError, 401, error.timeMs + 1, 30, error.error)};
        write(error);
        // A stream the primary cut mid-answer, continued by the fallback.
        RequestRecord continued = request(m_next++, 2);
        continued.requestId = QStringLiteral("req-continued");
        continued.failover = true;
        continued.streamed = true;
        AttemptRecord cut = test::HistoryFixture::attempt(1, OutcomeKind::ProviderDown, 200, continued.timeMs + 1, 300,
                                                          QStringLiteral("the upstream stream ended without its end marker"));
        cut.phase = OutcomePhase::MidStream;
        continued.attempts = {cut, test::HistoryFixture::attempt(2, OutcomeKind::Success, 200, continued.timeMs + 302, 600,
                                                                 QStringLiteral("continued the answer after 41 characters had reached the client"))};
        write(continued);
        writePlain(10);
    }

    void cleanupTestCase() { m_writer.reset(); }

    void inspectorShowsEveryAttempt()
    {
        HistoryService history(m_path);
        RequestsPage page(&history);
        QVERIFY(showStill(page));
        QTRY_COMPARE(page.summaryText(), QStringLiteral("53 requests"));
        const int row = rowOf(page, QStringLiteral("req-failover"));
        QVERIFY(row >= 0);
        page.table()->selectRow(row);
        const QString text = page.inspector()->toPlainText();
        for (const char *expected : {"gpt-4o/A", "gpt-4o/B", "provider down (HTTP 503)", "upstream 503: overloaded", "Time spent",
                                     "answered", "TTFT", "180 ms", "1,200 in · 340 out", "$0.0123", "req-failover", "x-request-id"})
            QVERIFY2(text.contains(QString::fromUtf8(expected)), expected); // UTF-8: "·" is not Latin-1
        QVERIFY(text.contains(QStringLiteral("Attempts (2)")));
        // The table row says it failed over, and by which path.
        QCOMPARE(page.model()->data(page.model()->index(row, RequestTableModel::Failover)).toString(), QStringLiteral("gpt-4o/A → gpt-4o/B"));
        QCOMPARE(page.model()->data(page.model()->index(row, RequestTableModel::Attempts)).toInt(), 2);

        page.table()->scrollTo(page.model()->index(row, 0));
        QTest::qWait(50);
        QVERIFY(page.grab().save(test::artifactPath(QStringLiteral("requests.png"))));
    }

    void aContinuedStreamSaysWhereTheAnswerWasSpliced()
    {
        HistoryService history(m_path);
        RequestsPage page(&history);
        QVERIFY(showStill(page));
        QTRY_VERIFY(rowOf(page, QStringLiteral("req-continued")) >= 0);
        const int row = rowOf(page, QStringLiteral("req-continued"));
        page.table()->selectRow(row);
        const QString text = page.inspector()->toPlainText();
        for (const char *expected : {"after the first byte: the next attempt continued the answer", "without its end marker",
                                     "answered: continued the answer after 41 characters had reached the client"})
            QVERIFY2(text.contains(QString::fromUtf8(expected)), expected);
        page.table()->scrollTo(page.model()->index(row, 0));
        QTest::qWait(50);
        QVERIFY(page.grab().save(test::artifactPath(QStringLiteral("requests-continued-stream.png"))));
    }

    void noKeyTextAnywhere()
    {
        HistoryService history(m_path);
        RequestsPage page(&history);
        page.setLive(false);
        page.show();
        QTRY_COMPARE(page.model()->isCounting(), false);
        for (const QString &id : {QStringLiteral("req-failover"), QStringLiteral("req-error")}) {
            const int row = rowOf(page, id);
            QVERIFY(row >= 0);
            page.table()->selectRow(row);
            const QString html = page.inspector()->toHtml();
            for (const QString &key : {kKeyA, kKeyB}) {
                QVERIFY2(!html.contains(key), qPrintable(id));
                QVERIFY(!html.contains(key.right(12))); // no long piece of it either
            }
            // The masked form shows which key it was.
            QVERIFY(page.inspector()->toPlainText().contains(QStringLiteral("sk-…")));
            for (int column = 0; column < RequestTableModel::ColumnCount; ++column) {
                for (int role : {int(Qt::DisplayRole), int(Qt::ToolTipRole)}) {
                    const QString value = page.model()->data(page.model()->index(row, column), role).toString();
                    QVERIFY(!value.contains(kKeyA) && !value.contains(kKeyB));
                }
            }
        }
        QVERIFY(page.inspector()->toPlainText().contains(QStringLiteral("Incorrect API key provided: sk-…")));
    }

    void liveTailMovesOnlyAtTheTop()
    {
        HistoryService history(m_path);
        RequestsPage page(&history);
        page.setLive(false);
        page.resize(1000, 400);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        QTRY_COMPARE(page.model()->isCounting(), false);
        const int before = page.model()->rowCount();

        // At the top: new rows go straight in.
        writePlain(2);
        page.checkForNew();
        QTRY_COMPARE(page.model()->rowCount(), before + 2);
        QCOMPARE(page.newRowsText(), QString());
        QTRY_VERIFY(page.model()->record(0) && page.model()->record(0)->requestId == QStringLiteral("req-%1").arg(m_next - 1));

        // Scrolled away: they wait behind the button; the rows under the user stay put.
        page.table()->scrollToBottom();
        QTRY_VERIFY(page.table()->verticalScrollBar()->value() > 0);
        writePlain(3);
        page.checkForNew();
        QTRY_COMPARE(page.newRowsText(), QStringLiteral("3 new ↑"));
        QCOMPARE(page.model()->rowCount(), before + 2);
        page.findChild<QToolButton *>(QStringLiteral("newRows"))->click();
        QCOMPARE(page.model()->rowCount(), before + 5);
        QCOMPARE(page.table()->verticalScrollBar()->value(), 0);
        QCOMPARE(page.newRowsText(), QString());
    }

    void showRequestsFiltersToTheChannelAndRange()
    {
        HistoryService history(m_path);
        RequestsPage page(&history);
        page.setLive(false);
        QTRY_COMPARE(page.model()->isCounting(), false);
        // Requests 0..9 in the first 10 s; channel A answered the even ones.
        page.showRequests(1, kStart, kStart + 10'000);
        QTRY_COMPARE(page.model()->isCounting(), false);
        const int rows = page.model()->rowCount();
        QCOMPARE(rows, 5);
        for (int row = 0; row < rows; ++row) {
            page.model()->data(page.model()->index(row, 0));
            QTRY_VERIFY(page.model()->record(row));
            const RequestRecord *r = page.model()->record(row);
            QVERIFY(r->timeMs >= kStart && r->timeMs < kStart + 10'000);
            QCOMPARE(r->attempts.front().channelId, 1);
        }
        // Channel A touched the failover request (it failed there) though B answered it.
        const qint64 failoverTime = kStart + 40 * 1000;
        page.showRequests(1, failoverTime, failoverTime + 1);
        QTRY_COMPARE(page.model()->isCounting(), false);
        QCOMPARE(page.model()->rowCount(), 1);
        page.showRequests(2, failoverTime, failoverTime + 1);
        QTRY_COMPARE(page.model()->isCounting(), false);
        QCOMPARE(page.model()->rowCount(), 1);
    }

    // Runs last: it adds rows the counts above do not expect.
    void theApiFilterShowsOneFrontDoorsRequests()
    {
        for (const char *api : {"openai_responses", "openai_responses", "anthropic_messages"}) {
            RequestRecord r = request(m_next++, 1);
            r.requestId = QStringLiteral("req-%1-%2").arg(QString::fromLatin1(api)).arg(m_next);
            r.clientApi = QString::fromLatin1(api);
            write(r);
        }
        HistoryService history(m_path);
        RequestsPage page(&history);
        QVERIFY(showStill(page));
        auto *apis = page.findChild<QComboBox *>(QStringLiteral("apiFilter"));
        QVERIFY(apis);
        const int responses = apis->findData(QStringLiteral("openai_responses"));
        QVERIFY(responses >= 0);
        QCOMPARE(apis->itemText(responses), QStringLiteral("OpenAI responses"));
        apis->setCurrentIndex(responses);
        QTRY_COMPARE(page.summaryText(), QStringLiteral("2 requests"));
        page.model()->data(page.model()->index(0, 0));
        QTRY_VERIFY(page.model()->record(0));
        QCOMPARE(page.model()->data(page.model()->index(0, RequestTableModel::Api)).toString(), QStringLiteral("OpenAI responses"));
        page.table()->selectRow(0);
        QVERIFY(page.inspector()->toPlainText().contains(QStringLiteral("OpenAI responses")));
        QTest::qWait(50);
        QVERIFY(page.grab().save(test::artifactPath(QStringLiteral("requests-responses-api.png"))));
    }
};

QTEST_MAIN(tst_RequestsPage)
#include "tst_RequestsPage.moc"
