#include "PrivateKeyring.h"

#include <QDir>
#include <QStandardPaths>
#include <QtTest>

#include <csignal>

namespace sb::test {

PrivateKeyring::PrivateKeyring() = default;

PrivateKeyring::~PrivateKeyring()
{
    if (m_keyring.state() != QProcess::NotRunning) {
        m_keyring.terminate();
        if (!m_keyring.waitForFinished(3000)) {
            m_keyring.kill();
            m_keyring.waitForFinished();
        }
    }
    if (m_busPid > 0)
        ::kill(static_cast<pid_t>(m_busPid), SIGTERM);
}

bool PrivateKeyring::start(QString *why)
{
    for (const char *program : {"dbus-launch", "gnome-keyring-daemon"}) {
        if (QStandardPaths::findExecutable(QString::fromLatin1(program)).isEmpty()) {
            *why = QStringLiteral("%1 is not installed (packaging/install-deps.sh installs it)").arg(QString::fromLatin1(program));
            return false;
        }
    }
    if (!m_dir.isValid()) {
        *why = QStringLiteral("no temporary directory");
        return false;
    }
    const QDir dir(m_dir.path());
    for (const char *sub : {"data", "config", "runtime"})
        dir.mkpath(QString::fromLatin1(sub));
    QFile::setPermissions(dir.filePath(QStringLiteral("runtime")), QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("HOME"), m_dir.path());
    env.insert(QStringLiteral("XDG_DATA_HOME"), dir.filePath(QStringLiteral("data")));
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), dir.filePath(QStringLiteral("config")));
    env.insert(QStringLiteral("XDG_RUNTIME_DIR"), dir.filePath(QStringLiteral("runtime")));
    env.remove(QStringLiteral("DISPLAY"));

    // dbus-launch prints NAME=value lines: the bus address and the daemon's pid.
    QProcess launch;
    launch.setProcessEnvironment(env);
    launch.start(QStringLiteral("dbus-launch"), {});
    if (!launch.waitForFinished(10000) || launch.exitCode() != 0) {
        *why = QStringLiteral("dbus-launch failed: %1").arg(QString::fromUtf8(launch.readAllStandardError()));
        return false;
    }
    for (const QString &line : QString::fromUtf8(launch.readAllStandardOutput()).split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
        const qsizetype eq = line.indexOf(QLatin1Char('='));
        if (eq <= 0)
            continue;
        const QString name = line.left(eq), value = line.mid(eq + 1).trimmed();
        if (name.endsWith(QLatin1String("_BUS_ADDRESS"))) {
            m_busVariable = name;
            m_busAddress = value;
        } else if (name.endsWith(QLatin1String("_BUS_PID"))) {
            m_busPid = value.toLongLong();
        }
    }
    if (m_busAddress.isEmpty()) {
        *why = QStringLiteral("dbus-launch printed no bus address");
        return false;
    }

    env.insert(m_busVariable, m_busAddress);
    m_keyring.setProcessEnvironment(env);
    m_keyring.start(QStringLiteral("gnome-keyring-daemon"),
                    {QStringLiteral("--foreground"), QStringLiteral("--unlock"), QStringLiteral("--components=secrets")});
    if (!m_keyring.waitForStarted(5000)) {
        *why = QStringLiteral("gnome-keyring-daemon did not start: %1").arg(m_keyring.errorString());
        return false;
    }
    m_keyring.write("throwaway-test-keyring-password\n");
    m_keyring.closeWriteChannel();
    // Serving once it owns the Secret Service's name on the bus.
    for (int waited = 0; waited < 15000; waited += 100) {
        QProcess ask;
        ask.start(QStringLiteral("dbus-send"), {QStringLiteral("--bus=%1").arg(m_busAddress), QStringLiteral("--print-reply"),
                                                QStringLiteral("--dest=org.freedesktop.DBus"), QStringLiteral("/org/freedesktop/DBus"),
                                                QStringLiteral("org.freedesktop.DBus.NameHasOwner"), QStringLiteral("string:org.freedesktop.secrets")});
        if (ask.waitForFinished(3000) && ask.readAllStandardOutput().contains("boolean true"))
            return true;
        if (m_keyring.state() == QProcess::NotRunning)
            break;
        QTest::qWait(100);
    }
    *why = QStringLiteral("gnome-keyring-daemon did not take the Secret Service's name: %1")
               .arg(QString::fromUtf8(m_keyring.readAllStandardOutput() + m_keyring.readAllStandardError()));
    return false;
}

QProcessEnvironment PrivateKeyring::reachable(QProcessEnvironment base) const
{
    base.insert(m_busVariable, m_busAddress);
    return base;
}

QProcessEnvironment PrivateKeyring::unreachable(QProcessEnvironment base) const
{
    base.insert(m_busVariable, QStringLiteral("unix:path=%1").arg(QDir(m_dir.path()).filePath(QStringLiteral("no-bus-here"))));
    return base;
}

void PrivateKeyring::joinThisProcess() const
{
    qputenv(m_busVariable.toLatin1().constData(), m_busAddress.toLocal8Bit());
}

} // namespace sb::test
