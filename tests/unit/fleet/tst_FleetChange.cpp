// FleetChange: what one instance tells the others. Each kind survives the trip through JSON, a key
// travels as its fingerprint and never as its secret, and anything that is not a change of this
// version (garbage, an unknown kind or state, a newer version, no name, too long) is refused with
// a reason rather than half adopted.
#include "fleet/FleetChange.h"

#include <QtTest>

using namespace sb;

class tst_FleetChange : public QObject {
    Q_OBJECT

private slots:
    void eachKindSurvivesTheTrip_data()
    {
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("to");
        QTest::addColumn<qint64>("until");
        QTest::newRow("breaker open") << int(FleetChange::Kind::Breaker) << QStringLiteral("open") << qint64(1800000060000);
        QTest::newRow("breaker closed") << int(FleetChange::Kind::Breaker) << QStringLiteral("closed") << qint64(0);
        QTest::newRow("pool drained") << int(FleetChange::Kind::Pool) << QStringLiteral("drained") << qint64(0);
        QTest::newRow("key cooling") << int(FleetChange::Kind::Key) << QStringLiteral("cooling_down") << qint64(1800000002500);
        QTest::newRow("key disabled") << int(FleetChange::Kind::Key) << QStringLiteral("disabled") << qint64(0);
    }

    void eachKindSurvivesTheTrip()
    {
        QFETCH(int, kind);
        QFETCH(QString, to);
        QFETCH(qint64, until);
        FleetChange change;
        change.kind = FleetChange::Kind(kind);
        change.instance = QStringLiteral("edge-2:8400");
        change.to = to;
        change.reason = QStringLiteral("5 failures in a row (HTTP 503) — « café »");
        change.atWallMillis = 1800000000000;
        change.untilWallMillis = until;
        if (change.kind == FleetChange::Kind::Key) {
            change.provider = QStringLiteral("openai-main");
            change.keyFingerprint = keyFingerprint(QStringLiteral("sk-live-secret-0001"));
        } else {
            change.channel = QStringLiteral("gpt-4o/A");
        }
        QString error;
        const auto back = FleetChange::fromJson(change.toJson(), &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(int(back->kind), kind);
        QCOMPARE(back->instance, change.instance);
        QCOMPARE(back->channel, change.channel);
        QCOMPARE(back->provider, change.provider);
        QCOMPARE(back->keyFingerprint, change.keyFingerprint);
        QCOMPARE(back->to, to);
        QCOMPARE(back->reason, change.reason);
        QCOMPARE(back->atWallMillis, change.atWallMillis);
        QCOMPARE(back->untilWallMillis, change.untilWallMillis);
        QCOMPARE(back->stateKey("sb:f:"), change.stateKey("sb:f:"));
    }

    void aKeyIsNamedByItsFingerprint()
    {
        const QString secret = QStringLiteral("sk-live-secret-0001");
        const QString fingerprint = keyFingerprint(secret);
        QCOMPARE(fingerprint.size(), 16);
        QCOMPARE(fingerprint, keyFingerprint(secret));
        QVERIFY(fingerprint != keyFingerprint(QStringLiteral("sk-live-secret-0002")));
        FleetChange change;
        change.kind = FleetChange::Kind::Key;
        change.instance = QStringLiteral("a");
        change.provider = QStringLiteral("openai-main");
        change.keyFingerprint = fingerprint;
        change.to = QStringLiteral("disabled");
        QVERIFY(!change.toJson().contains("secret-0001"));
        QCOMPARE(change.stateKey("sb:f:"), QByteArray("sb:f:key:openai-main:") + fingerprint.toLatin1());
    }

    void whatIsNoChangeOfOursIsRefused_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("because");
        QTest::newRow("garbage") << QByteArray("not json") << QStringLiteral("not a JSON object");
        QTest::newRow("an array") << QByteArray("[1,2]") << QStringLiteral("not a JSON object");
        QTest::newRow("a newer version") << QByteArray("{\"v\":2,\"kind\":\"breaker\",\"instance\":\"a\",\"channel\":\"c\",\"to\":\"open\"}") << QStringLiteral("version 2");
        QTest::newRow("no version") << QByteArray("{\"kind\":\"breaker\",\"instance\":\"a\",\"channel\":\"c\",\"to\":\"open\"}") << QStringLiteral("version");
        QTest::newRow("an unknown kind") << QByteArray("{\"v\":1,\"kind\":\"quota\",\"instance\":\"a\",\"channel\":\"c\",\"to\":\"open\"}") << QStringLiteral("unknown kind");
        QTest::newRow("a state of another kind") << QByteArray("{\"v\":1,\"kind\":\"breaker\",\"instance\":\"a\",\"channel\":\"c\",\"to\":\"drained\"}") << QStringLiteral("the state \"drained\"");
        QTest::newRow("no instance") << QByteArray("{\"v\":1,\"kind\":\"breaker\",\"channel\":\"c\",\"to\":\"open\"}") << QStringLiteral("without its instance");
        QTest::newRow("no channel") << QByteArray("{\"v\":1,\"kind\":\"pool\",\"instance\":\"a\",\"to\":\"drained\"}") << QStringLiteral("without its instance");
        QTest::newRow("a key without its fingerprint") << QByteArray("{\"v\":1,\"kind\":\"key\",\"instance\":\"a\",\"provider\":\"p\",\"to\":\"disabled\"}") << QStringLiteral("without its instance");
        QByteArray huge = "{\"v\":1,\"kind\":\"breaker\",\"instance\":\"a\",\"channel\":\"c\",\"to\":\"open\",\"reason\":\"";
        huge += QByteArray(FleetChange::kMaxBytes, 'x') + "\"}";
        QTest::newRow("too long") << huge << QStringLiteral("at most");
    }

    void whatIsNoChangeOfOursIsRefused()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, because);
        QString error;
        QVERIFY(!FleetChange::fromJson(json, &error));
        QVERIFY2(error.contains(because), qPrintable(error));
    }
};

QTEST_GUILESS_MAIN(tst_FleetChange)
#include "tst_FleetChange.moc"
