#include "store/ConfigRepository.h"
#include "store/DatabaseSecretStore.h"
#include "store/HistoryReader.h"
#include "store/HistoryWriter.h"

#include "ConfigSamples.h"
#include "FakeClock.h"

#include <QCoreApplication>
#include <QProcess>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QtTest>

#include <cstdio>

using namespace sb;

// Bad input never loses data, nor does a crash: SIGKILL a process in the middle of heavy writes (history batches on the writer
// thread and configuration saves on the main thread, at once), 20 times; after each kill the
// database opens, PRAGMA integrity_check says ok, and the configuration is one of the two that
// were being saved, whole, with its secrets. The test re-launches its own executable as the child.

namespace {

constexpr int Rounds = 20;

// The two configurations the child alternates between; any torn save would match neither.
EngineConfig configA()
{
    return test::everyFieldSetConfig();
}

EngineConfig configB()
{
    EngineConfig c = test::everyFieldSetConfig();
    c.breaker.consecutiveFailures = 8;
    c.providers[0].keys[0].secret = QStringLiteral("sk-proj-ROTATED-SECRET-99998888");
    c.providers.pop_back(); // and everything that referred to it
    c.channels.erase(c.channels.begin() + 1);
    c.routes[0].channelIds = {11};
    c.routes[0].cache.embeddingsChannelId = 11; // the route's semantic cache asked the removed channel
    c.prices.pop_back();
    return c;
}

int runWriterChild(const QString &path)
{
    test::FakeClock clock;
    DatabaseSecretStore secrets(path);
    ConfigRepository repo(path, secrets, clock);
    HistoryWriter writer(path, clock);
    QString error;
    if (!secrets.open(&error) || !repo.open(&error) || !writer.start(&error)) {
        std::fprintf(stderr, "child: %s\n", qPrintable(error));
        return 2;
    }
    const EngineConfig configs[2] = {configA(), configB()};
    for (std::uint64_t round = 0;; ++round) {
        const qint64 t = clock.wallMillis();
        for (int i = 0; i < 500; ++i) {
            RequestRecord r;
            r.requestId = QStringLiteral("req-%1-%2").arg(round).arg(i);
            r.timeMs = t + i;
            r.logicalModel = QStringLiteral("gpt-4o");
            r.channelName = QStringLiteral("gpt-4o/A");
            r.attempts = {AttemptRecord{11, QStringLiteral("gpt-4o/A"), 7, OutcomeKind::ProviderDown, OutcomePhase::BeforeFirstByte, 503, t, 30, -1, {}},
                          AttemptRecord{12, QStringLiteral("gpt-4o/B"), 9, OutcomeKind::Success, OutcomePhase::BeforeFirstByte, 200, t + 31, 900, 250, {}}};
            writer.enqueue(std::move(r));
        }
        for (int c = 0; c < 10; ++c)
            writer.enqueue(HealthSample{t, c, 90.0, 0.01, 0.02, 850.0, QStringLiteral("closed")});
        const auto saved = repo.save(configs[round % 2], QStringLiteral("crash test"));
        if (!saved.ok()) {
            std::fprintf(stderr, "child: save failed: %s\n", qPrintable(saved.errors.join(' ')));
            return 3;
        }
        clock.advance(std::chrono::seconds(1));
        std::printf("progress %llu %llu\n", static_cast<unsigned long long>(writer.stats().requestsWritten),
                    static_cast<unsigned long long>(round + 1));
        std::fflush(stdout);
    }
}

qint64 count(Database &db, const QString &table)
{
    QSqlQuery q(db.connection());
    if (!q.exec(QStringLiteral("SELECT count(*) FROM %1").arg(table)) || !q.next())
        return -1;
    return q.value(0).toLongLong();
}

} // namespace

class tst_CrashSafety : public QObject {
    Q_OBJECT
private slots:
    void survivesTwentySigkillsDuringHeavyWrites()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("crash.db"));
        test::FakeClock clock;
        {
            DatabaseSecretStore secrets(path);
            ConfigRepository repo(path, secrets, clock);
            QVERIFY(secrets.open() && repo.open());
            QVERIFY(repo.save(configA()).ok());
        }

        qint64 previousRequests = 0;
        int sawA = 0, sawB = 0;
        for (int round = 0; round < Rounds; ++round) {
            QProcess child;
            child.setProgram(QCoreApplication::applicationFilePath());
            child.setArguments({QStringLiteral("--writer-child"), path});
            child.setProcessChannelMode(QProcess::ForwardedErrorChannel);
            child.start();
            QVERIFY2(child.waitForStarted(10'000), qPrintable(child.errorString()));

            // Kill only once rows are really being written, at a point that varies by round.
            const int extraLines = round % 3;
            int linesAfterReady = -1;
            QElapsedTimer guard; // a stuck child must fail the test, not hang it
            guard.start();
            while (linesAfterReady < extraLines) {
                QVERIFY2(guard.elapsed() < 30'000, "the writer child made no progress");
                if (!child.canReadLine() && !child.waitForReadyRead(30'000))
                    QFAIL(qPrintable(QStringLiteral("the writer child stopped early (exit code %1)").arg(child.exitCode())));
                while (child.canReadLine()) {
                    const QList<QByteArray> parts = child.readLine().trimmed().split(' ');
                    if (parts.size() == 3 && parts[0] == "progress" && parts[1].toLongLong() >= 500 && parts[2].toLongLong() >= 2)
                        ++linesAfterReady;
                    else if (linesAfterReady >= 0)
                        ++linesAfterReady;
                }
            }
            child.kill(); // SIGKILL: no destructor, no flush, no checkpoint
            QVERIFY(child.waitForFinished(10'000));
            QCOMPARE(child.exitStatus(), QProcess::CrashExit);

            Database db(path, QStringLiteral("check"));
            QString error;
            QVERIFY2(db.open(&error), qPrintable(error));
            QString details;
            QVERIFY2(db.integrityOk(&details), qPrintable(QStringLiteral("round %1: %2").arg(round).arg(details)));
            const qint64 requests = count(db, QStringLiteral("requests"));
            QVERIFY2(requests > previousRequests, "the child must have written rows before it was killed");
            previousRequests = requests;
            db.close();

            DatabaseSecretStore secrets(path);
            ConfigRepository repo(path, secrets, clock);
            QVERIFY(secrets.open() && repo.open());
            const EngineConfigPtr loaded = repo.load(&error);
            QVERIFY2(loaded, qPrintable(error));
            const QStringList diffA = test::configDifferences(configA(), *loaded);
            const QStringList diffB = test::configDifferences(configB(), *loaded);
            QVERIFY2(diffA.isEmpty() || diffB.isEmpty(),
                     qPrintable(QStringLiteral("round %1: neither configuration; differs from A in %2 and from B in %3")
                                    .arg(round).arg(diffA.join(',')).arg(diffB.join(','))));
            (diffA.isEmpty() ? sawA : sawB) += 1;
        }
        qInfo("%d rounds: %lld request rows survived; configuration A intact %d times, B %d times", Rounds, previousRequests, sawA, sawB);
    }
};

int main(int argc, char **argv)
{
    if (argc >= 3 && qstrcmp(argv[1], "--writer-child") == 0) {
        QCoreApplication app(argc, argv);
        return runWriterChild(QString::fromLocal8Bit(argv[2]));
    }
    QCoreApplication app(argc, argv);
    tst_CrashSafety test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}

#include "tst_CrashSafety.moc"
