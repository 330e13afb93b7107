#include "ProviderTestStore.h"
#include "providers/ConfigEdits.h"
#include "providers/RouteDialog.h"
#include "providers/TierListModel.h"

#include <QtTest>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QListView>
#include <QMimeData>
#include <QPushButton>

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

std::vector<int> ids(const TierListModel *model)
{
    std::vector<int> out;
    for (const auto &item : model->items())
        out.push_back(item.id);
    return out;
}

QStringList texts(const TierListModel *model)
{
    QStringList out;
    for (const auto &item : model->items())
        out << item.text;
    return out;
}

const RouteConfig *route(const EngineConfig &config, const QString &model)
{
    return config.route(model);
}

} // namespace

class tst_RouteDialog : public QObject {
    Q_OBJECT
private slots:
    void loadsTheRouteInTierOrder()
    {
        test::TestStore t;
        RouteDialog dialog(t.store, 1);
        QCOMPARE(child<QLineEdit>(&dialog, "modelEdit")->text(), QStringLiteral("gpt-4o"));
        QCOMPARE(ids(dialog.channelModel()), (std::vector<int>{1, 2, 3}));
        QCOMPARE(texts(dialog.fallbackModel()), QStringList{QStringLiteral("gpt-4o-mini")});
        QVERIFY(dialog.channelModel()->index(0).data().toString().startsWith(QStringLiteral("1.  gpt-4o/A")));
        // The pickers offer only what is not listed yet; a route never falls back to itself.
        auto *channelPicker = child<QComboBox>(&dialog, "channelsPicker");
        QCOMPARE(channelPicker->count(), 1);
        QCOMPARE(channelPicker->itemData(0).toInt(), 4);
        auto *fallbackPicker = child<QComboBox>(&dialog, "fallbacksPicker");
        QCOMPARE(fallbackPicker->count(), 1);
        QCOMPARE(fallbackPicker->itemText(0), QStringLiteral("claude"));
    }

    void theClientErrorSwitchIsOnByDefaultAndSavesOff()
    {
        test::TestStore t;
        RouteDialog dialog(t.store, 1);
        auto *check = child<QCheckBox>(&dialog, "clientErrorsElsewhereCheck");
        QVERIFY(check->isChecked()); // a stored route that never set it: the default, on
        QVERIFY(!check->toolTip().isEmpty());
        check->click();
        saveButton(&dialog)->click();
        QCOMPARE(dialog.result(), int(QDialog::Accepted));
        const EngineConfigPtr reloaded = t.reload(); // keeps the config alive while r points into it
        const RouteConfig *r = route(*reloaded, QStringLiteral("gpt-4o"));
        QVERIFY(r);
        QVERIFY(!r->retryClientErrorsElsewhere);

        RouteDialog again(t.store, 1); // and reads back off
        QVERIFY(!child<QCheckBox>(&again, "clientErrorsElsewhereCheck")->isChecked());
    }

    // The stream choices of a route: each box shows its default, says why in its tooltip, and
    // saves and reads back flipped without touching the other.
    void aRoutesStreamChoicesSaveAndReadBack_data()
    {
        QTest::addColumn<QString>("box");
        QTest::addColumn<bool>("byDefault");
        QTest::addColumn<QString>("tooltipSays");
        QTest::addRow("continue a broken stream") << "continueStreamsCheck" << true << "tool call";
        QTest::addRow("stream tool-call arguments") << "streamToolCallsCheck" << false << "exactly once";
    }

    void aRoutesStreamChoicesSaveAndReadBack()
    {
        QFETCH(QString, box);
        QFETCH(bool, byDefault);
        QFETCH(QString, tooltipSays);
        const auto chosen = [&box](const RouteConfig &r) { return box == QLatin1String("continueStreamsCheck") ? r.continueStreams : r.streamToolCalls; };
        const auto other = [&box](const RouteConfig &r) { return box == QLatin1String("continueStreamsCheck") ? r.streamToolCalls : r.continueStreams; };
        test::TestStore t;
        RouteDialog dialog(t.store, 1);
        auto *check = child<QCheckBox>(&dialog, box.toLatin1().constData());
        QCOMPARE(check->isChecked(), byDefault);
        QVERIFY(check->toolTip().contains(tooltipSays));
        const bool otherBefore = other(*route(*t.reload(), QStringLiteral("gpt-4o")));
        check->click();
        saveButton(&dialog)->click();
        QCOMPARE(dialog.result(), int(QDialog::Accepted));
        const EngineConfigPtr reloaded = t.reload();
        const RouteConfig *r = route(*reloaded, QStringLiteral("gpt-4o"));
        QVERIFY(r);
        QCOMPARE(chosen(*r), !byDefault);
        QCOMPARE(other(*r), otherBefore); // the other choice untouched
        QVERIFY(r->retryClientErrorsElsewhere);

        RouteDialog again(t.store, 1);
        QCOMPARE(child<QCheckBox>(&again, box.toLatin1().constData())->isChecked(), !byDefault);
    }

