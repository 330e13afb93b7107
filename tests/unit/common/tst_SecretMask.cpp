#include "common/SecretMask.h"

#include <QtTest>

class tst_SecretMask : public QObject {
    Q_OBJECT
private slots:
    void keepsPrefixAndLastFour()
    {
        QCOMPARE(sb::maskSecret(QStringLiteral("sk-proj-abcdefghijklmnopa1F3")), QStringLiteral("sk-…a1F3"));
        QCOMPARE(sb::maskSecret(QStringLiteral("AIzaSyD-1234567890abcd9QZ0")), QStringLiteral("…9QZ0"));
    }

    void neverRevealsShortSecrets()
    {
        const QString shortKey = QStringLiteral("abc123");
        const QString masked = sb::maskSecret(shortKey);
        QVERIFY(!masked.contains(QStringLiteral("abc")));
        QVERIFY(!masked.contains(QStringLiteral("123")));
        QVERIFY(sb::maskSecret(QString()).isEmpty());
    }

    void maskedFormIsMuchShorterThanTheSecret()
    {
        const QString key = QStringLiteral("sk-ant-api03-") + QString(80, QLatin1Char('x')) + QStringLiteral("WXYZ");
        const QString masked = sb::maskSecret(key);
        QVERIFY(masked.size() <= 12);
        QVERIFY(masked.endsWith(QStringLiteral("WXYZ")));
    }
};

QTEST_APPLESS_MAIN(tst_SecretMask)
#include "tst_SecretMask.moc"
