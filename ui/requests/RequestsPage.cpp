#include "requests/RequestsPage.h"

#include "ConsoleStyle.h"
#include "history/HistoryService.h"
#include "requests/RequestInspector.h"
#include "requests/RequestFormat.h"
#include "requests/RequestTableModel.h"

#include <QComboBox>
#include <QDateTime>
#include <QDateTimeEdit>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QScrollBar>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <iterator>

#include <limits>
#include <memory>

namespace sb {

namespace {
constexpr qint64 kNoEnd = std::numeric_limits<qint64>::max();
// Time presets: seconds back from now; 0 = any time, -1 = the custom range.
constexpr qint64 kPresets[] = {0, 300, 900, 3600, 86400, 7 * 86400, -1};
} // namespace

RequestsPage::RequestsPage(HistoryService *history, QWidget *parent) : QWidget(parent), m_history(history)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(16, 14, 16, 10);
    layout->setSpacing(8);

    auto *filters = new QHBoxLayout;
    filters->setSpacing(6);
    m_modelBox = new QComboBox(this);
    m_modelBox->setObjectName(QStringLiteral("modelFilter"));
    m_modelBox->addItem(tr("All models"), QString());
    m_channelBox = new QComboBox(this);
    m_channelBox->setObjectName(QStringLiteral("channelFilter"));
    m_channelBox->addItem(tr("All channels"), 0);
    m_channelBox->setToolTip(tr("Requests that tried this channel, whether it answered or they failed over from it"));
    m_outcomeBox = new QComboBox(this);
    m_outcomeBox->setObjectName(QStringLiteral("outcomeFilter"));
    m_outcomeBox->addItem(tr("Any outcome"), int(Outcome::Any));
    m_outcomeBox->addItem(tr("OK"), int(Outcome::Ok));
    m_outcomeBox->addItem(tr("Errors"), int(Outcome::Errors));
    m_outcomeBox->addItem(tr("Broken mid-stream"), int(Outcome::MidStream));
    m_outcomeBox->addItem(tr("Cancelled"), int(Outcome::Cancelled));
    m_outcomeBox->addItem(tr("Failed over"), int(Outcome::Failover));
    m_outcomeBox->addItem(tr("Cache hits"), int(Outcome::CacheHit));
    m_apiBox = new QComboBox(this);
    m_apiBox->setObjectName(QStringLiteral("apiFilter"));
    m_apiBox->setToolTip(tr("The API the client called"));
    m_apiBox->addItem(tr("Any API"), QString());
    for (const QString &api : RequestFormat::clientApis())
        m_apiBox->addItem(RequestFormat::clientApi(api), api);
    m_timeBox = new QComboBox(this);
    m_timeBox->setObjectName(QStringLiteral("timeFilter"));
    const QStringList presetNames{tr("Any time"), tr("Last 5 min"), tr("Last 15 min"), tr("Last hour"),
                                  tr("Last 24 h"), tr("Last 7 days"), tr("Custom range")};
    for (int i = 0; i < presetNames.size(); ++i)
        m_timeBox->addItem(presetNames[i], kPresets[i]);
    m_from = new QDateTimeEdit(QDateTime::currentDateTime().addSecs(-3600), this);
    m_to = new QDateTimeEdit(QDateTime::currentDateTime(), this);
    for (QDateTimeEdit *edit : {m_from, m_to}) {
        edit->setDisplayFormat(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
        edit->setCalendarPopup(true);
        edit->setVisible(false);
    }
    m_from->setObjectName(QStringLiteral("fromTime"));
    m_to->setObjectName(QStringLiteral("toTime"));
    filters->addWidget(m_modelBox);
    filters->addWidget(m_channelBox);
    filters->addWidget(m_outcomeBox);
    filters->addWidget(m_apiBox);
    filters->addWidget(m_timeBox);
    filters->addWidget(m_from);
    filters->addWidget(m_to);
    filters->addStretch(1);
    m_newRows = new QToolButton(this);
    m_newRows->setObjectName(QStringLiteral("newRows"));
    m_newRows->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_newRows->setVisible(false);
    m_newRows->setToolTip(tr("New requests arrived while you were scrolled down; click to go to the top"));
    filters->addWidget(m_newRows);
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("requestSummary"));
    filters->addWidget(m_summary);
    layout->addLayout(filters);

