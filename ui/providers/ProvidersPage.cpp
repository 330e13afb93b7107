#include "providers/ProvidersPage.h"

#include "providers/ChannelConfigModel.h"
#include "providers/ChannelDialog.h"
#include "providers/ConfigEdits.h"
#include "providers/InlineMessage.h"
#include "providers/PriceEditor.h"
#include "providers/ProviderDialog.h"
#include "providers/ProviderTableModel.h"
#include "providers/RouteDialog.h"
#include "providers/RouteTableModel.h"
#include "store/ConfigStore.h"
#include "widgets/BudgetBarDelegate.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace sb {

namespace {

QString listed(const QStringList &names)
{
    QStringList quoted;
    for (const QString &n : names)
        quoted << QStringLiteral("“%1”").arg(n);
    return quoted.join(QStringLiteral(", "));
}

} // namespace

ProvidersPage::ProvidersPage(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(16, 14, 16, 10);
    layout->setSpacing(8);

    auto *header = new QHBoxLayout;
    auto *title = new QLabel(tr("Providers"), this);
    QFont font = title->font();
    font.setPointSizeF(font.pointSizeF() * 1.4);
    font.setBold(true);
    title->setFont(font);
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("providersSummary"));
    header->addWidget(title);
    header->addSpacing(12);
    header->addWidget(m_summary);
    header->addStretch(1);
    layout->addLayout(header);

    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("providersError"));
    InlineMessage::prepare(m_error);
    layout->addWidget(m_error);

    m_providers = new ProviderTableModel(this);
    m_channels = new ChannelConfigModel(this);
    m_routes = new RouteTableModel(this);
    m_providerView = makeTable(QStringLiteral("providerTable"));
    m_providerView->setModel(m_providers);
    m_channelView = makeTable(QStringLiteral("channelConfigTable"));
    m_channelView->setModel(m_channels);
    m_routeView = makeTable(QStringLiteral("routeTable"));
    m_routeView->setModel(m_routes);
    m_routeView->setItemDelegateForColumn(RouteTableModel::Budget, new BudgetBarDelegate(m_routeView));
    m_prices = new PriceEditor(this);

    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->setChildrenCollapsible(false);
    splitter->addWidget(makeSection(tr("Providers"), tr("Where requests go: one per account and endpoint, with its keys and limits."),
                                    m_providerView, QStringLiteral("provider"), &m_addProvider, &m_editProvider, &m_deleteProvider));
    splitter->addWidget(makeSection(tr("Channels"), tr("A provider plus the model name it knows; routes are built from channels."),
                                    m_channelView, QStringLiteral("channel"), &m_addChannel, &m_editChannel, &m_deleteChannel));
    splitter->addWidget(makeSection(tr("Routes"), tr("What callers ask for (\"model\") → channels in order, then fallback models."),
                                    m_routeView, QStringLiteral("route"), &m_addRoute, &m_editRoute, &m_deleteRoute));
    splitter->addWidget(m_prices);
    splitter->setSizes({230, 200, 180, 170});
    layout->addWidget(splitter, 1);

    connect(m_addProvider, &QPushButton::clicked, this, [this] { openProviderDialog(0); });
    connect(m_editProvider, &QPushButton::clicked, this, [this] {
        openProviderDialog(selectedId(m_providerView, ProviderTableModel::ProviderIdRole));
    });
    connect(m_providerView, &QAbstractItemView::doubleClicked, this, [this](const QModelIndex &index) {
        openProviderDialog(m_providers->providerIdAt(index.row()));
    });
    connect(m_deleteProvider, &QPushButton::clicked, this, [this] {
        const int id = selectedId(m_providerView, ProviderTableModel::ProviderIdRole);
        if (id && QMessageBox::question(this, tr("Delete provider"), deleteProviderQuestion(id)) == QMessageBox::Yes)
            deleteProvider(id);
    });
    connect(m_addChannel, &QPushButton::clicked, this, [this] {
        openChannelDialog(0, selectedId(m_providerView, ProviderTableModel::ProviderIdRole));
    });
    connect(m_editChannel, &QPushButton::clicked, this, [this] {
        openChannelDialog(selectedId(m_channelView, ChannelConfigModel::ChannelIdRole));
    });
    connect(m_channelView, &QAbstractItemView::doubleClicked, this, [this](const QModelIndex &index) {
        openChannelDialog(m_channels->channelIdAt(index.row()));
    });
    connect(m_deleteChannel, &QPushButton::clicked, this, [this] {
        const int id = selectedId(m_channelView, ChannelConfigModel::ChannelIdRole);
        if (id && QMessageBox::question(this, tr("Delete channel"), deleteChannelQuestion(id)) == QMessageBox::Yes)
            deleteChannel(id);
    });
    connect(m_addRoute, &QPushButton::clicked, this, [this] { openRouteDialog(0); });
    connect(m_editRoute, &QPushButton::clicked, this, [this] { openRouteDialog(selectedId(m_routeView, RouteTableModel::RouteIdRole)); });
    connect(m_routeView, &QAbstractItemView::doubleClicked, this, [this](const QModelIndex &index) {
        openRouteDialog(m_routes->routeIdAt(index.row()));
    });
    connect(m_deleteRoute, &QPushButton::clicked, this, [this] {
        const int id = selectedId(m_routeView, RouteTableModel::RouteIdRole);
        const QModelIndex index = m_routeView->currentIndex();
        const QString name = m_routes->index(index.row(), RouteTableModel::Model).data().toString();
        if (id && QMessageBox::question(this, tr("Delete route"),
                                        tr("Delete the route for “%1”? Callers asking for this model will get "
                                           "\"model not found\"; routes falling back to it lose that fallback.").arg(name))
                      == QMessageBox::Yes)
            deleteRoute(id);
    });
    for (QTableView *view : {m_providerView, m_channelView, m_routeView}) {
        connect(view->model(), &QAbstractItemModel::modelReset, this, &ProvidersPage::updateButtons);
        connect(view->selectionModel(), &QItemSelectionModel::selectionChanged, this, &ProvidersPage::updateButtons);
    }
    updateButtons();
}

