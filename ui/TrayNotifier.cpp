#include "TrayNotifier.h"

#include <QAction>
#include <QApplication>
#include <QIcon>
#include <QMenu>
#include <QSettings>
#include <QSystemTrayIcon>

namespace sb {

namespace {
const QString kMutedKey = QStringLiteral("notifications/muted");

// "http://10.0.0.5:8400 — gpt-4o/A: circuit open": the instance first, so a glance tells which.
QString titled(const QString &instance, const QString &title)
{
    return instance.isEmpty() ? title : QStringLiteral("%1 — %2").arg(instance, title);
}
} // namespace

TrayNotifier::TrayNotifier(const Clock &clock, QObject *parent) : QObject(parent), m_clock(clock)
{
    m_muted = QSettings().value(kMutedKey, false).toBool();

    // The menu exists without a tray too, so the mute action can live in other menus.
    m_menu = new QMenu;
    QAction *show = m_menu->addAction(tr("Show console"));
    connect(show, &QAction::triggered, this, &TrayNotifier::showConsoleRequested);
    m_muteAction = m_menu->addAction(tr("Mute notifications"));
    m_muteAction->setObjectName(QStringLiteral("muteNotifications"));
    m_muteAction->setCheckable(true);
    m_muteAction->setChecked(m_muted);
    connect(m_muteAction, &QAction::toggled, this, &TrayNotifier::setMuted);
    m_menu->addSeparator();
    QAction *quit = m_menu->addAction(tr("Quit Switchboard"));
    connect(quit, &QAction::triggered, qApp, &QCoreApplication::quit, Qt::QueuedConnection);
}

TrayNotifier::~TrayNotifier()
{
    delete m_tray;
    delete m_menu; // a QMenu without a parent widget is ours to delete
}

bool TrayNotifier::showTrayIcon()
{
    if (m_tray)
        return true;
    if (!QSystemTrayIcon::isSystemTrayAvailable())
        return false;
    QIcon icon = QApplication::windowIcon();
    if (icon.isNull())
        icon = QIcon(QStringLiteral(":/icons/switchboard.svg"));
    m_tray = new QSystemTrayIcon(icon);
    m_tray->setToolTip(QStringLiteral("Switchboard"));
    m_tray->setContextMenu(m_menu);
    connect(m_tray, &QSystemTrayIcon::activated, this, [this](QSystemTrayIcon::ActivationReason reason) {
        if (reason == QSystemTrayIcon::Trigger || reason == QSystemTrayIcon::DoubleClick)
            emit showConsoleRequested();
    });
    connect(m_tray, &QSystemTrayIcon::messageClicked, this, &TrayNotifier::showConsoleRequested);
    m_tray->show();
    return true;
}

void TrayNotifier::setMuted(bool muted)
{
    if (muted == m_muted)
        return;
    m_muted = muted;
    QSettings().setValue(kMutedKey, muted);
    m_muteAction->setChecked(muted);
    emit mutedChanged(muted);
}

bool TrayNotifier::qualifies(const HealthEvent &event)
{
    if (event.type == HealthEvent::Type::Breaker)
        return event.to == QLatin1String("open");
    // "drained" is a person's own decision; telling them about it would be noise.
    if (event.type == HealthEvent::Type::Pool)
        return event.to == QLatin1String("ejected") || event.to == QLatin1String("misconfigured");
    if (event.type == HealthEvent::Type::Budget)
        return event.to == QLatin1String("over_soft_limit") || event.to == QLatin1String("hard_stop");
    return false;
}

std::optional<TrayNotifier::Notification> TrayNotifier::decide(const HealthEvent &event, const QString &instance)
{
    if (!qualifies(event))
        return std::nullopt;
    if (m_muted) {
        ++m_stats.muted;
        return std::nullopt;
    }
    if (event.type == HealthEvent::Type::Budget) {
        // The engine raises each budget alert at most once per route and period, so there is no
        // storm to limit, and a hard stop held back behind channel alerts would hide why callers
        // get 429s. Not counted against the per-minute cap either.
        Notification n;
        const bool stopped = event.to == QLatin1String("hard_stop");
        n.title = titled(instance, stopped ? tr("Route “%1”: budget spent, requests refused").arg(event.channelName)
                                           : tr("Route “%1”: budget alert").arg(event.channelName));
        n.body = event.reason.isEmpty() ? tr("No reason was given.") : event.reason;
        ++m_stats.shown;
        return n;
    }
    const Clock::TimePoint now = m_clock.now();
    ChannelLimit &limit = m_perChannel[{instance, event.channelId}];
    const bool channelQuiet = !limit.lastShown || now - *limit.lastShown >= kPerChannelInterval;
    while (!m_recent.empty() && now - m_recent.front() >= std::chrono::minutes(1))
        m_recent.pop_front();
    if (!channelQuiet || static_cast<int>(m_recent.size()) >= kMaxPerMinute) {
        ++limit.heldBack;
        ++m_stats.rateLimited;
        return std::nullopt;
    }

    Notification n;
    const QString channel = event.channelName.isEmpty() ? tr("channel %1").arg(event.channelId) : event.channelName;
    n.title = titled(instance, event.type == HealthEvent::Type::Breaker ? tr("%1: circuit open").arg(channel)
                                                                         : event.to == QLatin1String("misconfigured")
                                                                             ? tr("%1: misconfigured").arg(channel)
                                                                             : tr("%1: ejected from the pool").arg(channel));
    n.body = event.reason.isEmpty() ? tr("No reason was given.") : event.reason;
    if (limit.heldBack > 0)
        n.body += limit.heldBack == 1 ? tr("\n1 more alert for this channel was held back since the last one.")
                                      : tr("\n%1 more alerts for this channel were held back since the last one.").arg(limit.heldBack);
    limit.heldBack = 0;
    limit.lastShown = now;
    m_recent.push_back(now);
    ++m_stats.shown;
    return n;
}

void TrayNotifier::addEvent(const HealthEvent &event)
{
    addEventFrom(QString(), event);
}

void TrayNotifier::addEventFrom(const QString &instance, const HealthEvent &event)
{
    const std::optional<Notification> n = decide(event, instance);
    if (!n)
        return;
    if (m_tray)
        m_tray->showMessage(n->title, n->body, QSystemTrayIcon::Warning);
    emit notified(n->title, n->body);
}

} // namespace sb
