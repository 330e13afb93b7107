#include "incidents/IncidentsPage.h"

#include "ConsoleStyle.h"
#include "control/HealthEventRecord.h"
#include "history/HistoryService.h"
#include "incidents/IncidentTableModel.h"
#include "requests/RequestFormat.h"
#include "store/HistoryReader.h"

#include <QComboBox>
#include <QDateTime>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QTextBrowser>
#include <QTextDocument>
#include <QTimer>
#include <QVBoxLayout>

#include <iterator>

#include <algorithm>
#include <memory>

namespace sb {

IncidentsPage::IncidentsPage(HistoryService *history, QWidget *parent) : QWidget(parent), m_history(history)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(16, 14, 16, 10);
    layout->setSpacing(8);

    auto *bar = new QHBoxLayout;
    m_range = new QComboBox(this);
    m_range->setObjectName(QStringLiteral("incidentRange"));
    m_range->addItem(tr("Last 24 hours"), 24);
    m_range->addItem(tr("Last 7 days"), 24 * 7);
    m_range->addItem(tr("Last 30 days"), 24 * 30);
    m_summary = new QLabel(tr("loading…"), this);
    m_summary->setObjectName(QStringLiteral("incidentSummary"));
    auto *refresh = new QPushButton(tr("Refresh"), this);
    bar->addWidget(m_range);
    bar->addWidget(m_summary, 1);
    bar->addWidget(refresh);
    layout->addLayout(bar);

    m_budgetAlerts = new QLabel(this);
    m_budgetAlerts->setObjectName(QStringLiteral("budgetAlerts"));
    m_budgetAlerts->setTextFormat(Qt::RichText);
    m_budgetAlerts->setWordWrap(true);
    m_budgetAlerts->setVisible(false);
    layout->addWidget(m_budgetAlerts);

    m_model = new IncidentTableModel(this);
    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("incidentTable"));
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setAlternatingRowColors(true);
    m_table->setShowGrid(false);
    m_table->verticalHeader()->setVisible(false);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 10);
    constexpr int widths[] = {90, 170, 160, 110, 110, 90, 80, 90};
    static_assert(std::size(widths) == IncidentTableModel::ColumnCount, "one width per column");
    for (int c = 0; c < IncidentTableModel::ColumnCount; ++c)
        m_table->setColumnWidth(c, widths[c]);
    // The channel takes the spare width: a stretched last column put its count far from its header.
    m_table->horizontalHeader()->setSectionResizeMode(IncidentTableModel::Channel, QHeaderView::Stretch);

    auto *detailsPane = new QWidget(this);
    auto *detailsLayout = new QVBoxLayout(detailsPane);
    detailsLayout->setContentsMargins(0, 0, 0, 0);
    m_details = new QTextBrowser(detailsPane);
    m_details->setObjectName(QStringLiteral("incidentDetails"));
    m_details->setFrameShape(QFrame::NoFrame);
    m_showRequests = new QPushButton(tr("Show requests"), detailsPane);
    m_showRequests->setObjectName(QStringLiteral("showRequests"));
    m_showRequests->setToolTip(tr("Open the Requests page filtered to this channel and the incident's time range"));
    m_showRequests->setEnabled(false);
    auto *buttons = new QHBoxLayout;
    buttons->addStretch(1);
    buttons->addWidget(m_showRequests);
    detailsLayout->addWidget(m_details, 1);
    detailsLayout->addLayout(buttons);

    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_table);
    splitter->addWidget(detailsPane);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    layout->addWidget(splitter, 1);

    connect(m_range, &QComboBox::currentIndexChanged, this, &IncidentsPage::reload);
    connect(refresh, &QPushButton::clicked, this, &IncidentsPage::reload);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, &IncidentsPage::showSelected);
    connect(m_showRequests, &QPushButton::clicked, this, &IncidentsPage::showRequestsForSelection);

    m_refresh = new QTimer(this);
    m_refresh->setInterval(kRefreshIntervalMs);
    connect(m_refresh, &QTimer::timeout, this, &IncidentsPage::reload);
    m_rebuild = new QTimer(this);
    m_rebuild->setSingleShot(true);
    m_rebuild->setInterval(0);
    connect(m_rebuild, &QTimer::timeout, this, &IncidentsPage::reload);
    showSelected();
    setHistory(history);
}

void IncidentsPage::setHistory(HistoryService *history)
{
    m_history = history;
    if (m_watching) {
        // The attached instance's incidents go now, not when the database answers: none of them
        // may stay on screen as if the embedded engine had had them.
        m_watching = false;
        m_events.clear();
        m_model->setIncidents({}, QDateTime::currentMSecsSinceEpoch());
        m_model->setCountsAvailable(true);
        showBudgetAlerts({});
        showSelected();
        m_lastOpen = 0;
        emit openIncidentsChanged(0);
    }
    m_showRequests->setToolTip(tr("Open the Requests page filtered to this channel and the incident's time range"));
    if (!history) {
        m_refresh->stop();
        m_summary->setText(tr("No history database: incidents appear once the engine runs."));
        return;
    }
    m_refresh->start();
    reload();
}

