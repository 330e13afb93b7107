#include "ProviderTestStore.h"
#include "TestPaths.h"
#include "common/Random.h"
#include "engine/EngineHost.h"
#include "providers/ChannelConfigModel.h"
#include "providers/ChannelDialog.h"
#include "providers/PriceEditor.h"
#include "providers/PriceTableModel.h"
#include "providers/ProviderDialog.h"
#include "providers/ProviderTableModel.h"
#include "providers/ProvidersPage.h"
#include "providers/RouteDialog.h"
#include "providers/RouteTableModel.h"
#include "routing/CostMeter.h"

#include <QtTest>
#include <QApplication>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QPushButton>
#include <QStyle>
#include <QStyleFactory>
#include <QTableView>

using namespace sb;

namespace {

template <class T>
T *child(QWidget *root, const char *name)
{
    T *w = root->findChild<T *>(QLatin1String(name));
    if (!w)
        qFatal("no widget named %s", name);
    return w;
}

QPushButton *saveButton(QWidget *dialog)
{
    return child<QDialogButtonBox>(dialog, "buttonBox")->button(QDialogButtonBox::Save);
}

QString cell(const QAbstractItemModel *model, int row, int column)
{
    return model->index(row, column).data().toString();
}

// The fixture with prices for most channels' models and budgets on two routes.
EngineConfig pricedProviders()
{
    EngineConfig c = test::sampleProviders();
    c.prices = {ModelPrice{QStringLiteral("gpt-4o"), 2.5, 10.0}, ModelPrice{QStringLiteral("gpt-4o-mini"), 0.15, 0.6}};
    c.budgets = {BudgetConfig{QStringLiteral("gpt-4o"), BudgetPeriod::Day, 8.0, 10.0},
                 BudgetConfig{QStringLiteral("gpt-4o-mini"), BudgetPeriod::Month, 40.0, 0.0}};
    return c;
}

RouteSpend spend(const char *route, double spent, const EngineConfig &config)
{
    RouteSpend s;
    s.route = QString::fromLatin1(route);
    s.spentUsd = spent;
    if (const BudgetConfig *b = findBudget(config.budgets, s.route)) {
        s.hasBudget = true;
        s.period = b->period;
        s.softLimitUsd = b->softLimitUsd;
        s.hardLimitUsd = b->hardLimitUsd;
    }
    return s;
}

QPalette darkPalette()
{
    QPalette p;
    p.setColor(QPalette::Window, QColor(0x20, 0x22, 0x26));
    p.setColor(QPalette::WindowText, QColor(0xe6, 0xe6, 0xe6));
    p.setColor(QPalette::Base, QColor(0x18, 0x1a, 0x1d));
    p.setColor(QPalette::AlternateBase, QColor(0x26, 0x29, 0x2e));
    p.setColor(QPalette::Text, QColor(0xe6, 0xe6, 0xe6));
    p.setColor(QPalette::Button, QColor(0x2a, 0x2d, 0x32));
    p.setColor(QPalette::ButtonText, QColor(0xe6, 0xe6, 0xe6));
    p.setColor(QPalette::Highlight, QColor(0x2f, 0x6f, 0xb5));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Mid, QColor(0x50, 0x54, 0x5a));
    p.setColor(QPalette::PlaceholderText, QColor(0xa0, 0xa4, 0xaa));
    return p;
}

bool saveShot(QWidget *widget, const QString &name)
{
    for (int round = 0; round < 4; ++round)
        QCoreApplication::processEvents(QEventLoop::ExcludeUserInputEvents);
    const QString directory = test::artifactPath(QStringLiteral("providers"));
    QDir().mkpath(directory);
    return widget->grab().save(QDir(directory).filePath(name + QStringLiteral(".png")));
}

} // namespace

