#pragma once

#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

namespace sb::test {

// The real `switchboard --headless` as a child process on a database in `dir`, listening on a port
// of its choosing (read back from its log), with HOME and XDG_DATA_HOME inside `dir`. Everything it
// prints is collected in log().
class HeadlessProcess {
public:
    HeadlessProcess(const QString &binary, const QString &dir, QProcessEnvironment environment = QProcessEnvironment::systemEnvironment());
    ~HeadlessProcess();
    HeadlessProcess(const HeadlessProcess &) = delete;
    HeadlessProcess &operator=(const HeadlessProcess &) = delete;

    // Starts with `extra` after --headless --db --listen; true once the proxy listens.
    bool start(const QStringList &extra = {});
    // SIGTERM and the exit code (-1 when it had to be killed).
    int stop(int timeoutMs = 15000);

    void signal(int number) const;
    bool waitForLog(const QString &text, int timeoutMs = 10000);
    int logCount(const QString &text) const { return int(m_log.count(text)); }
    QString log() const { return m_log; }
    quint16 port() const { return m_port; }
    QString databasePath() const;
    QProcess &process() { return m_process; }

private:
    QString m_binary;
    QString m_dir;
    QProcess m_process;
    QString m_log;
    quint16 m_port = 0;
};

} // namespace sb::test