    m_model = new RequestTableModel(history, this);
    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("requestTable"));
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setAlternatingRowColors(true);
    m_table->setShowGrid(false);
    m_table->setWordWrap(false);
    m_table->setVerticalScrollMode(QAbstractItemView::ScrollPerPixel);
    // Fixed row heights: the view then never measures rows, which is what keeps a million cheap.
    m_table->verticalHeader()->setVisible(false);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 8);
    QHeaderView *header = m_table->horizontalHeader();
    header->setHighlightSections(false);
    header->setSectionResizeMode(QHeaderView::Interactive);
    // One width per column, in RequestTableModel::Column order.
    constexpr int widths[] = {110, 110, 110, 90, 64, 150, 70, 76, 70, 76, 50, 120};
    static_assert(std::size(widths) == RequestTableModel::ColumnCount, "one width per column");
    for (int c = 0; c < RequestTableModel::ColumnCount; ++c)
        m_table->setColumnWidth(c, widths[c]);
    header->setStretchLastSection(true);

    m_inspector = new RequestInspector(this);
    auto *splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(m_table);
    splitter->addWidget(m_inspector);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    layout->addWidget(splitter, 1);

    for (QComboBox *box : {m_modelBox, m_channelBox, m_outcomeBox, m_apiBox})
        connect(box, &QComboBox::currentIndexChanged, this, &RequestsPage::applyFilters);
    connect(m_timeBox, &QComboBox::currentIndexChanged, this, &RequestsPage::timePresetChanged);
    for (QDateTimeEdit *edit : {m_from, m_to}) {
        connect(edit, &QDateTimeEdit::editingFinished, this, [this] {
            // Typed by hand: whole seconds, the end second included.
            m_customFromMs = m_from->dateTime().toMSecsSinceEpoch();
            m_customToMs = m_to->dateTime().toMSecsSinceEpoch() + 1000;
            applyFilters();
        });
    }
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, &RequestsPage::showSelected);
    connect(m_model, &RequestTableModel::pageLoaded, this, [this] {
        if (m_selectedId != 0 && m_inspector->requestRowId() != m_selectedId)
            showSelected();
    });
    connect(m_model, &RequestTableModel::counted, this, [this](qint64 rows) {
        m_summary->setText(rows == 1 ? tr("1 request") : tr("%1 requests").arg(formatCount(std::uint64_t(rows))));
        m_newRows->setVisible(false);
    });
    connect(m_model, &RequestTableModel::newRowsAvailable, this, &RequestsPage::onNewRows);
    connect(m_newRows, &QToolButton::clicked, this, &RequestsPage::jumpToNew);

    m_live = new QTimer(this);
    m_live->setInterval(kLiveIntervalMs);
    connect(m_live, &QTimer::timeout, this, &RequestsPage::checkForNew);
    m_live->start();

    setHistory(history);
}

void RequestsPage::setHistory(HistoryService *history)
{
    m_history = history;
    m_model->setHistory(history);
    if (!history) {
        m_summary->setText(tr("No history database: requests appear once the engine runs."));
        return;
    }
    m_summary->setText(tr("loading…"));
    refreshChoices();
    applyFilters();
}

void RequestsPage::refreshChoices()
{
    if (!m_history)
        return;
    struct Choices {
        QStringList models;
        std::vector<HistoryReader::ChannelName> channels;
    };
    auto choices = std::make_shared<Choices>();
    m_history->submit(this, QStringLiteral("requests.choices"), [choices](HistoryReader &reader) {
        choices->models = reader.logicalModels();
        choices->channels = reader.channelNames();
    }, [this, choices] {
        m_applying = true; // refilling the boxes is not a filter change
        const QString model = m_modelBox->currentData().toString();
        while (m_modelBox->count() > 1)
            m_modelBox->removeItem(1);
        for (const QString &name : choices->models)
            m_modelBox->addItem(name, name);
        const int modelIndex = m_modelBox->findData(model);
        if (modelIndex < 0 && !model.isEmpty())
            m_modelBox->addItem(model, model);
        m_modelBox->setCurrentIndex(std::max(0, m_modelBox->findData(model)));

        const int channel = m_channelBox->currentData().toInt();
        while (m_channelBox->count() > 1)
            m_channelBox->removeItem(1);
        for (const auto &c : choices->channels)
            m_channelBox->addItem(c.name, c.channelId);
        if (m_channelBox->findData(channel) < 0)
            m_channelBox->addItem(tr("channel #%1").arg(channel), channel);
        m_channelBox->setCurrentIndex(std::max(0, m_channelBox->findData(channel)));
        m_applying = false;
    });
}

void RequestsPage::setModelFilter(const QString &logicalModel)
{
    int index = m_modelBox->findData(logicalModel);
    if (index < 0) {
        m_modelBox->addItem(logicalModel, logicalModel);
        index = m_modelBox->count() - 1;
    }
    m_modelBox->setCurrentIndex(index);
}

void RequestsPage::setChannelFilter(int channelId)
{
    int index = m_channelBox->findData(channelId);
    if (index < 0) {
        m_channelBox->addItem(tr("channel #%1").arg(channelId), channelId);
        index = m_channelBox->count() - 1;
    }
    m_channelBox->setCurrentIndex(index);
}

void RequestsPage::setOutcomeFilter(Outcome outcome)
{
    m_outcomeBox->setCurrentIndex(m_outcomeBox->findData(int(outcome)));
}

