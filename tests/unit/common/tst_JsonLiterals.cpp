// The byte-level readers of single JSON values: integers read as Qt reads them (the usage counts
// of every answer go through these), and everything else refused so that Qt's parser decides.
#include "common/json/JsonLiterals.h"

#include <QTest>

using namespace sb;

class tst_JsonLiterals : public QObject {
    Q_OBJECT
private slots:
    void intValueReadsWhatToIntReads_data()
    {
        QTest::addColumn<QByteArray>("json");
        for (const char *text : {"0", "7", "-3", "-0", "2147483647", "-2147483648", "2147483648", "-2147483649",
                                 "9.0", "1e2", "12a", "\"9\"", "null", "true", "-", "", "99999999999999999999"})
            QTest::newRow(text) << QByteArray(text);
    }
    void intValueReadsWhatToIntReads()
    {
        QFETCH(QByteArray, json);
        bool ok = false;
        const int qt = QByteArrayView(json).toInt(&ok);
        const std::optional<int> ours = jsonliteral::intValue(json);
        QCOMPARE(ours.has_value(), ok);
        if (ok)
            QCOMPARE(*ours, qt);
    }

    void plainIntegerTakesDigitsOnly()
    {
        QCOMPARE(jsonliteral::plainInteger("0"), std::optional<qint64>(0));
        QCOMPARE(jsonliteral::plainInteger("1764460800"), std::optional<qint64>(1764460800));
        QCOMPARE(jsonliteral::plainInteger("999999999999999"), std::optional<qint64>(999999999999999));
        for (const char *refused : {"", "-1", "1.5", "1e3", "1000000000000000", "\"1\"", " 1"})
            QVERIFY2(!jsonliteral::plainInteger(refused), refused);
    }
};

QTEST_GUILESS_MAIN(tst_JsonLiterals)
#include "tst_JsonLiterals.moc"