void IncidentsPage::setRangeHours(int hours)
{
    const int index = m_range->findData(hours);
    if (index >= 0 && index != m_range->currentIndex())
        m_range->setCurrentIndex(index);
    else
        reload();
}

void IncidentsPage::watchEvents()
{
    m_history = nullptr;
    m_refresh->start(); // regrouping now and then lets an open incident's duration grow between events
    m_watching = true;
    m_events.clear();
    m_lastOpen = -1;
    m_model->setCountsAvailable(false);
    m_showRequests->setToolTip(tr("The requests of an attached instance are in its own history database, not here"));
    showBudgetAlerts({}); // the previous source's, until the instance's own events say otherwise
    showIncidents({}, QDateTime::currentMSecsSinceEpoch());
}

void IncidentsPage::addEvent(const sb::HealthEvent &event)
{
    if (!m_watching)
        return; // the embedded engine's events reach the page through its history database
    m_events.push_back(toEventRecord(event));
    // The instance keeps its last 1,000 events; twice that here covers a long watch without growing forever.
    constexpr std::size_t kKept = 2000;
    if (m_events.size() > kKept)
        m_events.erase(m_events.begin(), m_events.begin() + std::ptrdiff_t(m_events.size() - kKept));
    m_rebuild->start();
}

void IncidentsPage::rebuildFromEvents()
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const qint64 from = now - qint64(m_range->currentData().toInt()) * 3600 * 1000;
    std::vector<EventRecord> inRange;
    std::vector<EventRecord> budgetAlerts; // newest first, as from the history
    for (const EventRecord &e : m_events) {
        if (e.timeMs < from)
            continue;
        inRange.push_back(e);
        if (e.kind == EventKind::Budget)
            budgetAlerts.insert(budgetAlerts.begin(), e);
    }
    showBudgetAlerts(budgetAlerts);
    // A few thousand events at most: grouping them is quick enough for the GUI thread.
    showIncidents(IncidentBuilder().build(std::move(inRange)), now);
}

void IncidentsPage::reload()
{
    if (m_watching) {
        rebuildFromEvents();
        return;
    }
    if (!m_history)
        return;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const qint64 from = now - qint64(m_range->currentData().toInt()) * 3600 * 1000;
    auto incidents = std::make_shared<std::vector<Incident>>();
    auto budgetAlerts = std::make_shared<std::vector<EventRecord>>();
    // Grouping and counting run on the history thread too: a month of events is not the GUI's work.
    m_history->submit(this, QStringLiteral("incidents.load"), [incidents, budgetAlerts, from, now](HistoryReader &reader) {
        std::map<int, QString> names;
        for (const auto &c : reader.channelNames())
            names[c.channelId] = c.name;
        std::vector<EventRecord> events = reader.events(from, now + 1, std::nullopt, kMaxEvents);
        for (const EventRecord &e : events)
            if (e.kind == EventKind::Budget)
                budgetAlerts->push_back(e);
        std::stable_sort(budgetAlerts->begin(), budgetAlerts->end(),
                         [](const EventRecord &a, const EventRecord &b) { return a.timeMs > b.timeMs; });
        *incidents = IncidentBuilder().build(std::move(events), names);
        for (std::size_t i = 0; i < incidents->size() && i < std::size_t(kMaxCounted); ++i) {
            Incident &incident = (*incidents)[i];
            HistoryReader::RequestQuery query;
            query.attemptChannelId = incident.channelId;
            query.fromMs = incident.startMs;
            query.toMs = incident.isOpen() ? now + 1 : incident.endMs + 1;
            const HistoryReader::RequestTotals totals = reader.totals(query);
            incident.affectedRequests = totals.count;
            incident.failedRequests = totals.errors;
            incident.failovers = totals.failovers;
        }
    }, [this, incidents, budgetAlerts, now] {
        if (m_watching) // asked before the console attached elsewhere: the embedded engine's, not the instance's
            return;
        showBudgetAlerts(*budgetAlerts);
        showIncidents(std::move(*incidents), now);
    });
}

void IncidentsPage::showIncidents(std::vector<Incident> incidents, qint64 now)
{
    ++m_loads;
    // Keep the selected incident selected across reloads (same channel and start).
    const Incident *selected = nullptr;
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    int keepChannel = 0;
    qint64 keepStart = 0;
    if (!rows.isEmpty() && (selected = m_model->incident(rows.front().row()))) {
        keepChannel = selected->channelId;
        keepStart = selected->startMs;
    }
    m_model->setIncidents(std::move(incidents), now);
    for (int r = 0; r < m_model->rowCount(); ++r) {
        const Incident *i = m_model->incident(r);
        if (i->channelId == keepChannel && i->startMs == keepStart)
            m_table->selectRow(r);
    }
    const int open = m_model->openCount();
    const int total = m_model->rowCount();
    QString summary = total == 0 ? tr("No incidents in this range: every channel stayed healthy.")
                                 : tr("%1 open · %2 in this range").arg(open).arg(total);
    if (m_watching) // say where they come from: the instance remembers its last 1,000 events, not a month
        summary = tr("From the attached instance's recent events. %1").arg(summary);
    m_summary->setText(summary);
    showSelected();
    if (open != m_lastOpen) {
        m_lastOpen = open;
        emit openIncidentsChanged(open);
    }
}

