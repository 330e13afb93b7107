// Stored Responses API responses live in a file of their own beside the database, and the history's
// retention still reaches them: an EngineHost on real SQLite files keeps what is inside the
// retention and deletes what is older when its history writer's maintenance runs.
#include "HeadlessHost.h"
#include "ProxyConfigs.h"

#include "common/Clock.h"
#include "common/Random.h"
#include "control/Gateway.h"
#include "store/HistoryWriter.h"
#include "store/ResponseStore.h"

#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

using namespace sb;
using namespace sb::test;
using namespace std::chrono_literals;

namespace {

constexpr qint64 DayMs = 24 * 3'600'000LL;

StoredResponse storedAt(const QString &id, qint64 createdMs)
{
    StoredResponse row;
    row.id = id;
    row.createdMs = createdMs;
    row.input = QJsonArray{QJsonObject{{QStringLiteral("type"), QStringLiteral("message")}}};
    row.response = QJsonObject{{QStringLiteral("id"), id}, {QStringLiteral("object"), QStringLiteral("response")}};
    return row;
}

} // namespace

class tst_StoredResponsesRetention : public QObject {
    Q_OBJECT

private:
    SystemClock &m_clock = SystemClock::instance();
    SplitMixRandom m_random{11};

private slots:
    void storedResponsesGoWithTheHistorysRetention()
    {
        QTemporaryDir dir;
        const EngineHost::Options options = headlessOptions(dir.path());
        // Nothing is asked of the upstream: the configuration only has to be valid.
        QVERIFY(writeConfigFile(options.configPath, *oneChannelConfig(QStringLiteral("up"), QStringLiteral("http://127.0.0.1:9/v1"),
                                                                      QStringLiteral("m"))));
        EngineHost host(m_clock, m_random);
        QString error;
        QVERIFY2(host.start(options, &error), qPrintable(error));
        QVERIFY(host.historyWriter()->retentionDays() < 400);

        ResponseStore &responses = host.gateway()->context().responses();
        const qint64 now = m_clock.wallMillis();
        responses.save(storedAt(QStringLiteral("resp_old"), now - 400 * DayMs));
        responses.save(storedAt(QStringLiteral("resp_new"), now));
        responses.flush();
        QVERIFY(QFileInfo::exists(ResponseStore::fileBeside(options.dbPath)));
        QCOMPARE(responses.stats().written, std::uint64_t(2));

        host.historyWriter()->runMaintenance();
        responses.flush();
        QCOMPARE(responses.stats().purged, std::uint64_t(1)); // the old one; the new one is inside the retention
        host.stop(500ms);
    }
};

QTEST_MAIN(tst_StoredResponsesRetention)
#include "tst_StoredResponsesRetention.moc"
