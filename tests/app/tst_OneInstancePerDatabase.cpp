// One Switchboard per database: a second `switchboard --headless` on a database a first one runs on
// exits at once with the sentence that says so (the lock file beside the database), instead of
// fighting the first over its port and history; once the first has gone, the database is free. A
// first one that died without cleaning up (SIGKILL) does not lock the database out.
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

namespace {

QProcessEnvironment environmentIn(const QTemporaryDir &dir)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("HOME"), dir.path());
    env.insert(QStringLiteral("XDG_DATA_HOME"), dir.filePath(QStringLiteral("data")));
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    return env;
}

QStringList headlessOn(const QTemporaryDir &dir)
{
    // The database's own configuration (the demo), on any free port.
    return {QStringLiteral("--headless"), QStringLiteral("--db"), dir.filePath(QStringLiteral("switchboard.db")),
            QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0")};
}

bool waitForListening(QProcess &process, QString *log)
{
    for (int i = 0; i < 300; ++i) {
        process.waitForReadyRead(100);
        *log += QString::fromUtf8(process.readAll());
        if (log->contains(QStringLiteral("proxy listening on")))
            return true;
        if (process.state() == QProcess::NotRunning)
            return false;
    }
    return false;
}

} // namespace

class tst_OneInstancePerDatabase : public QObject {
    Q_OBJECT
private slots:
    void aSecondInstanceOnTheSameDatabaseIsToldAndExits()
    {
        QTemporaryDir dir;
        QProcess first;
        first.setProcessEnvironment(environmentIn(dir));
        first.setProcessChannelMode(QProcess::MergedChannels);
        first.start(QStringLiteral(SB_SWITCHBOARD_BINARY), headlessOn(dir));
        QString firstLog;
        QVERIFY2(waitForListening(first, &firstLog), qPrintable(firstLog));

        QProcess second;
        second.setProcessEnvironment(environmentIn(dir));
        second.setProcessChannelMode(QProcess::MergedChannels);
        second.start(QStringLiteral(SB_SWITCHBOARD_BINARY), headlessOn(dir));
        QVERIFY(second.waitForFinished(30000));
        const QString secondLog = QString::fromUtf8(second.readAll());
        QCOMPARE(second.exitCode(), 1);
        QVERIFY2(secondLog.contains(QStringLiteral("Switchboard is already running on %1").arg(dir.filePath(QStringLiteral("switchboard.db")))),
                 qPrintable(secondLog));
        QVERIFY2(secondLog.contains(QStringLiteral("process %1").arg(first.processId())), qPrintable(secondLog));
        QVERIFY2(!secondLog.contains(QStringLiteral("proxy listening")), qPrintable(secondLog));
        QCOMPARE(first.state(), QProcess::Running);

        // SIGKILL: no clean-up at all. The lock names a process that is gone, and the next one takes it.
        first.kill();
        QVERIFY(first.waitForFinished(30000));
        QProcess third;
        third.setProcessEnvironment(environmentIn(dir));
        third.setProcessChannelMode(QProcess::MergedChannels);
        third.start(QStringLiteral(SB_SWITCHBOARD_BINARY), headlessOn(dir));
        QString thirdLog;
        QVERIFY2(waitForListening(third, &thirdLog), qPrintable(thirdLog));
        third.terminate();
        QVERIFY(third.waitForFinished(30000));
        QCOMPARE(third.exitCode(), 0);
    }
};

QTEST_GUILESS_MAIN(tst_OneInstancePerDatabase)
#include "tst_OneInstancePerDatabase.moc"