QTableView *ProvidersPage::makeTable(const QString &name)
{
    auto *view = new QTableView(this);
    view->setObjectName(name);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view->setAlternatingRowColors(true);
    view->setShowGrid(false);
    view->setWordWrap(false);
    view->verticalHeader()->setVisible(false);
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 12);
    view->horizontalHeader()->setHighlightSections(false);
    view->horizontalHeader()->setStretchLastSection(true);
    view->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    return view;
}

QWidget *ProvidersPage::makeSection(const QString &title, const QString &hint, QTableView *view, const QString &prefix,
                                    QPushButton **add, QPushButton **edit, QPushButton **remove)
{
    auto *section = new QWidget(this);
    auto *layout = new QVBoxLayout(section);
    layout->setContentsMargins(0, 6, 0, 0);
    layout->setSpacing(4);
    auto *row = new QHBoxLayout;
    auto *label = new QLabel(title, section);
    QFont font = label->font();
    font.setBold(true);
    label->setFont(font);
    auto *hintLabel = new QLabel(hint, section);
    hintLabel->setForegroundRole(QPalette::PlaceholderText);
    row->addWidget(label);
    row->addSpacing(8);
    row->addWidget(hintLabel, 1);
    *add = new QPushButton(tr("Add…"), section);
    *edit = new QPushButton(tr("Edit…"), section);
    *remove = new QPushButton(tr("Delete…"), section);
    (*add)->setObjectName(QStringLiteral("add_%1").arg(prefix));
    (*edit)->setObjectName(QStringLiteral("edit_%1").arg(prefix));
    (*remove)->setObjectName(QStringLiteral("delete_%1").arg(prefix));
    for (QPushButton *b : {*add, *edit, *remove})
        row->addWidget(b);
    layout->addLayout(row);
    layout->addWidget(view, 1);
    return section;
}

