#include "IncidentScenario.h"
#include "MainWindow.h"
#include "pages/OverviewPage.h"

#include <QtTest>
#include <QElapsedTimer>
#include <QThread>
#include <QTimer>

using namespace sb;

namespace {

// Plays the engine's control thread: emits snapshots (and the failover events of that second) from
// its own thread, as Gateway does, at 250× real time.
class SnapshotSource : public QObject {
    Q_OBJECT
public:
    int total = 3600;
    int next = 0;
    test::IncidentScenario scenario;

    void start()
    {
        auto *timer = new QTimer(this);
        timer->setInterval(4);
        connect(timer, &QTimer::timeout, this, [this, timer] {
            if (next >= total) {
                timer->stop();
                return;
            }
            const int s = next++;
            emit snapshotReady(scenario.at(s));
            for (const HealthEvent &event : scenario.eventsAt(s % test::IncidentScenario::kSeconds)) {
                HealthEvent shifted = event;
                shifted.wallMillis += std::int64_t(s / test::IncidentScenario::kSeconds) * test::IncidentScenario::kSeconds * 1000;
                emit healthEvent(shifted);
            }
        });
        timer->start();
    }

signals:
    void snapshotReady(const sb::MetricsSnapshot &snapshot);
    void healthEvent(const sb::HealthEvent &event);
};

} // namespace

class tst_ConsoleResponsiveness : public QObject {
    Q_OBJECT
private slots:
    // An hour of snapshots at the content 1,000 req/s produces (4 channels, a full incident with
    // hundreds of failover events), delivered by queued signals from another thread, into a shown
    // window on the 60-minute chart window (the most points to draw). Prints the longest gap the GUI
    // event loop saw; no timed assertion.
    void longestEventLoopStallUnderAnHourOfSnapshots()
    {
        qRegisterMetaType<sb::MetricsSnapshot>();
        qRegisterMetaType<sb::HealthEvent>();
        MainWindow window;
        window.resize(1400, 860);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.overviewPage()->setWindowSeconds(3600);

        QThread thread;
        SnapshotSource source;
        source.moveToThread(&thread);
        connect(&source, &SnapshotSource::snapshotReady, &window, &MainWindow::applySnapshot, Qt::QueuedConnection);
        connect(&source, &SnapshotSource::healthEvent, &window, &MainWindow::addEvent, Qt::QueuedConnection);

        QElapsedTimer clock;
        qint64 last = 0, longest = 0;
        QTimer heartbeat;
        heartbeat.setTimerType(Qt::PreciseTimer);
        heartbeat.setInterval(1);
        connect(&heartbeat, &QTimer::timeout, this, [&] {
            const qint64 now = clock.nsecsElapsed();
            longest = std::max(longest, now - last);
            last = now;
        });
        clock.start();
        heartbeat.start();
        thread.start();
        QMetaObject::invokeMethod(&source, &SnapshotSource::start, Qt::QueuedConnection);

        const OverviewPage::Stats &stats = window.overviewPage()->stats();
        QTRY_COMPARE_WITH_TIMEOUT(stats.snapshots, std::uint64_t(source.total), 300'000);
        QTRY_VERIFY_WITH_TIMEOUT(stats.redraws > 0, 5000);
        const double seconds = clock.elapsed() / 1000.0;
        heartbeat.stop();
        thread.quit();
        thread.wait();

        qInfo("%llu snapshots + %llu failover events in %.1f s (%.0f× real time), %llu redraws; "
              "longest GUI event-loop stall %.1f ms (longest chart update %.1f ms, painting excluded)",
              static_cast<unsigned long long>(stats.snapshots), static_cast<unsigned long long>(stats.failoverEvents),
              seconds, stats.snapshots / seconds, static_cast<unsigned long long>(stats.redraws), longest / 1e6,
              stats.longestRedrawMicros / 1e3);
        // Batching, not timing: far fewer redraws than snapshots, and every point made it to the chart.
        QVERIFY(stats.redraws < stats.snapshots / 2);
        window.overviewPage()->redrawNow();
        QVERIFY(window.overviewPage()->healthPointCount(1) > 300);
        QVERIFY(window.overviewPage()->healthPointCount(1) <= int(source.total));
    }
};

QTEST_MAIN(tst_ConsoleResponsiveness)
#include "tst_ConsoleResponsiveness.moc"