    void moveRowsReordersLikeADrag()
    {
        test::TestStore t;
        RouteDialog dialog(t.store, 1);
        TierListModel *model = dialog.channelModel();
        QSignalSpy moved(model, &QAbstractItemModel::rowsMoved);
        // What QListView's internal-move drop calls: move the first channel behind the last.
        QVERIFY(model->moveRows({}, 0, 1, {}, 3));
        QCOMPARE(ids(model), (std::vector<int>{2, 3, 1}));
        QCOMPARE(moved.count(), 1);
        QVERIFY(model->index(2).data().toString().startsWith(QStringLiteral("3.  gpt-4o/A"))); // renumbered
        // Onto itself is no move; out of range is refused.
        QVERIFY(!model->moveRows({}, 1, 1, {}, 1));
        QVERIFY(!model->moveRows({}, 0, 1, {}, 9));
        // The mime path (a drop that does not go through QListView) moves too, and never duplicates.
        std::unique_ptr<QMimeData> data(model->mimeData({model->index(2)}));
        model->dropMimeData(data.get(), Qt::MoveAction, 0, 0, {});
        QCOMPARE(ids(model), (std::vector<int>{1, 2, 3}));
        QVERIFY(model->flags(model->index(0)) & Qt::ItemIsDragEnabled);
        QVERIFY(!(model->flags(model->index(0)) & Qt::ItemIsDropEnabled)); // drops go between items, not onto one
    }

    void upAndDownButtonsAndShortcutsReorderForKeyboardUsers()
    {
        test::TestStore t;
        RouteDialog dialog(t.store, 1);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        auto *view = child<QListView>(&dialog, "channelsView");
        auto *up = child<QPushButton>(&dialog, "channelsUpButton");
        auto *down = child<QPushButton>(&dialog, "channelsDownButton");
        QVERIFY(!up->isEnabled() && !down->isEnabled()); // nothing selected
        view->setCurrentIndex(dialog.channelModel()->index(0));
        QVERIFY(!up->isEnabled());
        QVERIFY(down->isEnabled());
        down->click();
        QCOMPARE(ids(dialog.channelModel()), (std::vector<int>{2, 1, 3}));
        QCOMPARE(view->currentIndex().row(), 1); // the selection follows the moved channel
        down->click();
        QCOMPARE(ids(dialog.channelModel()), (std::vector<int>{2, 3, 1}));
        QVERIFY(!down->isEnabled());
        up->click();
        QCOMPARE(ids(dialog.channelModel()), (std::vector<int>{2, 1, 3}));

        view->setFocus();
        view->setCurrentIndex(dialog.channelModel()->index(2));
        QTest::keyClick(view, Qt::Key_Up, Qt::ControlModifier);
        QCOMPARE(ids(dialog.channelModel()), (std::vector<int>{2, 3, 1}));

        // Add the spare channel and a second fallback; order the fallbacks by priority.
        child<QPushButton>(&dialog, "channelsAddButton")->click();
        QCOMPARE(ids(dialog.channelModel()), (std::vector<int>{2, 3, 1, 4}));
        child<QPushButton>(&dialog, "fallbacksAddButton")->click();
        QCOMPARE(texts(dialog.fallbackModel()), (QStringList{QStringLiteral("gpt-4o-mini"), QStringLiteral("claude")}));
        child<QListView>(&dialog, "fallbacksView")->setCurrentIndex(dialog.fallbackModel()->index(1));
        child<QPushButton>(&dialog, "fallbacksUpButton")->click();
        QCOMPARE(texts(dialog.fallbackModel()), (QStringList{QStringLiteral("claude"), QStringLiteral("gpt-4o-mini")}));

        saveButton(&dialog)->click();
        QCOMPARE(dialog.result(), int(QDialog::Accepted));
        const EngineConfigPtr reloaded = t.reload();
        const RouteConfig *r = route(*reloaded, QStringLiteral("gpt-4o"));
        QVERIFY(r);
        QCOMPARE(r->channelIds, (std::vector<int>{2, 3, 1, 4}));
        QCOMPARE(r->fallbackModels, (QStringList{QStringLiteral("claude"), QStringLiteral("gpt-4o-mini")}));
    }

