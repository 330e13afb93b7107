#include "pages/ChannelsPage.h"

#include "ConsoleStyle.h"
#include "models/ChannelTableModel.h"
#include "widgets/HealthBarDelegate.h"
#include "widgets/StateBadgeDelegate.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace sb {

ChannelsPage::ChannelsPage(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(16, 14, 16, 10);
    layout->setSpacing(10);

    auto *header = new QHBoxLayout;
    auto *title = new QLabel(tr("Channels"), this);
    QFont font = title->font();
    font.setPointSizeF(font.pointSizeF() * 1.4);
    font.setBold(true);
    title->setFont(font);
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("channelSummary"));
    m_filter = new QLineEdit(this);
    m_filter->setObjectName(QStringLiteral("channelFilter"));
    m_filter->setPlaceholderText(tr("Filter by route, provider, channel or state"));
    m_filter->setClearButtonEnabled(true);
    m_filter->setMinimumWidth(320);
    header->addWidget(title);
    header->addSpacing(12);
    header->addWidget(m_summary);
    header->addStretch(1);
    header->addWidget(m_filter);
    layout->addLayout(header);

    // What to fix, in words, for each misconfigured channel: the badge says that, this says what.
    m_misconfigured = new QLabel(this);
    m_misconfigured->setObjectName(QStringLiteral("misconfiguredNotice"));
    m_misconfigured->setWordWrap(true);
    m_misconfigured->setTextFormat(Qt::PlainText);
    m_misconfigured->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_misconfigured->setStyleSheet(QStringLiteral("QLabel { border-left: 4px solid %1; padding: 6px 10px; }")
                                       .arg(stateColor(ChannelState::Misconfigured).name()));
    m_misconfigured->hide();
    layout->addWidget(m_misconfigured);

    m_model = new ChannelTableModel(this);
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(ChannelTableModel::SortRole);
    m_proxy->setFilterKeyColumn(-1);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_proxy->setDynamicSortFilter(true);
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);

    m_view = new QTableView(this);
    m_view->setObjectName(QStringLiteral("channelTable"));
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(ChannelTableModel::Route, Qt::AscendingOrder);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setAlternatingRowColors(true);
    m_view->setShowGrid(false);
    m_view->setWordWrap(false);
    m_view->verticalHeader()->setVisible(false);
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 16);
    m_view->horizontalHeader()->setHighlightSections(false);
    m_view->horizontalHeader()->setStretchLastSection(false);
    m_view->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    m_view->setItemDelegateForColumn(ChannelTableModel::State, new StateBadgeDelegate(m_view));
    m_view->setItemDelegateForColumn(ChannelTableModel::Health, new HealthBarDelegate(m_view));
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_view, &QWidget::customContextMenuRequested, this, [this](const QPoint &pos) {
        const QModelIndex index = m_view->indexAt(pos);
        if (!index.isValid())
            return;
        QMenu *menu = contextMenuFor(index.row(), this);
        menu->setAttribute(Qt::WA_DeleteOnClose);
        menu->popup(m_view->viewport()->mapToGlobal(pos));
    });
    layout->addWidget(m_view, 1);

    m_empty = new QLabel(tr("No channels yet. They appear here once the proxy is running and has published its "
                            "first snapshot."), this);
    m_empty->setObjectName(QStringLiteral("channelsEmpty"));
    m_empty->setWordWrap(true);
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setForegroundRole(QPalette::PlaceholderText);
    layout->addWidget(m_empty);

    connect(m_model, &QAbstractItemModel::rowsInserted, this, &ChannelsPage::updateEmptyState);
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, &ChannelsPage::updateEmptyState);
    updateEmptyState();
}

void ChannelsPage::setConfig(EngineConfigPtr config)
{
    m_model->setConfig(std::move(config));
}

void ChannelsPage::setProvidersLinked(bool linked)
{
    m_providersLinked = linked;
}

