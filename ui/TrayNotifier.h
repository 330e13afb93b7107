#pragma once

#include "common/Clock.h"
#include "health/HealthEvent.h"

#include <QHash>
#include <QObject>
#include <QString>

#include <deque>
#include <optional>

class QAction;
class QMenu;
class QSystemTrayIcon;

namespace sb {

// The tray icon and its notifications: a circuit that opens or a channel ejected from the pool pops
// a notification with the channel's name and why, and so does a route whose spend reaches its budget
// alert or hard stop. Everything else (half-open, closed, degraded, drained by a person, failovers)
// stays in the console. The decision — which events notify, and the
// rate limit that keeps a flapping channel from spamming — is decide(), separate from the
// QSystemTrayIcon call, so it is testable where there is no tray (offscreen, a desktop without one).
class TrayNotifier : public QObject {
    Q_OBJECT
public:
    struct Notification {
        QString title; // "gpt-4o/A: circuit open"
        QString body;  // the engine's reason, and how many alerts the rate limit held back
    };

    struct Stats {
        int shown = 0;      // notifications decided on (and shown where there is a tray)
        int rateLimited = 0; // qualifying events held back by the rate limit
        int muted = 0;      // qualifying events while muted
    };

    // At most one notification per channel in this time; the ones held back are counted in the next.
    static constexpr std::chrono::seconds kPerChannelInterval{60};
    // However many channels fail at once (a provider outage), at most this many per minute.
    static constexpr int kMaxPerMinute = 5;

    // Mute is read from QSettings ("notifications/muted"). The clock is the engine's (steady) clock.
    explicit TrayNotifier(const Clock &clock, QObject *parent = nullptr);
    ~TrayNotifier() override;

    // Creates the tray icon when the desktop has a system tray; false (and nothing shown) otherwise.
    bool showTrayIcon();
    bool hasTrayIcon() const { return m_tray != nullptr; }

    bool isMuted() const { return m_muted; }
    QMenu *menu() const { return m_menu; }
    QAction *muteAction() const { return m_muteAction; }
    Stats stats() const { return m_stats; }

    // Whether this event notifies now, updating the rate limit; no UI call. `instance` names where it
    // happened when that is not obvious (an attached instance; the embedded engine while attached)
    // and starts the title; each instance's channels are limited on their own, since their ids overlap.
    std::optional<Notification> decide(const HealthEvent &event, const QString &instance = QString());

public slots:
    // Receives the Gateway's health events on the GUI thread (queued, like MainWindow::addEvent).
    void addEvent(const sb::HealthEvent &event);
    // The same for events from a named instance (MainWindow forwards an attached instance's).
    void addEventFrom(const QString &instance, const sb::HealthEvent &event);
    void setMuted(bool muted); // persisted

signals:
    void notified(const QString &title, const QString &body);
    void mutedChanged(bool muted);
    void showConsoleRequested();

private:
    static bool qualifies(const HealthEvent &event);

    struct ChannelLimit {
        std::optional<Clock::TimePoint> lastShown;
        int heldBack = 0;
    };

    const Clock &m_clock;
    QSystemTrayIcon *m_tray = nullptr;
    QMenu *m_menu = nullptr;
    QAction *m_muteAction = nullptr;
    bool m_muted = false;
    QHash<std::pair<QString, int>, ChannelLimit> m_perChannel; // (instance, channel id)
    std::deque<Clock::TimePoint> m_recent; // times of the notifications of the last minute
    Stats m_stats;
};

} // namespace sb
