// Replays every committed fuzz corpus file and crash reproducer through its target's entry function,
// without libFuzzer: the Debug and asan builds keep each finding as a regression test, and a corpus
// that no longer runs clean fails here before anyone starts a fuzzing run.
#include "FuzzEntries.h"

#include <QDir>
#include <QFile>
#include <QtTest>

using namespace sb::fuzz;

class tst_FuzzCorpora : public QObject {
    Q_OBJECT

private slots:
    void everyTargetHasASeedCorpus()
    {
        std::size_t count = 0;
        const FuzzTarget *targets = fuzzTargets(&count);
        QCOMPARE(count, std::size_t(8));
        for (std::size_t i = 0; i < count; ++i) {
            const QDir dir(QStringLiteral(SB_SOURCE_DIR "/tests/fuzz/corpus/%1").arg(QLatin1String(targets[i].name)));
            QVERIFY2(dir.entryList(QDir::Files).size() >= 3, qPrintable(dir.path()));
        }
    }

    void replay_data()
    {
        QTest::addColumn<int>("target");
        QTest::addColumn<QString>("file");
        std::size_t count = 0;
        const FuzzTarget *targets = fuzzTargets(&count);
        for (std::size_t i = 0; i < count; ++i) {
            for (const char *kind : {"corpus", "regressions"}) {
                const QDir dir(QStringLiteral(SB_SOURCE_DIR "/tests/fuzz/%1/%2").arg(QLatin1String(kind), QLatin1String(targets[i].name)));
                for (const QString &name : dir.entryList(QDir::Files, QDir::Name))
                    QTest::addRow("%s/%s/%s", kind, targets[i].name, qPrintable(name)) << int(i) << dir.filePath(name);
            }
        }
    }

    void replay()
    {
        QFETCH(int, target);
        QFETCH(QString, file);
        QFile input(file);
        QVERIFY(input.open(QIODevice::ReadOnly));
        const QByteArray bytes = input.readAll();
        std::size_t count = 0;
        const FuzzTarget *targets = fuzzTargets(&count);
        // A broken invariant aborts inside the entry function, which fails this test with its message.
        QCOMPARE(targets[target].run(reinterpret_cast<const std::uint8_t *>(bytes.constData()), std::size_t(bytes.size())), 0);
    }
};

QTEST_GUILESS_MAIN(tst_FuzzCorpora)
#include "tst_FuzzCorpora.moc"
