// What the Attach dialog and --attach accept as an instance's address, and the sentences they refuse with.
#include "remote/RemoteAddress.h"

#include <QtTest>

using namespace sb;

class tst_RemoteAddress : public QObject {
    Q_OBJECT
private slots:
    void parsesHostAndPort()
    {
        auto t = RemoteAddress::parse(QStringLiteral(" 10.0.0.5:8400 "));
        QVERIFY(t);
        QCOMPARE(t->host, QStringLiteral("10.0.0.5"));
        QCOMPARE(t->port, quint16(8400));
        QVERIFY(t->token.isEmpty());

        t = RemoteAddress::parse(QStringLiteral("[fd00::5]:9000"));
        QVERIFY(t);
        QCOMPARE(t->host, QStringLiteral("fd00::5"));
        QCOMPARE(t->port, quint16(9000));

        t = RemoteAddress::parse(QStringLiteral("switchboard.internal:8400"));
        QVERIFY(t);
        QCOMPARE(t->host, QStringLiteral("switchboard.internal"));
        QVERIFY(!t->tls);
        QVERIFY(!t->isLoopback());

        // https:// asks for TLS; the rest is the same address.
        t = RemoteAddress::parse(QStringLiteral("HTTPS://switchboard.internal:8443"));
        QVERIFY(t);
        QVERIFY(t->tls);
        QCOMPARE(t->host, QStringLiteral("switchboard.internal"));
        QCOMPARE(t->port, quint16(8443));
        QCOMPARE(RemoteGateway(SystemClock::instance(), *t).displayName(), QStringLiteral("https://switchboard.internal:8443"));
    }

    // Where a token may go over plain HTTP without a second thought: this machine only.
    void knowsWhatIsThisMachine()
    {
        for (const char *input : {"127.0.0.1:8400", "127.0.0.53:8400", "[::1]:8400", "localhost:8400", "LocalHost:8400"})
            QVERIFY2(RemoteAddress::parse(QLatin1String(input))->isLoopback(), input);
        for (const char *input : {"10.0.0.5:8400", "[fd00::5]:8400", "switchboard.internal:8400", "128.0.0.1:8400"})
            QVERIFY2(!RemoteAddress::parse(QLatin1String(input))->isLoopback(), input);
    }

    void refusesWithASentence_data()
    {
        QTest::addColumn<QString>("input");
        QTest::addColumn<QString>("says");
        QTest::newRow("no port") << QStringLiteral("10.0.0.5") << QStringLiteral("no port");
        QTest::newRow("port 0") << QStringLiteral("10.0.0.5:0") << QStringLiteral("1 to 65535");
        QTest::newRow("not a number") << QStringLiteral("10.0.0.5:http") << QStringLiteral("1 to 65535");
        QTest::newRow("URL") << QStringLiteral("http://10.0.0.5:8400/v1") << QStringLiteral("without http://");
        QTest::newRow("TLS URL with a path") << QStringLiteral("https://10.0.0.5:8400/v1") << QStringLiteral("without http://");
        QTest::newRow("bare IPv6") << QStringLiteral("fd00::5:8400") << QStringLiteral("brackets");
        QTest::newRow("empty host") << QStringLiteral(":8400") << QStringLiteral("Give the host");
        QTest::newRow("bad name") << QStringLiteral("my_host!:8400") << QStringLiteral("neither an IP address nor a host name");
    }

    void refusesWithASentence()
    {
        QFETCH(QString, input);
        QFETCH(QString, says);
        QString error;
        QVERIFY(!RemoteAddress::parse(input, &error));
        QVERIFY2(error.contains(says), qPrintable(error));
    }

    void hostProblems()
    {
        QVERIFY(RemoteAddress::hostProblem(QStringLiteral("127.0.0.1")).isEmpty());
        QVERIFY(RemoteAddress::hostProblem(QStringLiteral("::1")).isEmpty());
        QVERIFY(RemoteAddress::hostProblem(QStringLiteral("localhost")).isEmpty());
        QVERIFY(RemoteAddress::hostProblem(QStringLiteral("a-b.example.")).isEmpty());
        QVERIFY(RemoteAddress::hostProblem(QStringLiteral("")).contains(QStringLiteral("Give the host")));
        QVERIFY(RemoteAddress::hostProblem(QStringLiteral("http://x")).contains(QStringLiteral("without http://")));
        QVERIFY(!RemoteAddress::hostProblem(QStringLiteral("-leading.example")).isEmpty());
        QVERIFY(!RemoteAddress::hostProblem(QString(300, u'a')).isEmpty());
    }
};

QTEST_GUILESS_MAIN(tst_RemoteAddress)
#include "tst_RemoteAddress.moc"
