// Budgets seen from the console, end to end: a real Gateway on loopback in front of the simulator's
// fake provider (which reports token usage), a route whose spend crosses its alert. The Budget event
// reaches the tray notifier through the Gateway's signal, and the route's spend reaches the
// Providers page through the engine's snapshots — the page never sums anything itself.
#include "sim/FakeProvider.h"
#include "TrayNotifier.h"
#include "control/Gateway.h"
#include "providers/ProvidersPage.h"
#include "providers/RouteTableModel.h"
#include "providers/UsdAmount.h"

#include <QtTest>
#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSettings>
#include <QTemporaryDir>

using namespace sb;
using namespace sb::sim;
using namespace std::chrono_literals;

class tst_BudgetConsole : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_settingsDir;
    SystemClock &m_clock = SystemClock::instance();
    SplitMixRandom m_random{812};
    std::unique_ptr<ScenarioClock> m_scenarioClock;
    std::unique_ptr<FakeProvider> m_provider;
    std::unique_ptr<Gateway> m_gateway;
    QNetworkAccessManager m_http;

    int chat()
    {
        const QJsonObject body{{"model", "m"},
                               {"messages", QJsonArray{QJsonObject{{"role", "user"}, {"content", "Say something about the sea."}}}}};
        QNetworkRequest req(QUrl(QStringLiteral("http://127.0.0.1:%1/v1/chat/completions").arg(m_gateway->port())));
        req.setHeader(QNetworkRequest::ContentTypeHeader, "application/json");
        QNetworkReply *reply = m_http.post(req, QJsonDocument(body).toJson(QJsonDocument::Compact));
        QSignalSpy finished(reply, &QNetworkReply::finished);
        if (!reply->isFinished())
            finished.wait(20000);
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        reply->deleteLater();
        return status;
    }

private slots:
    void initTestCase()
    {
        QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
        QCoreApplication::setOrganizationName(QStringLiteral("SwitchboardTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_BudgetConsole"));
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settingsDir.path());
        qRegisterMetaType<MetricsSnapshot>();
        qRegisterMetaType<HealthEvent>();
    }

    void cleanup()
    {
        if (m_gateway)
            m_gateway->stop(500ms);
        m_gateway.reset();
        m_provider.reset();
    }

    void crossingTheAlertReachesTheTrayAndThePage()
    {
        m_scenarioClock = std::make_unique<ScenarioClock>(m_clock, 1.0);
        ProviderSpec spec;
        spec.name = QStringLiteral("openai_compat");
        spec.dialect = QStringLiteral("openai_compat");
        spec.models = {QStringLiteral("up-model")};
        spec.ttftMs = Distribution::constant(5);
        spec.tokensPerSecond = Distribution::constant(5000);
        spec.completionTokens = 12;
        m_provider = std::make_unique<FakeProvider>(spec, *m_scenarioClock, m_random);
        QString error;
        QVERIFY2(m_provider->start(&error), qPrintable(error));

        auto config = std::make_shared<EngineConfig>();
        config->proxy.listenPort = 0;
        ProviderConfig p;
        p.id = 1;
        p.name = QStringLiteral("sim");
        p.dialect = QStringLiteral("openai_compat");
        p.baseUrl = m_provider->baseUrl();
        p.keys = {ApiKeyConfig{1, QStringLiteral("key"), QStringLiteral("sk-test-budget-0001"), true, {}}};
        config->providers = {p};
        ChannelConfig c;
        c.id = 1;
        c.name = QStringLiteral("m/A");
        c.providerId = 1;
        c.upstreamModel = QStringLiteral("up-model");
        config->channels = {c};
        RouteConfig route;
        route.id = 1;
        route.logicalModel = QStringLiteral("m");
        route.channelIds = {1};
        config->routes = {route};
        // Dear tokens, so one request (12 completion tokens = $0.18 plus the prompt) passes the $0.10 alert.
        config->prices = {ModelPrice{QStringLiteral("up-model"), 3000.0, 15000.0}};
        config->budgets = {BudgetConfig{QStringLiteral("m"), BudgetPeriod::Day, 0.10, 100.0}};
        QVERIFY2(config->validate().isEmpty(), qPrintable(config->validate().join(' ')));
        m_gateway = std::make_unique<Gateway>(m_clock, m_random, config);

        TrayNotifier tray(m_clock);
        QSignalSpy notified(&tray, &TrayNotifier::notified);
        ProvidersPage page;
        page.setConfig(m_gateway->config());
        // The wiring MainWindow and main.cpp use: queued from the engine's threads to the GUI thread.
        connect(m_gateway.get(), &Gateway::healthEvent, &tray, &TrayNotifier::addEvent, Qt::QueuedConnection);
        connect(m_gateway.get(), &Gateway::snapshotReady, &page, &ProvidersPage::applySnapshot, Qt::QueuedConnection);
        QVERIFY2(m_gateway->start(&error), qPrintable(error));

        const QModelIndex budget = page.routeModel()->index(0, RouteTableModel::Budget);
        QTRY_VERIFY_WITH_TIMEOUT(budget.data().toString().startsWith(QStringLiteral("$0.00 of $100.00 today")), 10000);
        QCOMPARE(budget.data(RouteTableModel::BudgetLevelRole).toInt(), int(RouteTableModel::BudgetLevel::Within));
        QCOMPARE(notified.count(), 0);

        QCOMPARE(chat(), 200);
        QTRY_COMPARE_WITH_TIMEOUT(notified.count(), 1, 10000);
        QCOMPARE(notified.at(0).at(0).toString(), QStringLiteral("Route “m”: budget alert"));
        QVERIFY2(notified.at(0).at(1).toString().contains(QStringLiteral("alert limit")), qPrintable(notified.at(0).at(1).toString()));

        const double spent = m_gateway->context().costMeter().spent(QStringLiteral("m"), BudgetPeriod::Day, m_clock.wallMillis());
        QVERIFY2(spent > 0.18 && spent < 1.0, qPrintable(QString::number(spent)));
        const QString expected = QStringLiteral("%1 of $100.00 today · 0 % · past the alert").arg(UsdAmount::format(spent));
        QTRY_COMPARE_WITH_TIMEOUT(budget.data().toString(), expected, 10000);
        QCOMPARE(budget.data(RouteTableModel::BudgetLevelRole).toInt(), int(RouteTableModel::BudgetLevel::Warning));
        QVERIFY(qAbs(budget.data(RouteTableModel::BudgetFractionRole).toDouble() - spent / 100.0) < 1e-12);

        // A lower hard stop applied live: the next snapshot shows the route as stopped, the next request gets 429.
        auto lowered = std::make_shared<EngineConfig>(*m_gateway->config());
        lowered->budgets[0].hardLimitUsd = 0.15;
        m_gateway->applyConfig(lowered);
        page.setConfig(m_gateway->config());
        QTRY_COMPARE_WITH_TIMEOUT(budget.data(RouteTableModel::BudgetLevelRole).toInt(), int(RouteTableModel::BudgetLevel::Stopped), 10000);
        QVERIFY2(budget.data().toString().endsWith(QStringLiteral("hard stop reached")), qPrintable(budget.data().toString()));
        QCOMPARE(chat(), 429);
    }
};

QTEST_MAIN(tst_BudgetConsole)
#include "tst_BudgetConsole.moc"
