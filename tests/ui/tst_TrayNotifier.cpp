#include "FakeClock.h"
#include "TrayNotifier.h"

#include <QtTest>
#include <QAction>
#include <QMenu>
#include <QSettings>
#include <QSignalSpy>
#include <QSystemTrayIcon>
#include <QTemporaryDir>

using namespace sb;
using namespace std::chrono_literals;

namespace {

HealthEvent breaker(int channel, const char *from, const char *to, const QString &reason = QStringLiteral("5 failures in a row"))
{
    HealthEvent e;
    e.type = HealthEvent::Type::Breaker;
    e.channelId = channel;
    e.channelName = QStringLiteral("gpt-4o/%1").arg(channel);
    e.from = QString::fromLatin1(from);
    e.to = QString::fromLatin1(to);
    e.reason = reason;
    return e;
}

HealthEvent pool(int channel, const char *from, const char *to)
{
    HealthEvent e = breaker(channel, from, to, QStringLiteral("score below 30 for 180 s"));
    e.type = HealthEvent::Type::Pool;
    return e;
}

} // namespace

class tst_TrayNotifier : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("SwitchboardTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_TrayNotifier"));
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settingsDir.path());
    }

    void init() { QSettings().remove(QStringLiteral("notifications/muted")); }

    void circuitOpenAndEjectionNotifyOthersDoNot()
    {
        test::FakeClock clock;
        TrayNotifier tray(clock);
        QSignalSpy spy(&tray, &TrayNotifier::notified);
        // Each on its own channel, so the rate limit plays no part.
        tray.addEvent(breaker(1, "closed", "open", QStringLiteral("5 failures in a row; open for 60 s")));
        tray.addEvent(breaker(2, "open", "half_open"));
        tray.addEvent(breaker(3, "half_open", "closed"));
        tray.addEvent(pool(4, "active", "degraded"));
        tray.addEvent(pool(5, "active", "ejected"));
        tray.addEvent(pool(6, "active", "drained")); // a person's own action
        tray.addEvent(pool(7, "ejected", "active"));
        HealthEvent failover = breaker(8, "", "");
        failover.type = HealthEvent::Type::Failover;
        tray.addEvent(failover);
        HealthEvent panic = breaker(9, "", "");
        panic.type = HealthEvent::Type::Panic;
        tray.addEvent(panic);

        QCOMPARE(spy.count(), 2);
        QCOMPARE(spy.at(0).at(0).toString(), QStringLiteral("gpt-4o/1: circuit open"));
        QCOMPARE(spy.at(0).at(1).toString(), QStringLiteral("5 failures in a row; open for 60 s"));
        QCOMPARE(spy.at(1).at(0).toString(), QStringLiteral("gpt-4o/5: ejected from the pool"));
        QCOMPARE(spy.at(1).at(1).toString(), QStringLiteral("score below 30 for 180 s"));
        QCOMPARE(tray.stats().shown, 2);
    }

    void budgetAlertsNotifyEvenBehindAChannelStormAndRespectMute()
    {
        test::FakeClock clock;
        TrayNotifier tray(clock);
        QSignalSpy spy(&tray, &TrayNotifier::notified);
        // A provider outage fills the per-minute cap first.
        for (int channel = 1; channel <= TrayNotifier::kMaxPerMinute + 2; ++channel)
            tray.addEvent(breaker(channel, "closed", "open"));
        QCOMPARE(spy.count(), TrayNotifier::kMaxPerMinute);
        HealthEvent soft;
        soft.type = HealthEvent::Type::Budget;
        soft.channelName = QStringLiteral("gpt-4o");
        soft.from = QStringLiteral("within_budget");
        soft.to = QStringLiteral("over_soft_limit");
        soft.reason = QStringLiteral("route \"gpt-4o\" has spent US$8.01 of its US$8.00 alert limit (daily budget)");
        HealthEvent hard = soft;
        hard.to = QStringLiteral("hard_stop");
        hard.reason = QStringLiteral("route \"gpt-4o\" reached its daily hard limit");
        // The same request can cross both: each says something different, neither is held back.
        tray.addEvent(soft);
        tray.addEvent(hard);
        QCOMPARE(spy.count(), TrayNotifier::kMaxPerMinute + 2);
        QCOMPARE(spy.at(spy.count() - 2).at(0).toString(), QStringLiteral("Route “gpt-4o”: budget alert"));
        QCOMPARE(spy.at(spy.count() - 2).at(1).toString(), soft.reason);
        QCOMPARE(spy.at(spy.count() - 1).at(0).toString(), QStringLiteral("Route “gpt-4o”: budget spent, requests refused"));

        tray.setMuted(true); // the same mute as the channel alerts
        tray.addEvent(soft);
        QCOMPARE(spy.count(), TrayNotifier::kMaxPerMinute + 2);
        QCOMPARE(tray.stats().muted, 1);
    }

    void muteStopsThemAndIsRemembered()
    {
        test::FakeClock clock;
        {
            TrayNotifier tray(clock);
            QSignalSpy spy(&tray, &TrayNotifier::notified);
            QSignalSpy mutedChanged(&tray, &TrayNotifier::mutedChanged);
            tray.muteAction()->trigger(); // the tray menu's toggle
            QVERIFY(tray.isMuted());
            QCOMPARE(mutedChanged.count(), 1);
            tray.addEvent(breaker(1, "closed", "open"));
            tray.addEvent(pool(2, "active", "ejected"));
            QCOMPARE(spy.count(), 0);
            QCOMPARE(tray.stats().muted, 2);
        }
        TrayNotifier next(clock);
        QVERIFY(next.isMuted());
        QVERIFY(next.muteAction()->isChecked());
        QSignalSpy spy(&next, &TrayNotifier::notified);
        next.setMuted(false);
        QVERIFY(!next.muteAction()->isChecked());
        next.addEvent(breaker(1, "closed", "open"));
        QCOMPARE(spy.count(), 1);
    }

    void aFlappingChannelNotifiesOncePerMinute()
    {
        test::FakeClock clock;
        TrayNotifier tray(clock);
        QSignalSpy spy(&tray, &TrayNotifier::notified);
        // Opens every 5 s for 55 s: one notification, ten held back.
        for (int i = 0; i < 12; ++i) {
            tray.addEvent(breaker(1, "half_open", "open"));
            clock.advance(5s);
        }
        QCOMPARE(spy.count(), 1);
        QCOMPARE(tray.stats().rateLimited, 11);
        // Another channel is not held back by the first one's limit.
        tray.addEvent(pool(2, "active", "ejected"));
        QCOMPARE(spy.count(), 2);
        // A minute after the first, the next trip notifies and says how many were held back.
        tray.addEvent(breaker(1, "half_open", "open"));
        QCOMPARE(spy.count(), 3);
        QVERIFY2(spy.at(2).at(1).toString().contains(QStringLiteral("11 more alerts")), qPrintable(spy.at(2).at(1).toString()));
        clock.advance(30s);
        tray.addEvent(breaker(1, "half_open", "open"));
        QCOMPARE(spy.count(), 3);
    }

    void anInstancesAlertsAreNamedAndLimitedApart()
    {
        test::FakeClock clock;
        TrayNotifier tray(clock);
        QSignalSpy spy(&tray, &TrayNotifier::notified);
        const QString instance = QStringLiteral("http://10.0.0.5:8400");
        tray.addEventFrom(instance, breaker(1, "closed", "open"));
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).toString(), QStringLiteral("http://10.0.0.5:8400 — gpt-4o/1: circuit open"));
        QCOMPARE(spy.at(0).at(1).toString(), QStringLiteral("5 failures in a row"));
        // Channel 1 of another instance (here the embedded engine) is another channel: not held back.
        tray.addEvent(breaker(1, "closed", "open"));
        QCOMPARE(spy.count(), 2);
        QCOMPARE(spy.at(1).at(0).toString(), QStringLiteral("gpt-4o/1: circuit open"));
        // The instance's own channel 1 is, within its minute.
        tray.addEventFrom(instance, pool(1, "active", "ejected"));
        QCOMPARE(spy.count(), 2);
        QCOMPARE(tray.stats().rateLimited, 1);
        HealthEvent budget;
        budget.type = HealthEvent::Type::Budget;
        budget.channelName = QStringLiteral("gpt-4o");
        budget.to = QStringLiteral("hard_stop");
        budget.reason = QStringLiteral("spent US$10.00 of US$10.00");
        tray.addEventFrom(instance, budget);
        QCOMPARE(spy.last().at(0).toString(), QStringLiteral("http://10.0.0.5:8400 — Route “gpt-4o”: budget spent, requests refused"));
        tray.setMuted(true);
        tray.addEventFrom(instance, breaker(2, "closed", "open"));
        QCOMPARE(spy.count(), 3);
        QCOMPARE(tray.stats().muted, 1);
    }

    void anOutageOfManyChannelsIsCapped()
    {
        test::FakeClock clock;
        TrayNotifier tray(clock);
        QSignalSpy spy(&tray, &TrayNotifier::notified);
        for (int channel = 1; channel <= 8; ++channel)
            tray.addEvent(breaker(channel, "closed", "open"));
        QCOMPARE(spy.count(), TrayNotifier::kMaxPerMinute);
        clock.advance(61s);
        tray.addEvent(pool(8, "active", "ejected"));
        QCOMPARE(spy.count(), TrayNotifier::kMaxPerMinute + 1);
        QVERIFY(spy.last().at(1).toString().contains(QStringLiteral("1 more alert")));
    }

    void worksWithoutASystemTray()
    {
        test::FakeClock clock;
        TrayNotifier tray(clock);
        // Offscreen there is no tray: no icon, yet the decisions (and the signal) still happen.
        QCOMPARE(tray.showTrayIcon(), QSystemTrayIcon::isSystemTrayAvailable());
        QCOMPARE(tray.hasTrayIcon(), QSystemTrayIcon::isSystemTrayAvailable());
        QSignalSpy spy(&tray, &TrayNotifier::notified);
        tray.addEvent(breaker(1, "closed", "open"));
        QCOMPARE(spy.count(), 1);
        QVERIFY(tray.menu());
        QVERIFY(tray.menu()->actions().contains(tray.muteAction()));
    }

private:
    QTemporaryDir m_settingsDir;
};

QTEST_MAIN(tst_TrayNotifier)
#include "tst_TrayNotifier.moc"