void RequestsPage::setTimeRange(qint64 fromMs, qint64 toMs)
{
    m_applying = true;
    if (fromMs <= 0 && toMs == kNoEnd) {
        m_timeBox->setCurrentIndex(0);
    } else {
        m_timeBox->setCurrentIndex(m_timeBox->count() - 1);
        m_customFromMs = std::max<qint64>(0, fromMs);
        m_customToMs = toMs == kNoEnd ? QDateTime::currentMSecsSinceEpoch() : toMs;
        m_from->setDateTime(QDateTime::fromMSecsSinceEpoch(m_customFromMs));
        m_to->setDateTime(QDateTime::fromMSecsSinceEpoch(m_customToMs));
    }
    m_from->setVisible(m_timeBox->currentData().toLongLong() < 0);
    m_to->setVisible(m_from->isVisible());
    m_applying = false;
    applyFilters();
}

void RequestsPage::showRequests(int channelId, qint64 fromMs, qint64 toMs)
{
    m_applying = true;
    m_modelBox->setCurrentIndex(0);
    m_outcomeBox->setCurrentIndex(0);
    setChannelFilter(channelId);
    m_applying = false;
    setTimeRange(fromMs, toMs);
}

void RequestsPage::setLive(bool live)
{
    if (live)
        m_live->start();
    else
        m_live->stop();
}

void RequestsPage::timePresetChanged()
{
    const bool custom = m_timeBox->currentData().toLongLong() < 0;
    m_from->setVisible(custom);
    m_to->setVisible(custom);
    applyFilters();
}

void RequestsPage::applyFilters()
{
    if (m_applying || !m_history)
        return;
    HistoryReader::RequestQuery query;
    query.logicalModel = m_modelBox->currentData().toString();
    query.clientApi = m_apiBox->currentData().toString();
    query.attemptChannelId = m_channelBox->currentData().toInt();
    switch (Outcome(m_outcomeBox->currentData().toInt())) {
    case Outcome::Any: break;
    case Outcome::Ok: query.status = RequestStatus::Ok; break;
    case Outcome::Errors: query.status = RequestStatus::Error; break;
    case Outcome::MidStream: query.status = RequestStatus::MidStream; break;
    case Outcome::Cancelled: query.status = RequestStatus::Cancelled; break;
    case Outcome::Failover: query.failoverOnly = true; break;
    case Outcome::CacheHit: query.cacheHitsOnly = true; break;
    }
    const qint64 preset = m_timeBox->currentData().toLongLong();
    if (preset > 0) {
        query.fromMs = QDateTime::currentMSecsSinceEpoch() - preset * 1000;
    } else if (preset < 0) {
        if (m_customToMs <= 0) {
            m_customFromMs = m_from->dateTime().toMSecsSinceEpoch();
            m_customToMs = m_to->dateTime().toMSecsSinceEpoch() + 1000;
        }
        query.fromMs = m_customFromMs;
        query.toMs = m_customToMs;
    }
    m_selectedId = 0;
    m_inspector->clearRequest();
    m_summary->setText(tr("counting…"));
    m_model->setFilter(query);
}

bool RequestsPage::atTop() const
{
    return m_table->verticalScrollBar()->value() == 0;
}

void RequestsPage::checkForNew()
{
    m_model->checkForNew();
}

void RequestsPage::onNewRows(qint64 rows)
{
    if (rows <= 0) {
        m_newRows->setVisible(false);
        return;
    }
    if (atTop()) {
        m_model->acceptNew();
        m_newRows->setVisible(false);
        m_summary->setText(tr("%1 requests").arg(formatCount(std::uint64_t(m_model->totalRows()))));
        return;
    }
    m_newRows->setText(rows == 1 ? tr("1 new ↑") : tr("%1 new ↑").arg(formatCount(std::uint64_t(rows))));
    m_newRows->setVisible(true);
}

void RequestsPage::jumpToNew()
{
    m_model->acceptNew();
    m_newRows->setVisible(false);
    m_summary->setText(tr("%1 requests").arg(formatCount(std::uint64_t(m_model->totalRows()))));
    m_table->scrollToTop();
}

void RequestsPage::showSelected()
{
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    if (rows.isEmpty()) {
        m_selectedId = 0;
        m_inspector->clearRequest();
        return;
    }
    const RequestRecord *record = m_model->record(rows.front().row());
    if (!record) {
        m_inspector->setHtml(tr("<p style=\"color:gray\">Loading…</p>"));
        return;
    }
    m_selectedId = record->id;
    m_inspector->showRequest(*record);
}

QString RequestsPage::summaryText() const
{
    return m_summary->text();
}

QString RequestsPage::newRowsText() const
{
    return m_newRows->isHidden() ? QString() : m_newRows->text();
}

} // namespace sb
