// RedisConnection against a real redis-server on loopback: commands and their replies in order,
// AUTH and SELECT from the address, pub/sub, a server killed under the connection (every waiting
// command answered with an error, then lost()), a refused password, a Redis that stops answering
// (commands beyond the bound refused, not queued), and the address's parsing with its masked form.
#include "RedisServer.h"
#include "fleet/RedisConnection.h"

#include <QSignalSpy>
#include <QtTest>

using namespace sb;
using namespace sb::test;
using namespace std::chrono_literals;

class tst_RedisConnection : public QObject {
    Q_OBJECT

    const Clock &m_clock = SystemClock::instance();

    static RedisAddress address(const QString &url)
    {
        QString error;
        RedisAddress a = RedisAddress::parse(url, &error);
        if (!error.isEmpty())
            qWarning("%s", qPrintable(error));
        return a;
    }

private slots:
    void theAddressIsParsedAndItsPasswordNeverShown()
    {
        QString error;
        const RedisAddress full = RedisAddress::parse(QStringLiteral("redis://fleet:s3cret-pass@10.0.0.5:6380/2"), &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(full.host, QStringLiteral("10.0.0.5"));
        QCOMPARE(full.port, 6380);
        QCOMPARE(full.user, QStringLiteral("fleet"));
        QCOMPARE(full.password, QStringLiteral("s3cret-pass"));
        QCOMPARE(full.database, 2);
        QCOMPARE(full.display(), QStringLiteral("redis://fleet:…@10.0.0.5:6380/2"));
        QVERIFY(!full.display().contains(QStringLiteral("s3cret")));

        const RedisAddress plain = RedisAddress::parse(QStringLiteral("redis://localhost"), &error);
        QVERIFY(error.isEmpty());
        QCOMPARE(plain.port, 6379);
        QCOMPARE(plain.display(), QStringLiteral("redis://localhost:6379"));

        for (const char *bad : {"http://10.0.0.5:6379", "redis://10.0.0.5:6379/zero", "rediss://10.0.0.5:6379", "10.0.0.5:6379",
                                "redis://:@/"}) {
            const RedisAddress refused = RedisAddress::parse(QString::fromLatin1(bad), &error);
            QVERIFY2(!error.isEmpty(), bad);
            QVERIFY(refused.host.isEmpty());
        }
        RedisAddress::parse(QStringLiteral("rediss://10.0.0.5:6379"), &error);
        QVERIFY(error.contains(QStringLiteral("TLS")));
    }

    void commandsAreAnsweredInOrder()
    {
        RedisServer server;
        QString error;
        QVERIFY2(server.start({}, &error), qPrintable(error));
        RedisConnection connection(m_clock);
        QVERIFY(openOn(connection, server, 3));

        QList<QByteArray> got;
        QVERIFY(connection.command({"SET", "fleet:test", "one"}, [&](const RedisReply &r) { got << r.text; }));
        QVERIFY(connection.command({"INCRBY", "fleet:counter", "41"}, [&](const RedisReply &r) { got << QByteArray::number(r.integer); }));
        QVERIFY(connection.command({"INCR", "fleet:counter"}, [&](const RedisReply &r) { got << QByteArray::number(r.integer); }));
        QVERIFY(connection.command({"GET", "fleet:test"}, [&](const RedisReply &r) { got << r.text; }));
        QVERIFY(connection.command({"GET", "fleet:none"}, [&](const RedisReply &r) { got << (r.type == RedisReply::Type::Nil ? "nil" : "?"); }));
        QVERIFY(connection.command({"NOSUCHCOMMAND"}, [&](const RedisReply &r) { got << (r.isError() ? "error" : "?"); }));
        QTRY_COMPARE(got.size(), 6);
        QCOMPARE(got, (QList<QByteArray>{"OK", "41", "42", "one", "nil", "error"}));
        QCOMPARE(connection.pending(), 0);
        // SELECT 3 took effect: the key is in database 3, not 0.
        QCOMPARE(server.cli({QStringLiteral("-n"), QStringLiteral("3"), QStringLiteral("GET"), QStringLiteral("fleet:test")}), QStringLiteral("one"));
        QCOMPARE(server.cli({QStringLiteral("GET"), QStringLiteral("fleet:test")}), QString());
    }

    void aPasswordIsSentAndARefusalSaysSo()
    {
        RedisServer server;
        QString error;
        QVERIFY2(server.start(QStringLiteral("fleet-pass-7"), &error), qPrintable(error));
        RedisConnection connection(m_clock);
        QVERIFY(openOn(connection, server));
        bool answered = false;
        QVERIFY(connection.command({"PING"}, [&](const RedisReply &r) { answered = r.text == "PONG"; }));
        QTRY_VERIFY(answered);

        RedisConnection wrong(m_clock);
        QSignalSpy lost(&wrong, &RedisConnection::lost);
        QSignalSpy ready(&wrong, &RedisConnection::ready);
        RedisAddress a = address(server.url());
        a.password = QStringLiteral("not-the-password");
        wrong.open(a, QHostAddress::LocalHost, 2s);
        QVERIFY(lost.wait(3000));
        QCOMPARE(ready.count(), 0);
        const QString reason = lost.first().first().toString();
        QVERIFY2(reason.contains(QStringLiteral("refused the password")), qPrintable(reason));
        QVERIFY(!reason.contains(QStringLiteral("not-the-password")));
        QVERIFY(!wrong.isReady());
    }

    void publishedMessagesReachTheSubscriber()
    {
        RedisServer server;
        QString error;
        QVERIFY2(server.start({}, &error), qPrintable(error));
        RedisConnection subscriber(m_clock), publisher(m_clock);
        QVERIFY(openOn(subscriber, server));
        QVERIFY(openOn(publisher, server));
        QList<QByteArray> messages;
        int confirmed = 0;
        QVERIFY(subscriber.subscribe(
            {"sb:fleet:events", "sb:fleet:other"},
            [&](const QByteArray &channel, const QByteArray &message) { messages << channel + " " + message; }, [&] { ++confirmed; }));
        // A subscribed connection takes no other commands.
        QVERIFY(!subscriber.command({"PING"}));
        // Confirmed once, after both channels: from then on the very first message published
        // reaches it, with no retry.
        QTRY_COMPARE(confirmed, 1);
        long long receivers = -1;
        QVERIFY(publisher.command({"PUBLISH", "sb:fleet:events", "hello"}, [&](const RedisReply &r) { receivers = r.integer; }));
        QTRY_COMPARE(receivers, 1LL);
        QTRY_VERIFY(!messages.isEmpty());
        QCOMPARE(messages.last(), QByteArray("sb:fleet:events hello"));
        QVERIFY(publisher.command({"PUBLISH", "sb:fleet:events", QByteArray("multibyte \xc3\xa9 and \0 a zero", 22)}));
        QTRY_COMPARE(messages.last(), QByteArray("sb:fleet:events multibyte \xc3\xa9 and \0 a zero", 38));
        QVERIFY(subscriber.stats().messages >= 2);
    }

    void aKilledServerAnswersEveryWaitingCommandThenSignalsLost()
    {
        RedisServer server;
        QString error;
        QVERIFY2(server.start({}, &error), qPrintable(error));
        RedisConnection connection(m_clock);
        QVERIFY(openOn(connection, server));
        QSignalSpy lost(&connection, &RedisConnection::lost);
        // The server sleeps on the first command, so the others are still waiting when it dies.
        int errors = 0;
        QVERIFY(connection.command({"DEBUG", "SLEEP", "5"}, [&](const RedisReply &r) { errors += r.isError(); }));
        for (int i = 0; i < 10; ++i)
            QVERIFY(connection.command({"INCR", "n"}, [&](const RedisReply &r) { errors += r.isError(); }));
        QTRY_COMPARE(connection.stats().sent, quint64(11));
        server.kill();
        QVERIFY(lost.wait(3000));
        QCOMPARE(errors, 11);
        QCOMPARE(connection.pending(), 0);
        QVERIFY(!connection.isReady());
        QVERIFY(!connection.command({"PING"}));

        // Back on the same port: the same object connects again.
        QVERIFY2(server.start({}, &error), qPrintable(error));
        QVERIFY(openOn(connection, server));
        bool answered = false;
        QVERIFY(connection.command({"PING"}, [&](const RedisReply &r) { answered = r.text == "PONG"; }));
        QTRY_VERIFY(answered);
    }

    void aServerThatStopsAnsweringGetsNoMoreThanTheBound()
    {
        RedisServer server;
        QString error;
        QVERIFY2(server.start({}, &error), qPrintable(error));
        RedisConnection connection(m_clock);
        QVERIFY(openOn(connection, server));
        QVERIFY(connection.command({"DEBUG", "SLEEP", "1"}));
        int accepted = 1;
        while (connection.command({"INCR", "n"}))
            ++accepted;
        QCOMPARE(accepted, RedisConnection::kMaxPending);
        QCOMPARE(connection.stats().refused, quint64(1));
        // Once it answers again, every accepted command was carried out once.
        QTRY_COMPARE_WITH_TIMEOUT(connection.pending(), 0, 5000);
        QCOMPARE(server.cli({QStringLiteral("GET"), QStringLiteral("n")}), QString::number(RedisConnection::kMaxPending - 1));
    }

    void nobodyListeningIsLostNotHung()
    {
        RedisServer server; // started once for a port, then stopped: nothing listens there
        QString error;
        QVERIFY2(server.start({}, &error), qPrintable(error));
        server.kill();
        RedisConnection connection(m_clock);
        QSignalSpy lost(&connection, &RedisConnection::lost);
        connection.open(address(server.url()), QHostAddress::LocalHost, 2s);
        QVERIFY(lost.wait(3000));
        QVERIFY(!connection.isReady());
    }

    void closingWithCommandsWaitingCallsNoHandler()
    {
        RedisServer server;
        QString error;
        QVERIFY2(server.start({}, &error), qPrintable(error));
        auto connection = std::make_unique<RedisConnection>(m_clock);
        QVERIFY(openOn(*connection, server));
        bool called = false;
        QVERIFY(connection->command({"DEBUG", "SLEEP", "0.2"}, [&](const RedisReply &) { called = true; }));
        connection.reset();
        QTest::qWait(400);
        QVERIFY(!called);
    }
};

QTEST_GUILESS_MAIN(tst_RedisConnection)
#include "tst_RedisConnection.moc"
