// The key-exhaustion drill (the first tier of defence, key rotation): one provider with three
// keys of 60 requests per minute each, under about 150 requests per minute, through the real proxy at
// x10 (18 s). The proxy must rotate the keys so that all three carry traffic and the primary serves
// nearly everything; what the keys cannot carry goes to the fallback, and the clients see answers.

#include "DrillHarness.h"

#include <QtTest>

using namespace sb;
using namespace sb::sim;

class tst_DrillKeyExhaustion : public QObject {
    Q_OBJECT

private slots:
    void keysRotateAndAllThreeCarryTraffic()
    {
        const test::DrillOutcome run = test::runShippedDrill(QStringLiteral("key-exhaustion"), 10.0);
        QVERIFY2(run.error.isEmpty(), qPrintable(run.error));
        const DrillReport &r = run.report;
        qInfo().noquote() << r.toText();

        const std::vector<quint64> perKey = run.admittedPerKey.value(QStringLiteral("primary"));
        QCOMPARE(perKey.size(), std::size_t(3));
        const quint64 admitted = perKey[0] + perKey[1] + perKey[2];
        qInfo() << "admitted per key" << perKey[0] << perKey[1] << perKey[2];
        // Every key carried a fair share: rotation, not one key until it is exhausted.
        for (quint64 n : perKey)
            QVERIFY2(n * 5 >= admitted, qPrintable(QStringLiteral("a key carried %1 of %2").arg(n).arg(admitted)));
        QCOMPARE(run.keyRings.value(QStringLiteral("primary")).disables, 0u);

        QVERIFY2(r.successRate >= 0.99, qPrintable(r.toText()));
        // Three keys at 60/min carry 150/min: the primary served the bulk of it.
        const qsizetype primaryColumn = r.channels.indexOf(QStringLiteral("primary"));
        QVERIFY(primaryColumn >= 0);
        int onPrimary = 0;
        for (const auto &second : r.perSecond)
            onPrimary += second[std::size_t(primaryColumn)];
        QVERIFY2(onPrimary >= r.succeeded * 8 / 10,
                 qPrintable(QStringLiteral("the primary served %1 of %2").arg(onPrimary).arg(r.succeeded)));
        QVERIFY(run.configRestored);
    }
};

QTEST_GUILESS_MAIN(tst_DrillKeyExhaustion)
#include "tst_DrillKeyExhaustion.moc"
