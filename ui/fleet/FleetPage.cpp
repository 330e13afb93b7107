#include "fleet/FleetPage.h"

#include "ConsoleStyle.h"
#include "models/ChannelTableModel.h"
#include "widgets/StateBadgeDelegate.h"

#include <QDateTime>
#include <QHeaderView>
#include <QLabel>
#include <QStackedLayout>
#include <QTableWidget>
#include <QVBoxLayout>

namespace sb {

namespace {

QLabel *sectionTitle(const QString &text, QWidget *parent)
{
    auto *label = new QLabel(text, parent);
    QFont font = label->font();
    font.setBold(true);
    label->setFont(font);
    return label;
}

QTableWidget *table(const QString &name, const QStringList &columns, QWidget *parent)
{
    auto *view = new QTableWidget(0, int(columns.size()), parent);
    view->setObjectName(name);
    view->setHorizontalHeaderLabels(columns);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->setAlternatingRowColors(true);
    view->setShowGrid(false);
    view->setWordWrap(false);
    view->verticalHeader()->setVisible(false);
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 16);
    view->horizontalHeader()->setHighlightSections(false);
    view->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    view->horizontalHeader()->setStretchLastSection(true);
    return view;
}

QTableWidgetItem *cell(const QString &text, const QString &tip = QString())
{
    auto *item = new QTableWidgetItem(text);
    if (!tip.isEmpty())
        item->setToolTip(tip);
    return item;
}

// "3 s ago", "2 min ago": the roster lists instances seen in the last few seconds, so a growing
// age is the sign of one going away.
QString ago(std::int64_t wallMs)
{
    if (wallMs <= 0)
        return QStringLiteral("—");
    const std::int64_t seconds = std::max<std::int64_t>(0, (QDateTime::currentMSecsSinceEpoch() - wallMs) / 1000);
    if (seconds < 120)
        return FleetPage::tr("%1 s ago").arg(seconds);
    return FleetPage::tr("%1 min ago").arg(seconds / 60);
}

ChannelState stateOf(const FleetReport::Channel &channel)
{
    if (channel.pool == u"ejected")
        return ChannelState::Ejected;
    if (channel.pool == u"drained")
        return ChannelState::Drained;
    if (channel.breaker == u"open")
        return ChannelState::Open;
    if (channel.breaker == u"half_open")
        return ChannelState::HalfOpen;
    return ChannelState::Closed;
}

} // namespace