class tst_ProvidersPage : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    }

    void tablesShowTheStoredConfiguration()
    {
        test::TestStore t;
        ProvidersPage page;
        page.setConfigStore(&t.store);
        const auto *providers = page.providerModel();
        QCOMPARE(providers->rowCount(), 2);
        QCOMPARE(cell(providers, 0, ProviderTableModel::Name), QStringLiteral("openai-main"));
        QCOMPARE(cell(providers, 0, ProviderTableModel::Dialect), QStringLiteral("OpenAI-compatible"));
        QCOMPARE(cell(providers, 0, ProviderTableModel::BaseUrl), QStringLiteral("https://api.openai.com/v1"));
        QCOMPARE(cell(providers, 0, ProviderTableModel::Keys), QStringLiteral("2/2 enabled"));
        QCOMPARE(cell(providers, 0, ProviderTableModel::Channels), QStringLiteral("3"));
        QCOMPARE(page.channelModel()->rowCount(), 4);
        QCOMPARE(cell(page.channelModel(), 1, ChannelConfigModel::Provider), QStringLiteral("anthropic-backup"));
        QCOMPARE(cell(page.channelModel(), 1, ChannelConfigModel::Domain), QStringLiteral("acct-2 · eu-west"));
        QCOMPARE(cell(page.channelModel(), 1, ChannelConfigModel::Routes), QStringLiteral("gpt-4o, claude"));
        QCOMPARE(page.routeModel()->rowCount(), 3);
        QCOMPARE(cell(page.routeModel(), 0, RouteTableModel::Channels), QStringLiteral("gpt-4o/A → gpt-4o/B → gpt-4o/C"));
        QCOMPARE(cell(page.routeModel(), 0, RouteTableModel::Fallbacks), QStringLiteral("gpt-4o-mini"));
        QVERIFY(!test::visibleText(&page).contains(test::OpenAiKey1));
    }

    void keysColumnFollowsSnapshotsCellByCell()
    {
        test::TestStore t;
        ProvidersPage page;
        page.setConfigStore(&t.store);
        QSignalSpy changed(page.providerModel(), &QAbstractItemModel::dataChanged);
        QSignalSpy reset(page.providerModel(), &QAbstractItemModel::modelReset);
        MetricsSnapshot snapshot;
        ChannelSnapshot a;
        a.channelId = 1;
        a.providerId = 1;
        a.keysHealthy = 1; // one key cooling down after a 429
        a.keysTotal = 2;
        snapshot.channels = {a};
        page.applySnapshot(snapshot);
        QCOMPARE(cell(page.providerModel(), 0, ProviderTableModel::Keys), QStringLiteral("1/2 healthy"));
        QCOMPARE(changed.count(), 1);
        const QModelIndex topLeft = changed.at(0).at(0).value<QModelIndex>();
        const QModelIndex bottomRight = changed.at(0).at(1).value<QModelIndex>();
        QCOMPARE(topLeft.row(), 0);
        QCOMPARE(topLeft.column(), int(ProviderTableModel::Keys));
        QCOMPARE(bottomRight.column(), int(ProviderTableModel::Keys));
        page.applySnapshot(snapshot); // nothing new: no signal
        QCOMPARE(changed.count(), 1);
        a.keysHealthy = 0;
        snapshot.channels = {a};
        page.applySnapshot(snapshot);
        QCOMPARE(cell(page.providerModel(), 0, ProviderTableModel::Keys), QStringLiteral("0/2 healthy"));
        QVERIFY(page.providerModel()->index(0, ProviderTableModel::Keys).data(Qt::ForegroundRole).isValid());
        QCOMPARE(reset.count(), 0);
    }

    void savedEditsReachTheTablesInPlace()
    {
        test::TestStore t;
        ProvidersPage page;
        page.setConfigStore(&t.store);
        page.providerView()->selectRow(1);
        QSignalSpy reset(page.providerModel(), &QAbstractItemModel::modelReset);
        auto *dialog = page.openProviderDialog(2);
        QVERIFY(dialog);
        QVERIFY(dialog->isVisible());
        auto *name = child<QLineEdit>(dialog, "nameEdit");
        name->selectAll();
        QTest::keyClicks(name, QStringLiteral("claude-eu"));
        saveButton(dialog)->click();
        QCOMPARE(cell(page.providerModel(), 1, ProviderTableModel::Name), QStringLiteral("claude-eu"));
        QCOMPARE(reset.count(), 0); // same providers: rows updated in place …
        QCOMPARE(page.providerView()->selectionModel()->selectedRows().value(0).row(), 1); // … selection kept
        QCOMPARE(cell(page.channelModel(), 1, ChannelConfigModel::Provider), QStringLiteral("claude-eu"));
    }

    void doubleClickOpensTheEditor()
    {
        test::TestStore t;
        ProvidersPage page;
        page.setConfigStore(&t.store);
        page.resize(1100, 760);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        QTableView *view = page.routeView();
        const QRect rect = view->visualRect(page.routeModel()->index(2, 0));
        // A view only reports a double click on the index its press landed on, as with a real mouse.
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, rect.center());
        QTest::mouseDClick(view->viewport(), Qt::LeftButton, {}, rect.center());
        auto *dialog = page.findChild<RouteDialog *>();
        QVERIFY(dialog);
        QCOMPARE(child<QLineEdit>(dialog, "modelEdit")->text(), QStringLiteral("claude"));
        dialog->reject();
    }

    void addChannelDialogValidatesAndSaves()
    {
        test::TestStore t;
        ProvidersPage page;
        page.setConfigStore(&t.store);
        auto *dialog = page.openChannelDialog(0, 2);
        QVERIFY(dialog);
        QCOMPARE(child<QComboBox>(dialog, "providerCombo")->currentText(), QStringLiteral("anthropic-backup"));
        QVERIFY(!saveButton(dialog)->isEnabled());
        QVERIFY(child<QLabel>(dialog, "modelError")->text().contains(QStringLiteral("model name")));
        QTest::keyClicks(child<QLineEdit>(dialog, "modelEdit"), QStringLiteral("claude-3-5-haiku-latest"));
        QCOMPARE(child<QLineEdit>(dialog, "nameEdit")->text(), QStringLiteral("claude-3-5-haiku-latest/anthropic-backup"));
        auto *name = child<QLineEdit>(dialog, "nameEdit");
        name->selectAll();
        QTest::keyClicks(name, QStringLiteral("gpt-4o/A"));
        QVERIFY(child<QLabel>(dialog, "nameError")->text().contains(QStringLiteral("already named")));
        QVERIFY(!saveButton(dialog)->isEnabled());
        name->selectAll();
        QTest::keyClicks(name, QStringLiteral("haiku/B"));
        QTest::keyClicks(child<QLineEdit>(dialog, "regionEdit"), QStringLiteral("us-west"));
        QVERIFY(saveButton(dialog)->isEnabled());
        saveButton(dialog)->click();
        QCOMPARE(page.channelModel()->rowCount(), 5);
        const EngineConfigPtr reloaded = t.reload();
        const ChannelConfig *c = reloaded->channel(5);
        QVERIFY(c);
        QCOMPARE(c->name, QStringLiteral("haiku/B"));
        QCOMPARE(c->providerId, 2);
        QCOMPARE(c->upstreamModel, QStringLiteral("claude-3-5-haiku-latest"));
        QCOMPARE(reloaded->domainOf(*c).region, QStringLiteral("us-west"));
        QCOMPARE(reloaded->domainOf(*c).account, QStringLiteral("acct-2")); // the provider's, not overridden
    }

    void deleteAsksNamingDependantsThenTakesThemAlong()
    {
        test::TestStore t;
        ProvidersPage page;
        page.setConfigStore(&t.store);
        const QString question = page.deleteProviderQuestion(2);
        QVERIFY2(question.contains(QStringLiteral("“anthropic-backup”")), qPrintable(question));
        QVERIFY2(question.contains(QStringLiteral("“gpt-4o/B”")), qPrintable(question));
        QVERIFY2(question.contains(QStringLiteral("Routes that use them: “gpt-4o”, “claude”")), qPrintable(question));
        QVERIFY2(question.contains(QStringLiteral("“claude” would have no channel left")), qPrintable(question));
        QVERIFY(page.deleteChannelQuestion(4).contains(QStringLiteral("“gpt-4o-mini”")));

        QVERIFY(page.deleteProvider(2));
        QCOMPARE(page.providerModel()->rowCount(), 1);
        QCOMPARE(page.channelModel()->rowCount(), 3);
        QCOMPARE(page.routeModel()->rowCount(), 2);
        const EngineConfigPtr reloaded = t.reload();
        QVERIFY(!reloaded->provider(2));
        QVERIFY(!reloaded->channel(2));
        QVERIFY(!reloaded->route(u"claude"));
        QCOMPARE(reloaded->route(u"gpt-4o")->channelIds, (std::vector<int>{1, 3}));

        // Deleting the route another falls back to drops that fallback rather than failing the save.
        QVERIFY(page.deleteRoute(2));
        QVERIFY(t.reload()->route(u"gpt-4o")->fallbackModels.isEmpty());
        QVERIFY(page.errorText().isEmpty());
    }

    void buttonsFollowSelectionAndStore()
    {
        ProvidersPage page;
        QVERIFY(!child<QPushButton>(&page, "add_provider")->isEnabled()); // no store: read-only
        test::TestStore t;
        page.setConfigStore(&t.store);
        QVERIFY(child<QPushButton>(&page, "add_provider")->isEnabled());
        QVERIFY(!child<QPushButton>(&page, "edit_provider")->isEnabled());
        page.showProvider(2);
        QVERIFY(child<QPushButton>(&page, "edit_provider")->isEnabled());
        QVERIFY(child<QPushButton>(&page, "delete_provider")->isEnabled());
    }

    void savingAppliesLiveToTheRunningGateway()
    {
        QTemporaryDir dir;
        SplitMixRandom random(3);
        EngineHost host(SystemClock::instance(), random);
        EngineHost::Options options;
        options.dbPath = dir.filePath(QStringLiteral("live.db"));
        options.listen = QStringLiteral("127.0.0.1:0");
        options.secrets = sb::SecretStoreFactory::Preference::DatabaseOnly;
        QString error;
        QVERIFY2(host.start(options, &error), qPrintable(error));
        ProvidersPage page;
        page.setConfigStore(host.configStore());
        const std::size_t before = host.gateway()->config()->providers.size();
        auto *dialog = page.openProviderDialog(0);
        auto *name = child<QLineEdit>(dialog, "nameEdit");
        name->selectAll();
        QTest::keyClicks(name, QStringLiteral("added-live"));
        saveButton(dialog)->click();
        const EngineConfigPtr running = host.gateway()->config();
        QCOMPARE(running->providers.size(), before + 1);
        QCOMPARE(running->providers.back().name, QStringLiteral("added-live"));
        host.stop(std::chrono::milliseconds(0));
    }

    void priceEditorValidatesInlineAndSavesThroughTheStore()
    {
        test::TestStore t(pricedProviders());
        ProvidersPage page;
        page.setConfigStore(&t.store);
        PriceEditor *editor = page.priceEditor();
        PriceTableModel *prices = editor->model();
        auto *save = child<QPushButton>(&page, "save_prices");
        QCOMPARE(prices->rowCount(), 2);
        QCOMPARE(cell(prices, 0, PriceTableModel::Model), QStringLiteral("gpt-4o"));
        QCOMPARE(cell(prices, 0, PriceTableModel::Input), QStringLiteral("2.50"));
        QCOMPARE(prices->index(0, PriceTableModel::Input).data(Qt::EditRole).toString(), QStringLiteral("2.5")); // as stored
        // The engine's matching: the dated gpt-4o-2024-08-06 takes gpt-4o's price.
        QCOMPARE(cell(prices, 0, PriceTableModel::UsedBy), QStringLiteral("gpt-4o/A, gpt-4o/C"));
        QVERIFY2(child<QLabel>(&page, "unpricedChannels")->text().contains(QStringLiteral("claude-3-5-sonnet-latest (gpt-4o/B)")),
                 qPrintable(child<QLabel>(&page, "unpricedChannels")->text()));
        QVERIFY(!save->isEnabled()); // nothing changed yet

        const int row = prices->addRow();
        QVERIFY(!save->isEnabled()); // an empty row is a problem, not a price
        QVERIFY(editor->problemText().contains(QStringLiteral("Row 3: enter the model name")));
        QVERIFY(prices->setData(prices->index(row, PriceTableModel::Model), QStringLiteral("gpt-4o")));
        QVERIFY(prices->setData(prices->index(row, PriceTableModel::Input), QStringLiteral("-3")));
        QVERIFY(prices->setData(prices->index(row, PriceTableModel::Output), QStringLiteral("fifteen")));
        const QString problems = editor->problemText();
        QVERIFY2(problems.contains(QStringLiteral("Row 3: “gpt-4o” is already priced in row 1")), qPrintable(problems));
        QVERIFY2(problems.contains(QStringLiteral("Row 3: the input price cannot be negative")), qPrintable(problems));
        QVERIFY2(problems.contains(QStringLiteral("Row 3: the output price must be a number")), qPrintable(problems));
        QVERIFY(prices->index(row, PriceTableModel::Input).data(Qt::BackgroundRole).isValid()); // the cell is marked
        QVERIFY(!prices->index(0, PriceTableModel::Input).data(Qt::BackgroundRole).isValid());
        QVERIFY(!save->isEnabled());
        QVERIFY(!editor->save());
        QCOMPARE(t.reload()->prices.size(), std::size_t(2));

        QVERIFY(prices->setData(prices->index(row, PriceTableModel::Model), QStringLiteral("claude-3-5-sonnet")));
        QVERIFY(prices->setData(prices->index(row, PriceTableModel::Input), QStringLiteral("3")));
        QVERIFY(prices->setData(prices->index(row, PriceTableModel::Output), QStringLiteral("$15.00")));
        // The prompt-cache prices: empty reads as the input price; a bad one is a problem like any price.
        QCOMPARE(cell(prices, row, PriceTableModel::CachedInput), QStringLiteral("as input"));
        QVERIFY(editor->problemText().isEmpty());
        QVERIFY(prices->setData(prices->index(row, PriceTableModel::CachedInput), QStringLiteral("-0.3")));
        QVERIFY2(editor->problemText().contains(QStringLiteral("Row 3: the cached input price cannot be negative")),
                 qPrintable(editor->problemText()));
        QVERIFY(!save->isEnabled());
        QVERIFY(prices->setData(prices->index(row, PriceTableModel::CachedInput), QStringLiteral("0.30")));
        QCOMPARE(cell(prices, row, PriceTableModel::CachedInput), QStringLiteral("0.30"));
        QVERIFY(editor->problemText().isEmpty());
        QCOMPARE(cell(prices, row, PriceTableModel::UsedBy), QStringLiteral("gpt-4o/B"));
        QVERIFY(child<QLabel>(&page, "unpricedChannels")->text().isEmpty());
        QVERIFY(save->isEnabled());
        save->click();

        const EngineConfigPtr reloaded = t.reload();
        QCOMPARE(reloaded->prices.size(), std::size_t(3));
        const ModelPrice *claude = CostMeter::findPrice(reloaded->prices, QStringLiteral("claude-3-5-sonnet-latest"), QString());
        QVERIFY(claude);
        QCOMPARE(claude->inputUsdPerM, 3.0);
        QCOMPARE(claude->outputUsdPerM, 15.0);
        QCOMPARE(claude->cachedInputUsdPerM, 0.30);
        QVERIFY(!ModelPrice::isSet(claude->cacheWriteUsdPerM)); // left empty: billed at the input price
        QCOMPARE(claude->cacheWritePrice(), 3.0);
        int claudeRow = -1;
        for (int r = 0; r < prices->rowCount(); ++r)
            if (cell(prices, r, PriceTableModel::Model) == QLatin1String("claude-3-5-sonnet"))
                claudeRow = r;
        QVERIFY(claudeRow >= 0);
        QCOMPARE(prices->index(claudeRow, PriceTableModel::CachedInput).data(Qt::EditRole).toString(), QStringLiteral("0.3")); // read back
        QVERIFY(prices->index(claudeRow, PriceTableModel::CacheWrite).data(Qt::EditRole).toString().isEmpty());
        QVERIFY(!save->isEnabled()); // saved: the draft is the stored table again
        QCOMPARE(prices->rowCount(), 3);
        QVERIFY(!prices->dirty());

        // Removing a row and reverting brings it back; removing and saving drops it.
        page.priceEditor()->view()->selectRow(0);
        child<QPushButton>(&page, "remove_price")->click();
        QCOMPARE(prices->rowCount(), 2);
        child<QPushButton>(&page, "revert_prices")->click();
        QCOMPARE(prices->rowCount(), 3);
        page.priceEditor()->view()->selectRow(0);
        child<QPushButton>(&page, "remove_price")->click();
        QVERIFY(editor->save());
        QCOMPARE(t.reload()->prices.size(), std::size_t(2));
    }

    void aDraftSurvivesAnotherSave()
    {
        test::TestStore t(pricedProviders());
        ProvidersPage page;
        page.setConfigStore(&t.store);
        PriceTableModel *prices = page.priceEditor()->model();
        QVERIFY(prices->setData(prices->index(0, PriceTableModel::Input), QStringLiteral("2.75")));
        QVERIFY(page.deleteChannel(4)); // saved elsewhere on the page while the price is being typed
        QCOMPARE(cell(prices, 0, PriceTableModel::Input), QStringLiteral("2.75"));
        QVERIFY(prices->setData(prices->index(1, PriceTableModel::Input), QStringLiteral("0.075")));
        QCOMPARE(cell(prices, 1, PriceTableModel::Input), QStringLiteral("0.075"));
        QVERIFY(prices->dirty());
    }

    void spendColumnFollowsTheEngineSnapshots()
    {
        test::TestStore t(pricedProviders());
        ProvidersPage page;
        page.setConfigStore(&t.store);
        const EngineConfigPtr config = t.store.current();
        const RouteTableModel *routes = page.routeModel();
        auto budget = [routes](int row) { return routes->index(row, RouteTableModel::Budget); };
        // Before the engine reports: the limits alone.
        QCOMPARE(budget(0).data().toString(), QStringLiteral("$10.00 a day"));
        QCOMPARE(budget(2).data().toString(), QStringLiteral("no budget"));
        QCOMPARE(budget(0).data(RouteTableModel::BudgetLevelRole).toInt(), int(RouteTableModel::BudgetLevel::None));

        QSignalSpy changed(routes, &QAbstractItemModel::dataChanged);
        MetricsSnapshot snapshot;
        snapshot.routeSpend = {spend("gpt-4o", 3.12, *config), spend("gpt-4o-mini", 33.0, *config), spend("claude", 0.42, *config)};
        page.applySnapshot(snapshot);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.at(0).at(0).value<QModelIndex>().column(), int(RouteTableModel::Budget));
        QCOMPARE(changed.at(0).at(1).value<QModelIndex>().column(), int(RouteTableModel::Budget));
        QCOMPARE(budget(0).data().toString(), QStringLiteral("$3.12 of $10.00 today · 31 %"));
        QCOMPARE(budget(0).data(RouteTableModel::BudgetLevelRole).toInt(), int(RouteTableModel::BudgetLevel::Within));
        QCOMPARE(budget(1).data().toString(), QStringLiteral("$33.00 of $40.00 this month · 82 % · near the alert"));
        QCOMPARE(budget(1).data(RouteTableModel::BudgetLevelRole).toInt(), int(RouteTableModel::BudgetLevel::Warning));
        QCOMPARE(budget(2).data().toString(), QStringLiteral("$0.42 today · no budget"));
        QCOMPARE(budget(2).data(RouteTableModel::BudgetFractionRole).toDouble(), -1.0);
        page.applySnapshot(snapshot); // nothing new: no signal
        QCOMPARE(changed.count(), 1);

        snapshot.routeSpend[0].spentUsd = 8.5;
        page.applySnapshot(snapshot);
        QCOMPARE(changed.count(), 2);
        QCOMPARE(changed.at(1).at(0).value<QModelIndex>().row(), 0);
        QCOMPARE(changed.at(1).at(1).value<QModelIndex>().row(), 0); // only the row that moved
        QCOMPARE(budget(0).data().toString(), QStringLiteral("$8.50 of $10.00 today · 85 % · past the alert"));
        snapshot.routeSpend[0].spentUsd = 10.02;
        page.applySnapshot(snapshot);
        QCOMPARE(budget(0).data().toString(), QStringLiteral("$10.02 of $10.00 today · 100 % · hard stop reached"));
        QCOMPARE(budget(0).data(RouteTableModel::BudgetLevelRole).toInt(), int(RouteTableModel::BudgetLevel::Stopped));
        QVERIFY(budget(0).data(Qt::ToolTipRole).toString().contains(QStringLiteral("hard stop at $10.00")));
    }

    void screenshots_data()
    {
        QTest::addColumn<bool>("dark");
        QTest::newRow("light") << false;
        QTest::newRow("dark") << true;
    }

    void screenshots()
    {
        QFETCH(bool, dark);
        const QPalette original = QApplication::palette();
        QApplication::setPalette(dark ? darkPalette() : QApplication::style()->standardPalette());
        const QString suffix = dark ? QStringLiteral("-dark") : QString();
        test::TestStore t(pricedProviders());
        ProvidersPage page;
        page.setConfigStore(&t.store);
        page.resize(1200, 860);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        MetricsSnapshot snapshot;
        ChannelSnapshot a;
        a.providerId = 1;
        a.keysHealthy = 1;
        a.keysTotal = 2;
        snapshot.channels = {a};
        const EngineConfigPtr config = t.store.current();
        snapshot.routeSpend = {spend("gpt-4o", 8.42, *config), spend("gpt-4o-mini", 3.12, *config), spend("claude", 0.42, *config)};
        page.applySnapshot(snapshot);
        page.providerView()->selectRow(0);
        QVERIFY(saveShot(&page, QStringLiteral("providers-page") + suffix));

        test::CannedHttpServer server(200, "{\"object\":\"list\",\"data\":[{\"id\":\"gpt-4o\"},{\"id\":\"gpt-4o-mini\"},{\"id\":\"o3-mini\"}]}");
        auto *dialog = page.openProviderDialog(1);
        QVERIFY(QTest::qWaitForWindowExposed(dialog));
        dialog->findChild<QTableView *>(QStringLiteral("keysView"))->selectRow(0);
        // A real probe, to a loopback stand-in (the shot shows its address rather than a real provider's).
        dialog->findChild<QLineEdit *>(QStringLiteral("baseUrlEdit"))->setText(server.baseUrl());
        child<QPushButton>(dialog, "testButton")->click();
        QTRY_VERIFY_WITH_TIMEOUT(child<QLabel>(dialog, "testResult")->text().startsWith(QStringLiteral("Key ")), 15000);
        QVERIFY(saveShot(dialog, QStringLiteral("provider-dialog") + suffix));

        // The same dialog with problems, as a user sees them before fixing them.
        child<QLineEdit>(dialog, "nameEdit")->setText(QStringLiteral("anthropic-backup"));
        child<QLineEdit>(dialog, "baseUrlEdit")->setText(QStringLiteral("api.openai.com/v1"));
        QVERIFY(saveShot(dialog, QStringLiteral("provider-dialog-invalid") + suffix));
        dialog->reject();

        auto *route = page.openRouteDialog(1);
        QVERIFY(QTest::qWaitForWindowExposed(route));
        QVERIFY(saveShot(route, QStringLiteral("route-dialog") + suffix));
        child<QLineEdit>(route, "budgetHardEdit")->setText(QStringLiteral("5"));
        QVERIFY(saveShot(route, QStringLiteral("route-dialog-invalid") + suffix));
        route->reject();
        auto *channel = page.openChannelDialog(2);
        QVERIFY(QTest::qWaitForWindowExposed(channel));
        QVERIFY(saveShot(channel, QStringLiteral("channel-dialog") + suffix));
        channel->reject();
        QApplication::setPalette(original);
    }
};

QTEST_MAIN(tst_ProvidersPage)
#include "tst_ProvidersPage.moc"