void IncidentsPage::showSelected()
{
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    const Incident *i = rows.isEmpty() ? nullptr : m_model->incident(rows.front().row());
    m_showRequests->setEnabled(i != nullptr && !m_watching);
    if (!i) {
        m_details->setHtml(tr("<p style=\"color:gray\">Select an incident to see what happened, in order.</p>"));
        return;
    }
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    QString html = QStringLiteral("<h3 style=\"margin:0\">%1 · %2</h3>")
                       .arg(i->channelName.toHtmlEscaped(), i->isOpen() ? tr("open for %1").arg(IncidentTableModel::duration(i->durationMs(now)))
                                                                         : tr("resolved after %1").arg(IncidentTableModel::duration(i->durationMs(now))));
    if (m_watching) {
        html += tr("<p>Worst state <b>%1</b> · %2 bad transitions · the requests it touched are in the instance's own history</p>")
                    .arg(IncidentTableModel::stateLabel(i->worstState))
                    .arg(i->transitions);
    } else {
        html += tr("<p>Worst state <b>%1</b> · %2 bad transitions · %3 requests touched it, %4 failed, %5 failed over</p>")
                    .arg(IncidentTableModel::stateLabel(i->worstState))
                    .arg(i->transitions)
                    .arg(i->affectedRequests < 0 ? QStringLiteral("…") : formatCount(std::uint64_t(i->affectedRequests)),
                         i->failedRequests < 0 ? QStringLiteral("…") : formatCount(std::uint64_t(i->failedRequests)),
                         i->failovers < 0 ? QStringLiteral("…") : formatCount(std::uint64_t(i->failovers)));
    }
    html += QStringLiteral("<table cellspacing=\"0\" cellpadding=\"2\">");
    for (const EventRecord &e : i->events) {
        html += QStringLiteral("<tr><td style=\"color:#888; padding-right:10px\">%1</td><td>%2</td></tr>")
                    .arg(QDateTime::fromMSecsSinceEpoch(e.timeMs).toString(QStringLiteral("HH:mm:ss.zzz")),
                         RequestFormat::redact(e.message.isEmpty() ? QStringLiteral("%1 → %2").arg(e.fromState, e.toState) : e.message)
                             .toHtmlEscaped());
    }
    html += QStringLiteral("</table>");
    m_details->setHtml(html);
}

void IncidentsPage::showRequestsForSelection()
{
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    const Incident *i = rows.isEmpty() ? nullptr : m_model->incident(rows.front().row());
    if (!i)
        return;
    const qint64 end = i->isOpen() ? QDateTime::currentMSecsSinceEpoch() : i->endMs;
    emit showRequestsRequested(i->channelId, i->startMs, end + 1);
}

void IncidentsPage::showBudgetAlerts(const std::vector<EventRecord> &alerts)
{
    m_budgetAlerts->setVisible(!alerts.empty());
    if (alerts.empty()) {
        m_budgetAlerts->clear();
        return;
    }
    // Badges in the state colours with their word in them (never colour alone): amber for an alert,
    // red once the hard stop refuses requests.
    QString html = tr("<b>Budget alerts</b> · %n in this range (a route's spend, not a channel incident)", nullptr, int(alerts.size()));
    html += QStringLiteral("<table cellspacing=\"0\" cellpadding=\"2\">");
    for (std::size_t i = 0; i < alerts.size() && i < std::size_t(kMaxBudgetAlerts); ++i) {
        const EventRecord &e = alerts[i];
        const bool stopped = e.toState == QLatin1String("hard_stop");
        const QString badge = stopped ? QStringLiteral("<span style=\"background:#c62828; color:#ffffff\">&nbsp;%1&nbsp;</span>").arg(tr("HARD STOP"))
                                      : QStringLiteral("<span style=\"background:#f9a825; color:#212121\">&nbsp;%1&nbsp;</span>").arg(tr("ALERT"));
        QString message = e.message;
        if (message.startsWith(QLatin1String("budget: ")))
            message = message.mid(8);
        html += QStringLiteral("<tr><td style=\"color:#888; padding-right:10px\">%1</td><td style=\"padding-right:8px\">%2</td><td>%3</td></tr>")
                    .arg(QDateTime::fromMSecsSinceEpoch(e.timeMs).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")), badge,
                         RequestFormat::redact(message).toHtmlEscaped());
    }
    html += QStringLiteral("</table>");
    if (alerts.size() > std::size_t(kMaxBudgetAlerts))
        html += tr("<p style=\"color:#888; margin:0\">and %1 older</p>").arg(alerts.size() - std::size_t(kMaxBudgetAlerts));
    m_budgetAlerts->setText(html);
}

QString IncidentsPage::budgetAlertsText() const
{
    if (m_budgetAlerts->text().isEmpty())
        return {};
    QTextDocument doc;
    doc.setHtml(m_budgetAlerts->text());
    return doc.toPlainText();
}

QString IncidentsPage::detailsText() const
{
    return m_details->toPlainText();
}

} // namespace sb
