#include "FakeClock.h"
#include "HistoryFixture.h"
#include "TestPaths.h"
#include "history/HistoryService.h"
#include "incidents/IncidentTableModel.h"
#include "incidents/IncidentsPage.h"
#include "requests/RequestTableModel.h"
#include "requests/RequestsPage.h"
#include "store/HistoryWriter.h"

#include <QDateTime>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

using namespace sb;

namespace {

EventRecord transition(qint64 t, int channel, const QString &name, const char *from, const char *to)
{
    EventRecord e;
    e.timeMs = t;
    e.kind = EventKind::CircuitTransition;
    e.channelId = channel;
    e.fromState = QString::fromLatin1(from);
    e.toState = QString::fromLatin1(to);
    // Each transition with its own reason, as the breaker words them: a close does not repeat the trip's.
    const QString reason = e.toState == QLatin1String("open") ? QStringLiteral("5 consecutive failures; open for 60 s")
        : e.toState == QLatin1String("half_open") ? QStringLiteral("open duration of 60 s elapsed; admitting at most 3 trial calls")
                                                  : QStringLiteral("3 consecutive successful trial calls");
    e.message = QStringLiteral("%1: circuit %2 → %3 (%4)").arg(name, e.fromState, e.toState, reason);
    return e;
}

} // namespace

