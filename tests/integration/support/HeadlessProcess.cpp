#include "HeadlessProcess.h"

#include <QDir>
#include <QRegularExpression>
#include <QtTest>

#include <csignal>

namespace sb::test {

HeadlessProcess::HeadlessProcess(const QString &binary, const QString &dir, QProcessEnvironment environment)
    : m_binary(binary)
    , m_dir(dir)
{
    environment.insert(QStringLiteral("HOME"), dir);
    environment.insert(QStringLiteral("XDG_DATA_HOME"), QDir(dir).filePath(QStringLiteral("data")));
    environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    m_process.setProcessEnvironment(environment);
    m_process.setProcessChannelMode(QProcess::MergedChannels);
    QObject::connect(&m_process, &QProcess::readyRead, [this] { m_log += QString::fromUtf8(m_process.readAll()); });
}

HeadlessProcess::~HeadlessProcess()
{
    if (m_process.state() != QProcess::NotRunning) {
        m_process.kill();
        m_process.waitForFinished();
    }
}

QString HeadlessProcess::databasePath() const
{
    return QDir(m_dir).filePath(QStringLiteral("switchboard.db"));
}

bool HeadlessProcess::start(const QStringList &extra)
{
    m_port = 0;
    m_process.start(m_binary, QStringList{QStringLiteral("--headless"), QStringLiteral("--db"), databasePath(),
                                          QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0")}
                                  + extra);
    static const QRegularExpression listening(QStringLiteral("proxy listening on http://127.0.0.1:(\\d+)/v1"));
    for (int i = 0; i < 300 && m_port == 0; ++i) {
        QTest::qWait(50);
        if (const auto match = listening.match(m_log); match.hasMatch())
            m_port = static_cast<quint16>(match.captured(1).toUInt());
        if (m_process.state() == QProcess::NotRunning)
            return false;
    }
    return m_port != 0;
}

int HeadlessProcess::stop(int timeoutMs)
{
    if (m_process.state() == QProcess::NotRunning)
        return m_process.exitCode();
    signal(SIGTERM);
    for (int waited = 0; waited < timeoutMs && m_process.state() != QProcess::NotRunning; waited += 50)
        QTest::qWait(50);
    if (m_process.state() != QProcess::NotRunning) {
        m_process.kill();
        m_process.waitForFinished();
        return -1;
    }
    m_log += QString::fromUtf8(m_process.readAll());
    return m_process.exitStatus() == QProcess::NormalExit ? m_process.exitCode() : -1;
}

void HeadlessProcess::signal(int number) const
{
    ::kill(static_cast<pid_t>(m_process.processId()), number);
}

bool HeadlessProcess::waitForLog(const QString &text, int timeoutMs)
{
    for (int waited = 0; waited < timeoutMs; waited += 50) {
        if (m_log.contains(text))
            return true;
        QTest::qWait(50);
    }
    return m_log.contains(text);
}

} // namespace sb::test