FleetPage::FleetPage(QWidget *parent) : QWidget(parent)
{
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(16, 14, 16, 10);
    outer->setSpacing(10);
    auto *title = new QLabel(tr("Fleet"), this);
    QFont font = title->font();
    font.setPointSizeF(font.pointSizeF() * 1.4);
    font.setBold(true);
    title->setFont(font);
    outer->addWidget(title);

    m_stack = new QStackedLayout;
    outer->addLayout(m_stack, 1);

    m_empty = new QLabel(this);
    m_empty->setObjectName(QStringLiteral("fleetEmpty"));
    m_empty->setWordWrap(true);
    m_empty->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_empty->setTextFormat(Qt::RichText);
    m_stack->addWidget(m_empty);

    m_content = new QWidget(this);
    auto *layout = new QVBoxLayout(m_content);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(8);
    m_summary = new QLabel(m_content);
    m_summary->setObjectName(QStringLiteral("fleetSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);
    m_configNotice = new QLabel(m_content);
    m_configNotice->setObjectName(QStringLiteral("fleetConfigNotice"));
    m_configNotice->setWordWrap(true);
    m_configNotice->setStyleSheet(QStringLiteral("QLabel { border-left: 4px solid %1; padding: 6px 10px; }")
                                      .arg(stateColor(ChannelState::HalfOpen).name()));
    m_configNotice->hide();
    layout->addWidget(m_configNotice);

    layout->addWidget(sectionTitle(tr("Instances"), m_content));
    m_instances = table(QStringLiteral("fleetInstances"),
                        {tr("Instance"), tr("Version"), tr("Configuration"), tr("Last seen"), tr("Requests/s"), tr("Open circuits")},
                        m_content);
    layout->addWidget(m_instances, 2);
    m_instancesNote = new QLabel(m_content);
    m_instancesNote->setObjectName(QStringLiteral("fleetInstancesNote"));
    m_instancesNote->setWordWrap(true);
    m_instancesNote->setForegroundRole(QPalette::PlaceholderText);
    layout->addWidget(m_instancesNote);
    layout->addWidget(sectionTitle(tr("Channels, as the fleet shares them"), m_content));
    m_channels = table(QStringLiteral("fleetChannels"), {tr("Channel"), tr("State"), tr("Circuit"), tr("Pool")}, m_content);
    m_channels->setItemDelegateForColumn(1, new StateBadgeDelegate(m_channels));
    layout->addWidget(m_channels, 3);
    m_stack->addWidget(m_content);
    clear();
}

void FleetPage::clear()
{
    m_report = FleetReport{};
    m_empty->setText(tr("Waiting for the instance to say whether it is in a fleet…"));
    m_stack->setCurrentWidget(m_empty);
}

void FleetPage::showReport(const FleetReport &report)
{
    m_report = report;
    if (!report.configured) {
        m_empty->setText(
            tr("<p><b>This instance is not part of a fleet.</b></p>"
               "<p>When one desktop is not enough, run several <code>switchboard --headless</code> instances behind a "
               "load balancer and give each the same Redis: <code>--redis redis://HOST:6379</code>, or "
               "<code>fleet.redis_url</code> in the configuration file. They then share open circuits, ejected "
               "channels and dead keys within a second, hold each provider's rate limits and each route's budget "
               "across the fleet, and each keeps serving on its own if Redis goes away.</p>"
               "<p>Attach to any one of them (Instance → Attach to instance…) to see the whole fleet here.</p>"));
        m_stack->setCurrentWidget(m_empty);
        return;
    }
    m_stack->setCurrentWidget(m_content);
    const QString seen = report.connected ? tr("connected · %n instance(s) seen", nullptr, int(report.instances.size()))
                                          : tr("Redis unreachable");
    m_summary->setText(tr("Fleet \"%1\" · this instance: %2 · Redis %3 · %4").arg(report.fleet, report.instance, report.redis, seen));
    // The strip across the top of the window says why; here, what that means for this page.
    m_instancesNote->setVisible(!report.connected);
    m_instancesNote->setText(tr("The instances are listed by Redis, so none are known while it does not answer. The channel "
                                "states below are this instance's own until it is back."));
    QStringList differing;
    for (const auto &i : report.instances)
        if (i.configDiffers)
            differing << i.id;
    m_configNotice->setVisible(report.configDiffers);
    if (report.configDiffers) {
        const QString which = differing.size() == int(report.instances.size())
                                  ? tr("no one configuration is run by most of them (%1).").arg(differing.join(QStringLiteral(", ")))
                                  : tr("%1 differ(s) from the others.").arg(differing.join(QStringLiteral(", ")));
        m_configNotice->setText(tr("Not every instance runs the same configuration: %1 Routes, limits and budgets may then "
                                   "disagree across the fleet; give every instance the same configuration file.")
                                    .arg(which));
    }
    fillInstances();
    fillChannels();
}

void FleetPage::fillInstances()
{
    m_instances->setSortingEnabled(false);
    m_instances->setRowCount(int(m_report.instances.size()));
    int row = 0;
    for (const auto &i : m_report.instances) {
        const bool self = i.id == m_report.instance;
        m_instances->setItem(row, 0, cell(self ? tr("%1 (shown)").arg(i.id) : i.id));
        m_instances->setItem(row, 1, cell(i.version));
        auto *config = cell(i.configDiffers ? tr("%1 · differs").arg(i.configHash.left(12)) : i.configHash.left(12), i.configHash);
        if (i.configDiffers) {
            config->setForeground(stateColor(ChannelState::Degraded));
            QFont bold = config->font();
            bold.setBold(true);
            config->setFont(bold);
        }
        m_instances->setItem(row, 2, config);
        m_instances->setItem(row, 3, cell(ago(i.lastSeenWallMs), formatClock(i.lastSeenWallMs)));
        auto *rate = cell(formatRate(i.requestsPerSecond));
        rate->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_instances->setItem(row, 4, rate);
        auto *open = cell(i.openCircuits.isEmpty() ? tr("none") : i.openCircuits.join(QStringLiteral(", ")));
        if (!i.openCircuits.isEmpty())
            open->setForeground(stateColor(ChannelState::Open));
        m_instances->setItem(row, 5, open);
        ++row;
    }
    m_instances->resizeColumnsToContents();
}

void FleetPage::fillChannels()
{
    m_channels->setRowCount(int(m_report.channels.size()));
    int row = 0;
    for (const auto &c : m_report.channels) {
        const ChannelState state = stateOf(c);
        m_channels->setItem(row, 0, cell(c.name));
        auto *badge = cell(stateText(state));
        badge->setData(ChannelTableModel::StateRole, int(state));
        m_channels->setItem(row, 1, badge);
        m_channels->setItem(row, 2, cell(QString(c.breaker).replace(u'_', u'-')));
        m_channels->setItem(row, 3, cell(c.pool));
        ++row;
    }
    m_channels->resizeColumnsToContents();
    m_channels->setColumnWidth(1, std::max(m_channels->columnWidth(1), 120));
}

QString FleetPage::summaryText() const
{
    return m_stack->currentWidget() == m_empty ? m_empty->text() : m_summary->text();
}

} // namespace sb