void ChannelsPage::applySnapshot(const sb::MetricsSnapshot &snapshot)
{
    m_model->applySnapshot(snapshot);
    int incidents = 0, degraded = 0, drained = 0;
    QStringList fixes;
    for (const ChannelSnapshot &channel : snapshot.channels) {
        const ChannelState state = channelState(channel);
        incidents += isIncident(state) ? 1 : 0;
        degraded += state == ChannelState::Degraded ? 1 : 0;
        drained += state == ChannelState::Drained ? 1 : 0; // a person's decision: not an incident, not serving either
        if (state == ChannelState::Misconfigured)
            fixes << tr("%1 is misconfigured: %2").arg(channel.name, channel.poolReason);
    }
    const int count = static_cast<int>(snapshot.channels.size());
    QStringList parts{count == 1 ? tr("1 channel") : tr("%1 channels").arg(count)};
    if (incidents)
        parts << tr("%1 not serving normally").arg(incidents);
    else if (!drained)
        parts << tr("all serving");
    if (drained)
        parts << tr("%1 drained").arg(drained);
    if (degraded)
        parts << tr("%1 degraded").arg(degraded);
    m_summary->setText(parts.join(QStringLiteral(" · ")));
    m_misconfigured->setText(fixes.join(QLatin1Char('\n')));
    m_misconfigured->setVisible(!fixes.isEmpty());
    if (!m_columnsSized && m_model->rowCount() > 0) {
        // Room for the longest badge ("MISCONFIGURED") and for numbers to grow, not just today's values.
        m_view->resizeColumnsToContents();
        for (int column : {ChannelTableModel::Route, ChannelTableModel::Provider, ChannelTableModel::Channel})
            m_view->setColumnWidth(column, m_view->columnWidth(column) + 24);
        for (int column = ChannelTableModel::Err30s; column < ChannelTableModel::ColumnCount; ++column)
            m_view->setColumnWidth(column, m_view->columnWidth(column) + 6);
        const QFontMetrics metrics(m_view->font());
        m_view->setColumnWidth(ChannelTableModel::State,
                               std::max(m_view->columnWidth(ChannelTableModel::State),
                                        metrics.horizontalAdvance(QStringLiteral("MISCONFIGURED")) + 56));
        m_view->setColumnWidth(ChannelTableModel::Health, std::max(m_view->columnWidth(ChannelTableModel::Health), 150));
        m_columnsSized = true;
    }
}

void ChannelsPage::updateEmptyState()
{
    const bool empty = m_model->rowCount() == 0;
    m_empty->setVisible(empty);
    m_view->setVisible(!empty);
    if (empty)
        m_summary->setText(tr("proxy not running"));
}

QMenu *ChannelsPage::contextMenuFor(int proxyRow, QWidget *parent)
{
    auto *menu = new QMenu(parent);
    menu->setToolTipsVisible(true);
    const QModelIndex source = m_proxy->mapToSource(m_proxy->index(proxyRow, 0));
    if (!source.isValid())
        return menu;
    const ChannelSnapshot channel = m_model->channelAt(source.row());
    const int id = channel.channelId;
    const int providerId = channel.providerId;

    QAction *drain = menu->addAction(tr("Drain / eject %1").arg(channel.name));
    drain->setObjectName(QStringLiteral("drain"));
    drain->setToolTip(tr("Take the channel out of the pool until you re-admit it; requests in flight finish."));
    drain->setEnabled(channel.pool != PoolState::Drained);
    connect(drain, &QAction::triggered, this, [this, id] { emit drainRequested(id); });

    QAction *readmit = menu->addAction(tr("Re-admit %1").arg(channel.name));
    readmit->setObjectName(QStringLiteral("readmit"));
    readmit->setToolTip(tr("Put the channel back in the pool now."));
    readmit->setEnabled(channel.pool == PoolState::Drained || channel.pool == PoolState::Ejected
                        || channel.pool == PoolState::Misconfigured);
    connect(readmit, &QAction::triggered, this, [this, id] { emit readmitRequested(id); });

    QAction *probe = menu->addAction(tr("Probe now"));
    probe->setObjectName(QStringLiteral("probe"));
    probe->setToolTip(tr("Send a heartbeat probe to %1 at once; the result shows in its state and the events.").arg(channel.name));
    connect(probe, &QAction::triggered, this, [this, id] { emit probeRequested(id); });

    menu->addSeparator();
    QAction *open = menu->addAction(tr("Open in Providers"));
    open->setObjectName(QStringLiteral("openProvider"));
    open->setEnabled(m_providersLinked);
    if (!m_providersLinked)
        open->setToolTip(tr("The providers of an attached instance are configured on that instance."));
    connect(open, &QAction::triggered, this, [this, providerId] { emit openProviderRequested(providerId); });
    return menu;
}

} // namespace sb