void ProvidersPage::setConfigStore(ConfigStore *store)
{
    if (m_store)
        disconnect(m_store, nullptr, this, nullptr);
    m_store = store;
    m_prices->setConfigStore(store);
    if (store) {
        connect(store, &ConfigStore::configChanged, this, &ProvidersPage::setConfig);
        setConfig(store->current());
    } else {
        setConfig(nullptr);
    }
    updateButtons();
}

void ProvidersPage::setConfig(sb::EngineConfigPtr config)
{
    m_providers->setConfig(config);
    m_channels->setConfig(config);
    m_routes->setConfig(config);
    m_prices->setConfig(config);
    if (config) {
        int keys = 0;
        for (const auto &p : config->providers)
            keys += int(p.keys.size());
        m_summary->setText(tr("%1 providers · %2 keys · %3 channels · %4 routes · %5 prices%6")
                               .arg(config->providers.size())
                               .arg(keys)
                               .arg(config->channels.size())
                               .arg(config->routes.size())
                               .arg(config->prices.size())
                               .arg(config->demo ? tr(" · demo configuration (simulated providers)") : QString()));
    } else {
        m_summary->setText(tr("no configuration loaded"));
    }
    sizeColumns();
    updateButtons();
}

void ProvidersPage::sizeColumns()
{
    for (QTableView *view : {m_providerView, m_channelView, m_routeView}) {
        view->resizeColumnsToContents();
        for (int c = 0; c < view->model()->columnCount() - 1; ++c)
            view->setColumnWidth(c, std::min(view->columnWidth(c) + 24, 360));
    }
}

void ProvidersPage::applySnapshot(const sb::MetricsSnapshot &snapshot)
{
    m_providers->applySnapshot(snapshot);
    m_routes->applySnapshot(snapshot);
}

void ProvidersPage::showProvider(int providerId)
{
    const int row = m_providers->rowOf(providerId);
    if (row >= 0)
        m_providerView->selectRow(row);
}

int ProvidersPage::selectedId(QTableView *view, int role) const
{
    const QModelIndexList rows = view->selectionModel()->selectedRows();
    return rows.isEmpty() ? 0 : rows.first().data(role).toInt();
}

void ProvidersPage::updateButtons()
{
    const bool editable = m_store != nullptr;
    const bool haveProvider = selectedId(m_providerView, ProviderTableModel::ProviderIdRole) != 0;
    const bool haveChannel = selectedId(m_channelView, ChannelConfigModel::ChannelIdRole) != 0;
    const bool haveRoute = selectedId(m_routeView, RouteTableModel::RouteIdRole) != 0;
    m_addProvider->setEnabled(editable);
    m_editProvider->setEnabled(editable && haveProvider);
    m_deleteProvider->setEnabled(editable && haveProvider);
    m_addChannel->setEnabled(editable && m_providers->rowCount() > 0);
    m_editChannel->setEnabled(editable && haveChannel);
    m_deleteChannel->setEnabled(editable && haveChannel);
    m_addRoute->setEnabled(editable && m_channels->rowCount() > 0);
    m_editRoute->setEnabled(editable && haveRoute);
    m_deleteRoute->setEnabled(editable && haveRoute);
}

ProviderDialog *ProvidersPage::openProviderDialog(int providerId)
{
    if (!m_store)
        return nullptr;
    auto *dialog = new ProviderDialog(*m_store, providerId, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &ProviderDialog::saved, this, &ProvidersPage::showProvider);
    dialog->open();
    return dialog;
}

ChannelDialog *ProvidersPage::openChannelDialog(int channelId, int providerId)
{
    if (!m_store)
        return nullptr;
    auto *dialog = new ChannelDialog(*m_store, channelId, this, providerId);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->open();
    return dialog;
}