// The Incidents page over a real history file: events written by the HistoryWriter become
// incidents with the requests they touched counted, and "Show requests" hands the Requests page
// exactly those requests.
class tst_IncidentsPage : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_path;
    qint64 m_t0 = 0; // an hour ago: the page shows the last 24 h of the real clock

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
        m_t0 = QDateTime::currentMSecsSinceEpoch() - 3600 * 1000;
        test::FakeClock clock(m_t0 + 3600 * 1000);
        HistoryWriter writer(m_path, clock);
        QVERIFY(writer.start());
        const QString a = QStringLiteral("gpt-4o/A"), b = QStringLiteral("gpt-4o/B");
        // Channel A: open at +10 s, half-open at +40 s, closed at +45 s. Channel B: open at +100 s, still.
        for (const EventRecord &e : {transition(m_t0 + 10'000, 1, a, "closed", "open"), transition(m_t0 + 40'000, 1, a, "open", "half_open"),
                                     transition(m_t0 + 45'000, 1, a, "half_open", "closed"), transition(m_t0 + 100'000, 2, b, "closed", "open")})
            QVERIFY(writer.enqueue(e));
        EventRecord failover;
        failover.timeMs = m_t0 + 12'000;
        failover.kind = EventKind::Failover;
        failover.channelId = 2;
        failover.message = QStringLiteral("failover to gpt-4o/B (503)");
        QVERIFY(writer.enqueue(failover));
        // A route's budget alert, as EngineHost stores it: no channel, kind "budget".
        EventRecord budget;
        budget.timeMs = m_t0 + 50'000;
        budget.kind = EventKind::Budget;
        budget.fromState = QStringLiteral("within_budget");
        budget.toState = QStringLiteral("over_soft_limit");
        budget.message = QStringLiteral("budget: route \"gpt-4o\" has spent US$8.01 of its US$8.00 alert limit (daily budget)");
        QVERIFY(writer.enqueue(budget));

        // During A's incident: 5 requests failed over from A to B, 2 failed on A. Before and after:
        // requests on A that the incident did not touch.
        int n = 0;
        const auto add = [&](qint64 t, bool viaFailover, bool error) {
            RequestRecord r;
            r.requestId = QStringLiteral("r%1").arg(n++);
            r.timeMs = t;
            r.logicalModel = QStringLiteral("gpt-4o");
            r.channelId = viaFailover ? 2 : 1;
            r.channelName = viaFailover ? b : a;
            r.failover = viaFailover;
            r.status = error ? RequestStatus::Error : RequestStatus::Ok;
            if (viaFailover)
                r.attempts = {test::HistoryFixture::attempt(1, OutcomeKind::ProviderDown, 503, t, 30),
                              test::HistoryFixture::attempt(2, OutcomeKind::Success, 200, t + 30, 400)};
            else
                r.attempts = {test::HistoryFixture::attempt(1, error ? OutcomeKind::ProviderDown : OutcomeKind::Success, error ? 503 : 200, t, 300)};
            QVERIFY(writer.enqueue(r));
        };
        for (int i = 0; i < 5; ++i)
            add(m_t0 + 11'000 + i * 1000, true, false);
        add(m_t0 + 20'000, false, true);
        add(m_t0 + 21'000, false, true);
        add(m_t0 + 5'000, false, false);
        add(m_t0 + 60'000, false, false);
        writer.flush();
        writer.stop();
    }

    void budgetAlertsAreListedApartFromIncidents()
    {
        HistoryService history(m_path);
        IncidentsPage page(&history);
        QTRY_VERIFY(page.loads() >= 1);
        QCOMPARE(page.model()->rowCount(), 2); // the alert is not a channel incident
        const QString text = page.budgetAlertsText();
        QVERIFY2(text.contains(QStringLiteral("Budget alerts · 1 in this range")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("ALERT")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("route \"gpt-4o\" has spent US$8.01 of its US$8.00 alert limit")), qPrintable(text));
        QVERIFY(!text.contains(QStringLiteral("budget: "))); // the stored prefix is not repeated
        for (int r = 0; r < page.model()->rowCount(); ++r)
            for (const EventRecord &e : page.model()->incident(r)->events)
                QVERIFY(e.kind != EventKind::Budget);
    }

    void eventsBecomeIncidentsWithTheirRequests()
    {
        HistoryService history(m_path);
        IncidentsPage page(&history);
        QSignalSpy open(&page, &IncidentsPage::openIncidentsChanged);
        page.resize(1100, 700);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        QTRY_VERIFY(page.loads() >= 1);
        IncidentTableModel *model = page.model();
        QCOMPARE(model->rowCount(), 2);
        QCOMPARE(open.size(), 1);
        QCOMPARE(open.front().front().toInt(), 1);

        const Incident *b = model->incident(0); // newest first
        QCOMPARE(b->channelName, QStringLiteral("gpt-4o/B"));
        QVERIFY(b->isOpen());
        QCOMPARE(model->data(model->index(0, IncidentTableModel::Status)).toString(), QStringLiteral("● open"));

        const Incident *a = model->incident(1);
        QCOMPARE(a->channelName, QStringLiteral("gpt-4o/A"));
        QCOMPARE(a->startMs, m_t0 + 10'000);
        QCOMPARE(a->endMs, m_t0 + 45'000);
        QCOMPARE(model->data(model->index(1, IncidentTableModel::Duration)).toString(), QStringLiteral("35 s"));
        QCOMPARE(model->data(model->index(1, IncidentTableModel::Worst)).toString(), QStringLiteral("open"));
        QCOMPARE(a->affectedRequests, 7);
        QCOMPARE(a->failedRequests, 2);
        QCOMPARE(a->failovers, 5);
        QCOMPARE(model->data(model->index(1, IncidentTableModel::Affected)).toString(), QStringLiteral("7"));

        page.table()->selectRow(1);
        const QString details = page.detailsText();
        QVERIFY(details.contains(QStringLiteral("resolved after 35 s")));
        QVERIFY(details.contains(QStringLiteral("gpt-4o/A: circuit closed → open")));
        QVERIFY(details.contains(QStringLiteral("7 requests touched it, 2 failed, 5 failed over")));
        for (int round = 0; round < 4; ++round) // let the budget list's new height reach the layout
            QCoreApplication::processEvents(QEventLoop::ExcludeUserInputEvents);
        QVERIFY(page.grab().save(test::artifactPath(QStringLiteral("incidents.png"))));
    }

    void showRequestsHandsTheRequestsPageThatIncident()
    {
        HistoryService history(m_path);
        IncidentsPage incidents(&history);
        RequestsPage requests(&history);
        requests.setLive(false);
        connect(&incidents, &IncidentsPage::showRequestsRequested, &requests, &RequestsPage::showRequests);
        QSignalSpy asked(&incidents, &IncidentsPage::showRequestsRequested);
        QTRY_VERIFY(incidents.loads() >= 1);
        incidents.table()->selectRow(1);
        incidents.findChild<QPushButton *>(QStringLiteral("showRequests"))->click();
        QCOMPARE(asked.size(), 1);
        QCOMPARE(asked.front().at(0).toInt(), 1);
        QCOMPARE(asked.front().at(1).toLongLong(), m_t0 + 10'000);
        QCOMPARE(asked.front().at(2).toLongLong(), m_t0 + 45'001);
        QTRY_VERIFY(!requests.model()->isCounting() && requests.model()->filter().attemptChannelId == 1);
        QCOMPARE(requests.model()->rowCount(), 7);
    }

    void emptyHistorySaysSo()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("empty.db"));
        {
            Database db(path, QStringLiteral("fixture"));
            QVERIFY(db.open());
        }
        HistoryService history(path);
        IncidentsPage page(&history);
        QTRY_VERIFY(page.loads() >= 1);
        QCOMPARE(page.model()->rowCount(), 0);
        QVERIFY(page.findChild<QLabel *>(QStringLiteral("incidentSummary"))->text().startsWith(QStringLiteral("No incidents")));
    }
};

QTEST_MAIN(tst_IncidentsPage)
#include "tst_IncidentsPage.moc"