    void invalidRoutesShowWhyAndCannotBeSaved()
    {
        test::TestStore t;
        RouteDialog dialog(t.store, 0);
        dialog.show();
        auto *modelError = child<QLabel>(&dialog, "modelError");
        auto *channelsError = child<QLabel>(&dialog, "channelsError");
        QVERIFY(!saveButton(&dialog)->isEnabled());
        QVERIFY(modelError->text().contains(QStringLiteral("Enter the model name")));
        QVERIFY(channelsError->text().contains(QStringLiteral("Add at least one channel")));

        QTest::keyClicks(child<QLineEdit>(&dialog, "modelEdit"), QStringLiteral("claude"));
        QVERIFY(modelError->text().contains(QStringLiteral("already exists")));
        child<QLineEdit>(&dialog, "modelEdit")->clear();
        QTest::keyClicks(child<QLineEdit>(&dialog, "modelEdit"), QStringLiteral("auto"));
        QVERIFY(modelError->text().contains(QStringLiteral("reserved")));
        child<QLineEdit>(&dialog, "modelEdit")->clear();
        QTest::keyClicks(child<QLineEdit>(&dialog, "modelEdit"), QStringLiteral("o3-mini"));
        QVERIFY(modelError->text().isEmpty());
        QVERIFY(!saveButton(&dialog)->isEnabled()); // still no channel

        child<QPushButton>(&dialog, "channelsAddButton")->click();
        QVERIFY(channelsError->text().contains(QStringLiteral("no failover"))); // a warning, not a blocker
        QVERIFY(saveButton(&dialog)->isEnabled());
        child<QPushButton>(&dialog, "channelsAddButton")->click();
        QVERIFY(channelsError->text().isEmpty());
        auto *strategy = child<QComboBox>(&dialog, "strategyCombo");
        strategy->setCurrentIndex(strategy->findData(int(RoutingStrategy::Priority)));
        QVERIFY(dialog.save());

        const EngineConfigPtr reloaded = t.reload(); // keeps the config alive while r points into it
        const RouteConfig *r = route(*reloaded, QStringLiteral("o3-mini"));
        QVERIFY(r);
        QVERIFY(r->id > 3);
        QCOMPARE(r->channelIds, (std::vector<int>{1, 2}));
        QCOMPARE(r->strategy, RoutingStrategy::Priority);
    }

    void storeRefusalIsShownInline()
    {
        // Someone deletes a channel while this dialog still lists it: the store refuses the save and
        // the dialog says why, above its buttons, and stays open.
        test::TestStore t;
        RouteDialog dialog(t.store, 1);
        dialog.show();
        EngineConfig edited = *t.store.current();
        std::erase_if(edited.channels, [](const ChannelConfig &c) { return c.id == 3; });
        for (auto &r : edited.routes)
            std::erase(r.channelIds, 3);
        QVERIFY(t.store.save(edited).ok());

        QVERIFY(!dialog.save());
        auto *saveError = child<QLabel>(&dialog, "saveError");
        QVERIFY(saveError->isVisible());
        QVERIFY2(saveError->text().contains(QStringLiteral("channel id 3, which does not exist")), qPrintable(saveError->text()));
        QVERIFY(dialog.isVisible());
        QCOMPARE(t.reload()->route(u"gpt-4o")->channelIds, (std::vector<int>{1, 2}));
    }

    void renamingARouteKeepsTheFallbacksThatPointToIt()
    {
        test::TestStore t;
        RouteDialog dialog(t.store, 2); // gpt-4o-mini, the fallback of gpt-4o
        auto *edit = child<QLineEdit>(&dialog, "modelEdit");
        edit->clear();
        QTest::keyClicks(edit, QStringLiteral("small"));
        QVERIFY(dialog.save());
        QCOMPARE(t.reload()->route(u"gpt-4o")->fallbackModels, QStringList{QStringLiteral("small")});
    }