RouteDialog *ProvidersPage::openRouteDialog(int routeId)
{
    if (!m_store)
        return nullptr;
    auto *dialog = new RouteDialog(*m_store, routeId, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->open();
    return dialog;
}

QString ProvidersPage::deleteProviderQuestion(int providerId) const
{
    const EngineConfigPtr config = m_store ? m_store->current() : nullptr;
    const ProviderConfig *p = config ? config->provider(providerId) : nullptr;
    if (!p)
        return QString();
    QString text = tr("Delete provider “%1” and its %n key(s)?", nullptr, int(p->keys.size())).arg(p->name);
    const QStringList channels = ConfigEdits::channelsOf(*config, providerId);
    const QStringList routes = ConfigEdits::routesUsingProvider(*config, providerId);
    if (channels.isEmpty())
        return text + QLatin1Char(' ') + tr("No channel uses it.");
    text += QLatin1Char('\n') + tr("Its channels are deleted with it: %1.").arg(listed(channels));
    if (!routes.isEmpty()) {
        EngineConfig after = *config;
        ConfigEdits::removeProvider(after, providerId);
        QStringList emptied;
        for (const QString &r : routes)
            if (!after.route(r))
                emptied << r;
        text += QLatin1Char('\n') + tr("Routes that use them: %1.").arg(listed(routes));
        if (!emptied.isEmpty())
            text += QLatin1Char(' ') + tr("%1 would have no channel left and are deleted too.").arg(listed(emptied));
    }
    return text;
}

QString ProvidersPage::deleteChannelQuestion(int channelId) const
{
    const EngineConfigPtr config = m_store ? m_store->current() : nullptr;
    const ChannelConfig *c = config ? config->channel(channelId) : nullptr;
    if (!c)
        return QString();
    const QStringList routes = ConfigEdits::routesUsingChannel(*config, channelId);
    QString text = tr("Delete channel “%1”?").arg(c->name);
    if (!routes.isEmpty())
        text += QLatin1Char('\n') + tr("It leaves these routes: %1. A route left without channels is deleted.").arg(listed(routes));
    return text;
}

bool ProvidersPage::saveEdit(const EngineConfig &config, const QString &reason)
{
    if (!m_store)
        return false;
    const auto result = m_store->save(config, reason);
    InlineMessage::show(m_error, result.ok() ? QString() : tr("Not saved: %1").arg(result.errors.join(QLatin1Char(' '))));
    return result.ok();
}

bool ProvidersPage::deleteProvider(int providerId)
{
    const EngineConfigPtr current = m_store ? m_store->current() : nullptr;
    const ProviderConfig *p = current ? current->provider(providerId) : nullptr;
    if (!p)
        return false;
    EngineConfig config = *current;
    const QString name = p->name;
    ConfigEdits::removeProvider(config, providerId);
    return saveEdit(config, tr("provider \"%1\" deleted").arg(name));
}

bool ProvidersPage::deleteChannel(int channelId)
{
    const EngineConfigPtr current = m_store ? m_store->current() : nullptr;
    const ChannelConfig *c = current ? current->channel(channelId) : nullptr;
    if (!c)
        return false;
    EngineConfig config = *current;
    const QString name = c->name;
    ConfigEdits::removeChannel(config, channelId);
    return saveEdit(config, tr("channel \"%1\" deleted").arg(name));
}

bool ProvidersPage::deleteRoute(int routeId)
{
    const EngineConfigPtr current = m_store ? m_store->current() : nullptr;
    if (!current)
        return false;
    EngineConfig config = *current;
    QString name;
    for (const auto &r : config.routes)
        if (r.id == routeId)
            name = r.logicalModel;
    if (name.isEmpty())
        return false;
    ConfigEdits::removeRoute(config, routeId);
    return saveEdit(config, tr("route \"%1\" deleted").arg(name));
}

QString ProvidersPage::errorText() const
{
    return m_error->isVisible() || !m_error->text().isEmpty() ? m_error->text() : QString();
}

} // namespace sb
