#include "providers/RouteDialog.h"
#include "ui_RouteDialog.h"

#include "providers/ConfigEdits.h"
#include "providers/InlineMessage.h"
#include "providers/TierListModel.h"
#include "providers/UsdAmount.h"
#include "store/ConfigStore.h"

#include <QPushButton>
#include <QShortcut>

#include <algorithm>

namespace sb {

namespace {

QString channelText(const EngineConfig &config, const ChannelConfig &c)
{
    const ProviderConfig *p = config.provider(c.providerId);
    return QStringLiteral("%1  (%2 · %3)").arg(c.name, p ? p->name : QStringLiteral("?"), c.upstreamModel);
}

int selectedRow(QListView *view)
{
    const QModelIndexList rows = view->selectionModel()->selectedRows();
    return rows.isEmpty() ? -1 : rows.first().row();
}

} // namespace

RouteDialog::RouteDialog(ConfigStore &store, int routeId, QWidget *parent)
    : QDialog(parent), m_ui(std::make_unique<Ui::RouteDialog>()), m_store(store), m_routeId(routeId)
{
    m_ui->setupUi(this);
    setWindowTitle(routeId ? tr("Edit route") : tr("Add route"));
    for (QLabel *label : {m_ui->modelError, m_ui->channelsError, m_ui->fallbacksError, m_ui->budgetError, m_ui->saveError})
        InlineMessage::prepare(label);
    for (QLabel *hint : {m_ui->channelsHint, m_ui->fallbacksHint, m_ui->budgetHint}) {
        hint->setWordWrap(true);
        hint->setForegroundRole(QPalette::PlaceholderText);
    }
    const struct {
        RoutingStrategy strategy;
        const char *text;
    } strategies[] = {
        {RoutingStrategy::Health, QT_TR_NOOP("health — the healthier channel first (recommended)")},
        {RoutingStrategy::Priority, QT_TR_NOOP("priority — in the listed order")},
        {RoutingStrategy::Weighted, QT_TR_NOOP("weighted — by channel weight × health")},
        {RoutingStrategy::Latency, QT_TR_NOOP("latency — the faster of two random channels")},
        {RoutingStrategy::RoundRobin, QT_TR_NOOP("round-robin")},
    };
    for (const auto &s : strategies)
        m_ui->strategyCombo->addItem(tr(s.text), int(s.strategy));
    // Room between each amount label and the field before it, so "Alert at US$" reads as one group.
    m_ui->budgetRow->setSpacing(6);
    for (QLabel *label : {m_ui->budgetSoftLabel, m_ui->budgetHardLabel})
        label->setContentsMargins(12, 0, 0, 0);
    m_ui->budgetPeriodCombo->addItem(tr("per day (UTC)"), int(BudgetPeriod::Day));
    m_ui->budgetPeriodCombo->addItem(tr("per month (UTC)"), int(BudgetPeriod::Month));

    m_channels = new TierListModel(this);
    m_fallbacks = new TierListModel(this);
    const EngineConfigPtr config = m_store.current();
    RouteConfig initial;
    if (config && routeId)
        for (const auto &r : config->routes)
            if (r.id == routeId)
                initial = r;
    m_originalName = initial.logicalModel;
    m_ui->modelEdit->setText(initial.logicalModel);
    m_ui->strategyCombo->setCurrentIndex(std::max(0, m_ui->strategyCombo->findData(int(initial.strategy))));
    m_ui->cacheCheck->setChecked(initial.cacheEnabled);
    m_ui->clientErrorsElsewhereCheck->setChecked(initial.retryClientErrorsElsewhere);
    m_ui->continueStreamsCheck->setChecked(initial.continueStreams);
    m_ui->streamToolCallsCheck->setChecked(initial.streamToolCalls);
    if (const BudgetConfig *b = config ? findBudget(config->budgets, initial.logicalModel) : nullptr; b && routeId) {
        m_ui->budgetPeriodCombo->setCurrentIndex(std::max(0, m_ui->budgetPeriodCombo->findData(int(b->period))));
        m_ui->budgetSoftEdit->setText(UsdAmount::editText(b->softLimitUsd));
        m_ui->budgetHardEdit->setText(UsdAmount::editText(b->hardLimitUsd));
    }
    std::vector<TierListModel::Item> channels, fallbacks;
    for (int id : initial.channelIds)
        if (const ChannelConfig *c = config ? config->channel(id) : nullptr)
            channels.push_back({id, channelText(*config, *c)});
    for (const QString &f : initial.fallbackModels)
        fallbacks.push_back({0, f});
    m_channels->setItems(std::move(channels));
    m_fallbacks->setItems(std::move(fallbacks));

    setUpTier(m_channels, {m_ui->channelsView, m_ui->channelsUpButton, m_ui->channelsDownButton, m_ui->channelsRemoveButton});
    setUpTier(m_fallbacks, {m_ui->fallbacksView, m_ui->fallbacksUpButton, m_ui->fallbacksDownButton, m_ui->fallbacksRemoveButton});
    connect(m_ui->channelsAddButton, &QPushButton::clicked, this, [this] {
        const int id = m_ui->channelsPicker->currentData().toInt();
        if (id > 0)
            m_channels->append({id, m_ui->channelsPicker->currentText()});
    });
    connect(m_ui->fallbacksAddButton, &QPushButton::clicked, this, [this] {
        const QString model = m_ui->fallbacksPicker->currentData().toString();
        if (!model.isEmpty())
            m_fallbacks->append({0, model});
    });
    for (TierListModel *model : {m_channels, m_fallbacks}) {
        connect(model, &QAbstractItemModel::rowsInserted, this, &RouteDialog::refillPickers);
        connect(model, &QAbstractItemModel::rowsRemoved, this, &RouteDialog::refillPickers);
        connect(model, &QAbstractItemModel::rowsInserted, this, &RouteDialog::validate);
        connect(model, &QAbstractItemModel::rowsRemoved, this, &RouteDialog::validate);
    }
    connect(m_ui->modelEdit, &QLineEdit::textChanged, this, [this] {
        refillPickers(); // a route cannot fall back to itself
        validate();
    });
    for (QLineEdit *edit : {m_ui->budgetSoftEdit, m_ui->budgetHardEdit})
        connect(edit, &QLineEdit::textChanged, this, &RouteDialog::validate);
    QPushButton *save = m_ui->buttonBox->button(QDialogButtonBox::Save);
    save->setDefault(true);
    connect(save, &QPushButton::clicked, this, &RouteDialog::save);
    connect(m_ui->buttonBox, &QDialogButtonBox::rejected, this, &QDialog::reject);
    refillPickers();
    validate();
}

RouteDialog::~RouteDialog() = default;

void RouteDialog::setUpTier(TierListModel *model, const TierWidgets &w)
{
    w.view->setModel(model);
    w.view->setSelectionMode(QAbstractItemView::SingleSelection);
    w.view->setDragEnabled(true);
    w.view->setAcceptDrops(true);
    w.view->setDropIndicatorShown(true);
    w.view->setDragDropMode(QAbstractItemView::InternalMove);
    w.view->setDefaultDropAction(Qt::MoveAction);
    w.view->setMinimumHeight(w.view->fontMetrics().height() * 5);
    auto move = [model, view = w.view](int delta) {
        const int row = selectedRow(view);
        const int target = row + delta;
        if (row < 0 || target < 0 || target >= model->rowCount())
            return;
        // moveRows names the gap to insert before: one further down when moving down.
        model->moveRows({}, row, 1, {}, delta > 0 ? target + 1 : target);
        view->setCurrentIndex(model->index(target));
    };
    auto update = [model, w] {
        const int row = selectedRow(w.view);
        w.up->setEnabled(row > 0);
        w.down->setEnabled(row >= 0 && row < model->rowCount() - 1);
        w.remove->setEnabled(row >= 0);
    };
    connect(w.up, &QPushButton::clicked, this, [move] { move(-1); });
    connect(w.down, &QPushButton::clicked, this, [move] { move(+1); });
    connect(w.remove, &QPushButton::clicked, this, [model, view = w.view] { model->removeAt(selectedRow(view)); });
    auto *upKey = new QShortcut(QKeySequence(Qt::CTRL | Qt::Key_Up), w.view);
    auto *downKey = new QShortcut(QKeySequence(Qt::CTRL | Qt::Key_Down), w.view);
    upKey->setContext(Qt::WidgetShortcut);
    downKey->setContext(Qt::WidgetShortcut);
    connect(upKey, &QShortcut::activated, this, [move] { move(-1); });
    connect(downKey, &QShortcut::activated, this, [move] { move(+1); });
    connect(w.view->selectionModel(), &QItemSelectionModel::selectionChanged, this, update);
    connect(model, &QAbstractItemModel::rowsMoved, this, update);
    connect(model, &QAbstractItemModel::rowsRemoved, this, update);
    connect(model, &QAbstractItemModel::rowsInserted, this, update);
    update();
}

void RouteDialog::refillPickers()
{
    const EngineConfigPtr config = m_store.current();
    m_ui->channelsPicker->clear();
    m_ui->fallbacksPicker->clear();
    if (!config)
        return;
    for (const auto &c : config->channels)
        if (!m_channels->contains(c.id, {}))
            m_ui->channelsPicker->addItem(channelText(*config, c), c.id);
    const QString self = m_ui->modelEdit->text().trimmed();
    for (const auto &r : config->routes)
        if (r.logicalModel != self && r.logicalModel != m_originalName && !m_fallbacks->contains(0, r.logicalModel))
            m_ui->fallbacksPicker->addItem(r.logicalModel, r.logicalModel);
    m_ui->channelsAddButton->setEnabled(m_ui->channelsPicker->count() > 0);
    m_ui->fallbacksAddButton->setEnabled(m_ui->fallbacksPicker->count() > 0);
    if (m_ui->channelsPicker->count() == 0)
        m_ui->channelsPicker->setPlaceholderText(config->channels.empty() ? tr("no channels yet — add one on the Providers page")
                                                                          : tr("every channel is listed"));
    if (m_ui->fallbacksPicker->count() == 0)
        m_ui->fallbacksPicker->setPlaceholderText(tr("no other routes to fall back to"));
}

RouteConfig RouteDialog::route() const
{
    RouteConfig r;
    if (const EngineConfigPtr config = m_store.current())
        for (const auto &existing : config->routes)
            if (existing.id == m_routeId && m_routeId)
                r = existing;
    r.id = m_routeId;
    r.logicalModel = m_ui->modelEdit->text().trimmed();
    r.strategy = RoutingStrategy(m_ui->strategyCombo->currentData().toInt());
    r.cacheEnabled = m_ui->cacheCheck->isChecked();
    r.retryClientErrorsElsewhere = m_ui->clientErrorsElsewhereCheck->isChecked();
    r.continueStreams = m_ui->continueStreamsCheck->isChecked();
    r.streamToolCalls = m_ui->streamToolCallsCheck->isChecked();
    r.channelIds.clear();
    for (const auto &item : m_channels->items())
        r.channelIds.push_back(item.id);
    r.fallbackModels.clear();
    for (const auto &item : m_fallbacks->items())
        r.fallbackModels << item.text;
    return r;
}

BudgetConfig RouteDialog::budget() const
{
    BudgetConfig b;
    b.model = m_ui->modelEdit->text().trimmed();
    b.period = BudgetPeriod(m_ui->budgetPeriodCombo->currentData().toInt());
    UsdAmount::parse(m_ui->budgetSoftEdit->text(), &b.softLimitUsd);
    UsdAmount::parse(m_ui->budgetHardEdit->text(), &b.hardLimitUsd);
    return b;
}

QString RouteDialog::budgetProblem() const
{
    const struct {
        QLineEdit *edit;
        QString name;
    } fields[] = {{m_ui->budgetSoftEdit, tr("alert")}, {m_ui->budgetHardEdit, tr("hard stop")}};
    for (const auto &f : fields) {
        double value = 0;
        switch (UsdAmount::parse(f.edit->text(), &value)) {
        case UsdAmount::Parse::NotANumber:
            return tr("The %1 must be an amount in US dollars, e.g. 10 or 2.50; leave it empty for none.").arg(f.name);
        case UsdAmount::Parse::Negative: return tr("The %1 cannot be negative; leave it empty for none.").arg(f.name);
        default: break;
        }
    }
    const BudgetConfig b = budget();
    if (b.softLimitUsd > 0 && b.hardLimitUsd > 0 && b.hardLimitUsd < b.softLimitUsd)
        return tr("The hard stop (%1) is below the alert (%2): requests would be refused before anyone is warned. "
                  "Raise the hard stop or lower the alert.")
            .arg(UsdAmount::format(b.hardLimitUsd), UsdAmount::format(b.softLimitUsd));
    return {};
}

void RouteDialog::validate()
{
    m_problems.clear();
    auto check = [this](QLabel *label, const QString &problem, InlineMessage::Kind kind = InlineMessage::Kind::Error) {
        InlineMessage::show(label, problem, kind);
        if (!problem.isEmpty() && kind == InlineMessage::Kind::Error)
            m_problems << problem;
    };
    const QString model = m_ui->modelEdit->text().trimmed();
    QString modelProblem;
    if (model.isEmpty())
        modelProblem = tr("Enter the model name callers will ask for, e.g. gpt-4o.");
    else if (model == QLatin1String("auto"))
        modelProblem = tr("\"auto\" is reserved for task-based model choice; pick another name.");
    else if (const EngineConfigPtr config = m_store.current())
        for (const auto &r : config->routes)
            if (r.logicalModel == model && r.id != m_routeId)
                modelProblem = tr("A route for \"%1\" already exists; edit that one instead.").arg(model);
    check(m_ui->modelError, modelProblem);
    const int channels = m_channels->rowCount();
    if (channels == 0)
        check(m_ui->channelsError, tr("Add at least one channel (two on different failure domains for failover)."));
    else if (channels == 1)
        check(m_ui->channelsError, tr("One channel: this model has no failover of its own."), InlineMessage::Kind::Warning);
    else
        check(m_ui->channelsError, QString());
    check(m_ui->fallbacksError, QString());
    check(m_ui->budgetError, budgetProblem());
    m_ui->buttonBox->button(QDialogButtonBox::Save)->setEnabled(m_problems.isEmpty());
}

bool RouteDialog::save()
{
    validate();
    if (!m_problems.isEmpty())
        return false;
    const EngineConfigPtr current = m_store.current();
    EngineConfig config = current ? *current : EngineConfig{};
    const RouteConfig r = route();
    ConfigEdits::putRoute(config, r); // id 0: the repository gives it one (a rename carries the budget along)
    const BudgetConfig b = budget();
    ConfigEdits::setBudget(config, r.logicalModel, &b);
    const auto result = m_store.save(config, m_routeId ? tr("route \"%1\" edited").arg(r.logicalModel)
                                                       : tr("route \"%1\" added").arg(r.logicalModel));
    if (!result.ok()) {
        InlineMessage::show(m_ui->saveError, tr("Not saved: %1").arg(result.errors.join(QLatin1Char(' '))));
        return false;
    }
    if (const auto *saved = result.config->route(r.logicalModel))
        m_routeId = saved->id;
    emit saved(m_routeId);
    accept();
    return true;
}

} // namespace sb
