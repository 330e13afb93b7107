// The command line as main() parses it: --attach HOST:PORT is checked before anything starts, and a
// token has no option at all (the process list would show it to every user of the machine).
#include "CommandLine.h"

#include <QtTest>

class tst_CommandLine : public QObject {
    Q_OBJECT

    static bool parse(const QStringList &arguments, AppOptions *options, int *exitCode)
    {
        return parseCommandLine(QStringList{QStringLiteral("switchboard")} + arguments, options, exitCode);
    }

private slots:
    void attachTakesHostAndPort_data()
    {
        QTest::addColumn<QString>("argument");
        QTest::newRow("ipv4") << QStringLiteral("10.0.0.5:8400");
        QTest::newRow("name") << QStringLiteral("switchboard.internal:9000");
        QTest::newRow("ipv6") << QStringLiteral("[fd00::5]:8400");
    }

    void attachTakesHostAndPort()
    {
        QFETCH(QString, argument);
        AppOptions options;
        int exitCode = -1;
        QVERIFY(parse({QStringLiteral("--attach"), argument}, &options, &exitCode));
        QCOMPARE(options.attach, argument);
        QVERIFY(!options.headless);
    }

    void withoutAttachNothingIsWatched()
    {
        AppOptions options;
        int exitCode = -1;
        QVERIFY(parse({QStringLiteral("--db"), QStringLiteral("/tmp/x.db")}, &options, &exitCode));
        QVERIFY(options.attach.isEmpty());
    }

    void badAddressesAreUsageErrors_data()
    {
        QTest::addColumn<QString>("argument");
        QTest::newRow("no port") << QStringLiteral("10.0.0.5");
        QTest::newRow("port 0") << QStringLiteral("10.0.0.5:0");
        QTest::newRow("port too big") << QStringLiteral("10.0.0.5:70000");
        QTest::newRow("a URL") << QStringLiteral("http://10.0.0.5:8400");
        QTest::newRow("bare ipv6") << QStringLiteral("fd00::5:8400");
        QTest::newRow("space in host") << QStringLiteral("my host:8400");
        QTest::newRow("empty host") << QStringLiteral(":8400");
    }

    void badAddressesAreUsageErrors()
    {
        QFETCH(QString, argument);
        AppOptions options;
        int exitCode = -1;
        QVERIFY(!parse({QStringLiteral("--attach"), argument}, &options, &exitCode));
        QCOMPARE(exitCode, 2);
    }

    void attachMeansNothingHeadless()
    {
        AppOptions options;
        int exitCode = -1;
        QVERIFY(!parse({QStringLiteral("--headless"), QStringLiteral("--attach"), QStringLiteral("10.0.0.5:8400")},
                       &options, &exitCode));
        QCOMPARE(exitCode, 2);
    }

    void attachCaIsKeptAsAnAbsolutePathForTlsOnly()
    {
        AppOptions options;
        int exitCode = -1;
        QVERIFY(parse({QStringLiteral("--attach"), QStringLiteral("https://10.0.0.5:8400"), QStringLiteral("--attach-ca"),
                       QStringLiteral("instance.pem")},
                      &options, &exitCode));
        QCOMPARE(options.attachCaFile, QDir::current().absoluteFilePath(QStringLiteral("instance.pem")));

        // A certificate to trust over plain HTTP, or with nothing to attach to, is a mistake said at once.
        exitCode = -1;
        QVERIFY(!parse({QStringLiteral("--attach"), QStringLiteral("10.0.0.5:8400"), QStringLiteral("--attach-ca"),
                        QStringLiteral("instance.pem")},
                       &options, &exitCode));
        QCOMPARE(exitCode, 2);
        exitCode = -1;
        QVERIFY(!parse({QStringLiteral("--attach-ca"), QStringLiteral("instance.pem")}, &options, &exitCode));
        QCOMPARE(exitCode, 2);
    }

    void thereIsNoTokenOption()
    {
        AppOptions options;
        int exitCode = -1;
        QVERIFY(!parse({QStringLiteral("--attach"), QStringLiteral("10.0.0.5:8400"), QStringLiteral("--token"),
                        QStringLiteral("secret-token")},
                       &options, &exitCode));
        QCOMPARE(exitCode, 2);
    }
};

QTEST_GUILESS_MAIN(tst_CommandLine)
#include "tst_CommandLine.moc"
