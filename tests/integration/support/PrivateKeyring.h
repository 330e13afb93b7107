#pragma once

#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QTemporaryDir>

namespace sb::test {

// A Secret Service of the test's own: a message bus started by dbus-launch and gnome-keyring-daemon
// on it, with HOME and the XDG folders in a temporary directory and a login keyring unlocked with a
// throwaway password. The user's own keyring is never reached. Debian packages: dbus-x11 and
// gnome-keyring (packaging/install-deps.sh).
class PrivateKeyring {
public:
    PrivateKeyring();
    ~PrivateKeyring();
    PrivateKeyring(const PrivateKeyring &) = delete;
    PrivateKeyring &operator=(const PrivateKeyring &) = delete;

    // False with a sentence when a program is missing or the keyring does not come up.
    bool start(QString *why);

    // `base` with this keyring's bus, for a child process.
    QProcessEnvironment reachable(QProcessEnvironment base = QProcessEnvironment::systemEnvironment()) const;
    // `base` with a bus address where nothing listens: a machine whose keyring cannot be reached.
    QProcessEnvironment unreachable(QProcessEnvironment base = QProcessEnvironment::systemEnvironment()) const;
    // Puts this process on the keyring's bus; call before anything in it has used D-Bus.
    void joinThisProcess() const;

private:
    QTemporaryDir m_dir;
    QString m_busVariable; // the name dbus-launch gives the bus address's variable
    QString m_busAddress;
    qint64 m_busPid = 0;
    QProcess m_keyring;
};

} // namespace sb::test
