// Spend survives a restart: an EngineHost on a real SQLite file serves priced requests, stops, and a
// second EngineHost on the same file starts with the same spend — so a spent hard budget still
// refuses after the restart instead of granting a fresh allowance.
#include "FakeProvider.h"
#include "engine/EngineHost.h"
#include "model/ConfigJson.h"

#include <QtTest>
#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QTemporaryDir>

using namespace sb;
using namespace sb::sim;
using namespace std::chrono_literals;

class tst_CostPersistence : public QObject {
    Q_OBJECT

private:
    SystemClock &m_clock = SystemClock::instance();
    SplitMixRandom m_random{7};
    QNetworkAccessManager m_http;

    int chat(EngineHost &host)
    {
        QNetworkRequest req(QUrl(QStringLiteral("http://127.0.0.1:%1/v1/chat/completions").arg(host.gateway()->port())));
        req.setHeader(QNetworkRequest::ContentTypeHeader, "application/json");
        const QJsonObject body{{"model", "m"}, {"messages", QJsonArray{QJsonObject{{"role", "user"}, {"content", "Count to three."}}}}};
        QNetworkReply *reply = m_http.post(req, QJsonDocument(body).toJson(QJsonDocument::Compact));
        QSignalSpy finished(reply, &QNetworkReply::finished);
        if (!reply->isFinished())
            finished.wait(20000);
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        reply->deleteLater();
        return status;
    }

private slots:
    void spendAndHardStopSurviveARestart()
    {
        ScenarioClock scenarioClock(m_clock, 1.0);
        ProviderSpec spec;
        spec.name = QStringLiteral("up");
        spec.dialect = QStringLiteral("openai_compat");
        spec.models = {QStringLiteral("up-model")};
        spec.ttftMs = Distribution::constant(5);
        spec.tokensPerSecond = Distribution::constant(5000);
        spec.completionTokens = 20;
        FakeProvider provider(spec, scenarioClock, m_random);
        QString error;
        QVERIFY2(provider.start(&error), qPrintable(error));

        EngineConfig config;
        config.proxy.listenPort = 0;
        ProviderConfig p;
        p.id = 1;
        p.name = QStringLiteral("up");
        p.baseUrl = provider.baseUrl();
        p.keys = {ApiKeyConfig{1, QStringLiteral("k"), QStringLiteral("sk-persist-0001"), true, {}}};
        config.providers = {p};
        config.channels = {ChannelConfig{1, QStringLiteral("m/A"), 1, QStringLiteral("up-model"), 1.0, true, {}, {}, {}}};
        RouteConfig route;
        route.id = 1;
        route.logicalModel = QStringLiteral("m");
        route.channelIds = {1};
        config.routes = {route};
        config.prices = {ModelPrice{QStringLiteral("up-model"), 1000.0, 1000.0}}; // $0.001 a token: easy to see
        // Three requests of ~30 tokens each fit under $0.2; the hard stop comes with the third.
        config.budgets = {BudgetConfig{QStringLiteral("m"), BudgetPeriod::Month, 0.0, 0.2}};
        QVERIFY2(config.validate().isEmpty(), qPrintable(config.validate().join(' ')));

        QTemporaryDir dir;
        const QString configPath = dir.filePath(QStringLiteral("config.json"));
        {
            QFile file(configPath);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(exportConfigJson(config, ConfigExportOptions{true}).toBytes());
        }
        EngineHost::Options options;
        options.dbPath = dir.filePath(QStringLiteral("switchboard.db"));
        options.configPath = configPath;
        options.seedDemo = false;
        options.keyringAllowed = false;

        double spentBefore = 0.0;
        {
            EngineHost host(m_clock, m_random);
            QVERIFY2(host.start(options, &error), qPrintable(error));
            QCOMPARE(host.gateway()->context().costMeter().spent(QStringLiteral("m"), BudgetPeriod::Month, m_clock.wallMillis()), 0.0);
            int served = 0;
            while (chat(host) == 200)
                QVERIFY(++served < 20);
            QVERIFY2(served >= 2, qPrintable(QString::number(served))); // the budget allowed some, then stopped
            spentBefore = host.gateway()->context().costMeter().spent(QStringLiteral("m"), BudgetPeriod::Month, m_clock.wallMillis());
            QVERIFY(spentBefore >= 0.2);
            host.stop(500ms); // drains the history writer
        }
        {
            EngineHost host(m_clock, m_random);
            QVERIFY2(host.start(options, &error), qPrintable(error));
            const double spentAfter = host.gateway()->context().costMeter().spent(QStringLiteral("m"), BudgetPeriod::Month, m_clock.wallMillis());
            QVERIFY2(qAbs(spentAfter - spentBefore) < 1e-9, qPrintable(QStringLiteral("%1 vs %2").arg(spentAfter).arg(spentBefore)));
            QVERIFY(qAbs(host.gateway()->context().costMeter().stats(m_clock.wallMillis()).todayUsd - spentBefore) < 1e-9);
            QCOMPARE(chat(host), 429); // still spent after the restart
            host.stop(500ms);
        }
    }
};

QTEST_GUILESS_MAIN(tst_CostPersistence)
#include "tst_CostPersistence.moc"
