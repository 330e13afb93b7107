#pragma once

#include <QObject>

class QSocketNotifier;

// Turns SIGTERM and SIGINT, and SIGHUP, into Qt signals on the main thread (the self-pipe trick:
// the handler only writes a byte, which is all a signal handler may safely do), so the headless
// service can drain in-flight requests before it exits, and re-read its configuration on
// `systemctl reload` (ExecReload sends SIGHUP).
class SignalWatcher : public QObject {
    Q_OBJECT
public:
    explicit SignalWatcher(QObject *parent = nullptr);
    ~SignalWatcher() override;

signals:
    void terminationRequested(int signalNumber);
    void reloadRequested();

private:
    QSocketNotifier *m_notifier = nullptr;
};