    void budgetFieldsValidateInlineAndSaveThroughTheStore()
    {
        test::TestStore t;
        RouteDialog dialog(t.store, 1);
        dialog.show();
        auto *soft = child<QLineEdit>(&dialog, "budgetSoftEdit");
        auto *hard = child<QLineEdit>(&dialog, "budgetHardEdit");
        auto *error = child<QLabel>(&dialog, "budgetError");
        QVERIFY(soft->text().isEmpty() && hard->text().isEmpty()); // no budget yet
        QVERIFY(saveButton(&dialog)->isEnabled());

        QTest::keyClicks(soft, QStringLiteral("ten"));
        QVERIFY2(error->text().contains(QStringLiteral("alert must be an amount in US dollars")), qPrintable(error->text()));
        QVERIFY(error->isVisible());
        QVERIFY(!saveButton(&dialog)->isEnabled());
        soft->setText(QStringLiteral("-5"));
        QVERIFY2(error->text().contains(QStringLiteral("alert cannot be negative")), qPrintable(error->text()));
        QVERIFY(!saveButton(&dialog)->isEnabled());
        soft->setText(QStringLiteral("8"));
        hard->setText(QStringLiteral("$5"));
        QVERIFY2(error->text().contains(QStringLiteral("hard stop ($5.00) is below the alert ($8.00)")), qPrintable(error->text()));
        QVERIFY(!saveButton(&dialog)->isEnabled());
        QVERIFY(!dialog.save());
        QVERIFY(t.reload()->budgets.empty());
        hard->setText(QStringLiteral("10.50"));
        QVERIFY(error->text().isEmpty());
        QVERIFY(!error->isVisible());
        auto *period = child<QComboBox>(&dialog, "budgetPeriodCombo");
        period->setCurrentIndex(period->findData(int(BudgetPeriod::Month)));
        QVERIFY(saveButton(&dialog)->isEnabled());
        QVERIFY(dialog.save());

        {
            const EngineConfigPtr reloaded = t.reload();
            QCOMPARE(reloaded->budgets.size(), std::size_t(1));
            const BudgetConfig &b = reloaded->budgets.front();
            QCOMPARE(b.model, QStringLiteral("gpt-4o"));
            QCOMPARE(b.period, BudgetPeriod::Month);
            QCOMPARE(b.softLimitUsd, 8.0);
            QCOMPARE(b.hardLimitUsd, 10.5);
        }
        // Opened again, the dialog shows what was saved.
        RouteDialog again(t.store, 1);
        QCOMPARE(child<QLineEdit>(&again, "budgetSoftEdit")->text(), QStringLiteral("8"));
        QCOMPARE(child<QLineEdit>(&again, "budgetHardEdit")->text(), QStringLiteral("10.5"));
        QCOMPARE(child<QComboBox>(&again, "budgetPeriodCombo")->currentData().toInt(), int(BudgetPeriod::Month));
    }

    void aRenamedRouteKeepsItsBudgetAndEmptyFieldsRemoveIt()
    {
        EngineConfig initial = test::sampleProviders();
        initial.budgets = {BudgetConfig{QStringLiteral("claude"), BudgetPeriod::Day, 1.0, 0.0}};
        test::TestStore t(initial);
        RouteDialog rename(t.store, 3);
        QCOMPARE(child<QLineEdit>(&rename, "budgetSoftEdit")->text(), QStringLiteral("1"));
        QVERIFY(child<QLineEdit>(&rename, "budgetHardEdit")->text().isEmpty()); // no hard stop
        auto *model = child<QLineEdit>(&rename, "modelEdit");
        model->clear();
        QTest::keyClicks(model, QStringLiteral("claude-eu"));
        QVERIFY(rename.save());
        QCOMPARE(t.reload()->budgets.size(), std::size_t(1));
        QCOMPARE(t.reload()->budgets.front().model, QStringLiteral("claude-eu"));

        RouteDialog clear(t.store, 3);
        child<QLineEdit>(&clear, "budgetSoftEdit")->clear();
        QVERIFY(clear.save());
        QVERIFY(t.reload()->budgets.empty());
    }

    void deletingARouteTakesItsBudgetAlong()
    {
        // Before, the budget was left naming a route that no longer existed and the store refused the delete.
        EngineConfig config = test::sampleProviders();
        config.budgets = {BudgetConfig{QStringLiteral("claude"), BudgetPeriod::Day, 1.0, 2.0}};
        ConfigEdits::removeRoute(config, 3);
        QVERIFY(config.budgets.empty());
        QVERIFY2(config.validate().isEmpty(), qPrintable(config.validate().join(' ')));
    }
};

QTEST_MAIN(tst_RouteDialog)
#include "tst_RouteDialog.moc"
