#include "pages/OverviewPage.h"

#include "ConsoleStyle.h"
#include "charts/AlignedChartView.h"
#include "charts/ChartGeometry.h"
#include "charts/CircuitTimeline.h"
#include "history/HistoryService.h"
#include "store/HistoryReader.h"
#include "widgets/KpiTile.h"

#include <QButtonGroup>
#include <QChart>
#include <QCursor>
#include <QDateTime>
#include <QDateTimeAxis>
#include <QDateTimeEdit>
#include <QElapsedTimer>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineSeries>
#include <QPushButton>
#include <QScatterSeries>
#include <QScopedValueRollback>
#include <QTimer>
#include <QToolButton>
#include <QToolTip>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>

namespace sb {

namespace {

// At most about maxPoints points: each bucket of consecutive points becomes its worst one (lowest
// score, highest latency), so a one-second dip survives an hour squeezed into the chart's width,
// and an hour of 1 s points does not cost 3,600 segments per line on every redraw.
QList<QPointF> thin(const QList<QPointF> &points, int maxPoints, bool keepLowest)
{
    if (points.size() <= maxPoints)
        return points;
    const qsizetype bucket = (points.size() + maxPoints - 1) / maxPoints;
    QList<QPointF> out;
    out.reserve(points.size() / bucket + 1);
    for (qsizetype i = 0; i < points.size(); i += bucket) {
        QPointF chosen = points[i];
        for (qsizetype j = i + 1; j < std::min(points.size(), i + bucket); ++j) {
            if (keepLowest ? points[j].y() < chosen.y() : points[j].y() > chosen.y())
                chosen = points[j];
        }
        out.append(chosen);
    }
    return out;
}

// The per-minute state string in the history, as the console draws it.
ChannelState stateFromHistory(const QString &state, double score)
{
    if (state == QLatin1String("open"))
        return ChannelState::Open;
    if (state == QLatin1String("half_open"))
        return ChannelState::HalfOpen;
    if (state == QLatin1String("ejected"))
        return ChannelState::Ejected;
    if (state == QLatin1String("drained"))
        return ChannelState::Drained;
    if (state == QLatin1String("misconfigured"))
        return ChannelState::Misconfigured;
    return score < 50 ? ChannelState::Degraded : ChannelState::Closed;
}

QString availabilityText(const HistoryReader::RequestTotals &totals)
{
    // A 404 for a model nothing serves is the caller's mistake, not an outage.
    const qint64 answered = totals.count - totals.callerErrors;
    if (answered <= 0)
        return QStringLiteral("—");
    return formatPercent(double(answered - (totals.errors - totals.callerErrors)) / double(answered));
}

QString windowLabel(int seconds)
{
    return seconds >= 3600 ? QStringLiteral("60m") : QStringLiteral("%1m").arg(seconds / 60);
}

} // namespace

OverviewPage::OverviewPage(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(16, 14, 16, 10);
    layout->setSpacing(10);

    auto *tiles = new QHBoxLayout;
    tiles->setSpacing(10);
    m_availability = new KpiTile(tr("Availability 5m"), this);
    m_requestRate = new KpiTile(tr("Requests/s"), this);
    m_ttft = new KpiTile(tr("TTFT p95"), this);
    m_failovers = new KpiTile(tr("Failovers 1h"), this);
    m_cost = new KpiTile(tr("Cost today"), this);
    for (KpiTile *tile : {m_availability, m_requestRate, m_ttft, m_failovers, m_cost}) {
        tile->setValue(QStringLiteral("—"), tr("no traffic yet"));
        tiles->addWidget(tile);
    }
    m_cost->setValue(QStringLiteral("—"), tr("no history connected"));
    m_cost->setToolTip(tr("Cost of today's requests, from the request history"));
    m_availability->setToolTip(tr("Successful answers over answered requests, last 5 minutes (a 404 for a model "
                                  "nothing serves is the caller's mistake and not counted); 1 h and 24 h come from the history."));
    layout->addLayout(tiles);

    // Window selector: the live span of all three charts.
    auto *selector = new QWidget(this);
    auto *selectorLayout = new QHBoxLayout(selector);
    selectorLayout->setContentsMargins(0, 0, 0, 0);
    selectorLayout->setSpacing(2);
    m_windowButtons = new QButtonGroup(this);
    for (int seconds : {300, 900, 3600}) {
        auto *button = new QToolButton(selector);
        button->setText(windowLabel(seconds));
        button->setObjectName(QStringLiteral("window%1").arg(seconds));
        button->setCheckable(true);
        button->setAutoRaise(true);
        button->setToolTip(tr("Show the last %1").arg(windowLabel(seconds)));
        button->setChecked(seconds == m_windowSeconds);
        m_windowButtons->addButton(button, seconds);
        selectorLayout->addWidget(button);
    }
    connect(m_windowButtons, &QButtonGroup::idClicked, this, [this](int seconds) {
        m_viewPinned = false; // a window button means "follow live again, this wide"
        updateModeWidgets();
        setWindowSeconds(seconds);
    });

    // History mode: the window buttons give way to a date-range picker over the same charts.
    m_rangePicker = new QWidget(selector);
    m_rangePicker->setObjectName(QStringLiteral("historyRange"));
    auto *pickerLayout = new QHBoxLayout(m_rangePicker);
    pickerLayout->setContentsMargins(0, 0, 0, 0);
    pickerLayout->setSpacing(4);
    m_fromEdit = new QDateTimeEdit(m_rangePicker);
    m_toEdit = new QDateTimeEdit(m_rangePicker);
    for (QDateTimeEdit *edit : {m_fromEdit, m_toEdit}) {
        edit->setDisplayFormat(QStringLiteral("yyyy-MM-dd HH:mm"));
        edit->setCalendarPopup(true);
    }
    m_fromEdit->setObjectName(QStringLiteral("historyFrom"));
    m_toEdit->setObjectName(QStringLiteral("historyTo"));
    m_loadButton = new QPushButton(tr("Load"), m_rangePicker);
    m_loadButton->setObjectName(QStringLiteral("historyLoad"));
    m_historyState = new QLabel(m_rangePicker);
    m_historyState->setObjectName(QStringLiteral("historyState"));
    m_historyState->setForegroundRole(QPalette::PlaceholderText);
    pickerLayout->addWidget(m_historyState);
    pickerLayout->addWidget(new QLabel(tr("From"), m_rangePicker));
    pickerLayout->addWidget(m_fromEdit);
    pickerLayout->addWidget(new QLabel(tr("to"), m_rangePicker));
    pickerLayout->addWidget(m_toEdit);
    pickerLayout->addWidget(m_loadButton);
    selectorLayout->insertWidget(0, m_rangePicker);
    connect(m_loadButton, &QPushButton::clicked, this, &OverviewPage::loadPickedRange);

    m_historyButton = new QToolButton(selector);
    m_historyButton->setObjectName(QStringLiteral("historyMode"));
    m_historyButton->setText(tr("History…"));
    m_historyButton->setAutoRaise(true);
    m_historyButton->setToolTip(tr("Load any past range from the history database"));
    m_historyButton->setEnabled(false);
    connect(m_historyButton, &QToolButton::clicked, this, [this] {
        const std::int64_t now = QDateTime::currentMSecsSinceEpoch();
        showHistory(now - 24 * 3600 * 1000LL, now);
    });
    m_liveButton = new QToolButton(selector);
    m_liveButton->setObjectName(QStringLiteral("liveMode"));
    m_liveButton->setText(tr("● Live"));
    m_liveButton->setAutoRaise(true);
    m_liveButton->setToolTip(tr("Back to the live window, following the newest snapshot"));
    connect(m_liveButton, &QToolButton::clicked, this, &OverviewPage::showLive);
    selectorLayout->addSpacing(8);
    selectorLayout->addWidget(m_historyButton);
    selectorLayout->addWidget(m_liveButton);

    auto *healthHeader = new QWidget(this);
    auto *healthHeaderLayout = new QHBoxLayout(healthHeader);
    healthHeaderLayout->setContentsMargins(0, 0, 0, 0);
    m_legend = new QLabel(healthHeader);
    m_legend->setObjectName(QStringLiteral("healthLegend"));
    m_waiting = new QLabel(tr("Waiting for the proxy: charts fill in once it publishes snapshots."), healthHeader);
    m_waiting->setForegroundRole(QPalette::PlaceholderText);
    healthHeaderLayout->addWidget(m_legend);
    healthHeaderLayout->addWidget(m_waiting);
    healthHeaderLayout->addStretch(1);
    healthHeaderLayout->addWidget(selector);

    m_healthChart = makeChart(100, &m_healthValues, &m_healthTime);
    m_healthValues->setTickCount(5);
    auto *healthView = new AlignedChartView(m_healthChart, this);
    m_healthView = healthView;
    healthView->setObjectName(QStringLiteral("healthChart"));
    healthView->setMinimumHeight(150);
    QLabel *unused = nullptr;
    layout->addWidget(makeSection(tr("Health score (0–100)"), healthView, healthHeader, &unused), 4);
    healthView->setToolTip(tr("Wheel: zoom · Shift+wheel: scroll · drag: zoom to a span · right click: zoom out"));

    m_circuit = new CircuitTimeline(this);
    m_circuit->setObjectName(QStringLiteral("circuitTimeline"));
    layout->addWidget(makeSection(tr("Circuit state"), m_circuit, nullptr, &unused), 0);

    m_ttftChart = makeChart(1000, &m_ttftValues, &m_ttftTime);
    m_ttftValues->setTitleText(tr("ms"));
    m_ttftP50 = new QLineSeries(m_ttftChart);
    m_ttftP50->setName(tr("p50"));
    m_ttftP95 = new QLineSeries(m_ttftChart);
    m_ttftP95->setName(tr("p95"));
    m_failoverMarkers = new QScatterSeries(m_ttftChart);
    m_failoverMarkers->setName(tr("failovers"));
    m_failoverMarkers->setMarkerShape(QScatterSeries::MarkerShapeTriangle);
    m_failoverMarkers->setMarkerSize(10);
    m_failoverMarkers->setColor(QColor(0xd5, 0x5e, 0x00));
    m_failoverMarkers->setBorderColor(QColor(0xd5, 0x5e, 0x00).darker(140));
    for (QXYSeries *series : std::initializer_list<QXYSeries *>{m_ttftP50, m_ttftP95, m_failoverMarkers}) {
        m_ttftChart->addSeries(series);
        series->attachAxis(m_ttftTime);
        series->attachAxis(m_ttftValues);
    }
    connect(m_failoverMarkers, &QScatterSeries::hovered, this, &OverviewPage::showFailoverTip);
    auto *ttftView = new AlignedChartView(m_ttftChart, this);
    m_ttftView = ttftView;
    ttftView->setObjectName(QStringLiteral("ttftChart"));
    ttftView->setMinimumHeight(150);
    m_ttftLegend = new QLabel(this);
    m_ttftLegend->setObjectName(QStringLiteral("ttftLegend"));
    layout->addWidget(makeSection(tr("Time to first token"), ttftView, m_ttftLegend, &unused), 4);

    // One time axis for all three: a zoom or scroll on either chart (or a rubber band, which
    // moves that chart's axis itself) becomes the range of every chart and the circuit bands.
    for (AlignedChartView *view : {m_healthView, m_ttftView}) {
        view->setZoomEnabled(true);
        connect(view, &AlignedChartView::timeRangeRequested, this, &OverviewPage::setViewRange);
    }
    for (QDateTimeAxis *axis : {m_healthTime, m_ttftTime})
        connect(axis, &QDateTimeAxis::rangeChanged, this, [this, axis] { axisRangeChanged(axis); });

    m_totalsTimer = new QTimer(this);
    m_totalsTimer->setInterval(kTotalsIntervalMs);
    connect(m_totalsTimer, &QTimer::timeout, this, &OverviewPage::refreshTotals);

    m_redrawTimer = new QTimer(this);
    m_redrawTimer->setSingleShot(true);
    m_redrawTimer->setInterval(kRedrawIntervalMs);
    connect(m_redrawTimer, &QTimer::timeout, this, &OverviewPage::redraw);

    restyle();
    updateModeWidgets();
    redraw();
    m_stats.redraws = 0; // the empty first paint is not a batched redraw
}

QWidget *OverviewPage::makeSection(const QString &title, QWidget *body, QWidget *trailing, QLabel **titleLabel)
{
    auto *section = new QWidget(this);
    auto *layout = new QVBoxLayout(section);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    auto *header = new QHBoxLayout;
    header->setContentsMargins(4, 0, 4, 0);
    auto *label = new QLabel(title, section);
    QFont font = label->font();
    font.setBold(true);
    label->setFont(font);
    header->addWidget(label);
    header->addSpacing(16);
    if (trailing)
        header->addWidget(trailing, 1);
    else
        header->addStretch(1);
    layout->addLayout(header);
    layout->addWidget(body, 1);
    *titleLabel = label;
    return section;
}

QChart *OverviewPage::makeChart(double yMax, QValueAxis **values, QDateTimeAxis **time)
{
    auto *chart = new QChart;
    chart->legend()->setVisible(false);
    chart->setMargins(QMargins(0, 0, 0, 0));
    chart->setBackgroundRoundness(4);
    chart->setAnimationOptions(QChart::NoAnimation);

    *time = new QDateTimeAxis(chart);
    (*time)->setFormat(QStringLiteral("HH:mm:ss"));
    (*time)->setTickCount(ChartGeometry::kTimeTicks);
    *values = new QValueAxis(chart);
    (*values)->setRange(0, yMax);
    (*values)->setLabelFormat(QStringLiteral("%d"));
    chart->addAxis(*time, Qt::AlignBottom);
    chart->addAxis(*values, Qt::AlignLeft);
    return chart;
}

void OverviewPage::applySnapshot(const sb::MetricsSnapshot &snapshot)
{
    ++m_stats.snapshots;
    m_history.addSnapshot(snapshot);
    updateTiles(snapshot);
    scheduleRedraw();
}

void OverviewPage::addEvent(const sb::HealthEvent &event)
{
    if (event.type != HealthEvent::Type::Failover)
        return; // breaker and pool transitions reach the charts through the snapshots
    ++m_stats.failoverEvents;
    m_history.addFailover(event);
    scheduleRedraw();
}

void OverviewPage::scheduleRedraw()
{
    if (!m_redrawTimer->isActive())
        m_redrawTimer->start();
}

void OverviewPage::setWindowSeconds(int seconds)
{
    m_windowSeconds = std::clamp(seconds, 60, 3600);
    if (QAbstractButton *button = m_windowButtons->button(m_windowSeconds))
        button->setChecked(true);
    redrawNow();
}

void OverviewPage::redrawNow()
{
    m_redrawTimer->stop();
    redraw();
}

void OverviewPage::redraw()
{
    ++m_stats.redraws;
    QElapsedTimer timer;
    timer.start();
    // Series updates can make Qt Charts touch the axes; none of that is a user zoom.
    const QScopedValueRollback<bool> ours(m_settingAxes, true);
    const TimelineHistory &source = m_historyMode ? m_past : m_history;
    const bool empty = m_history.isEmpty();
    m_waiting->setVisible(empty && !m_historyMode);
    std::int64_t start = 0, end = 0;
    if (m_historyMode || m_viewPinned) {
        start = m_viewFrom;
        end = m_viewTo;
    } else {
        end = empty ? QDateTime::currentMSecsSinceEpoch() : m_history.latestMillis();
        start = end - std::int64_t(m_windowSeconds) * 1000;
    }
    setAxesRange(start, end);
    // Points just outside the range still draw the line to the edge.
    const std::int64_t margin = m_historyMode ? 60'000 : 1000;
    const auto inRange = [&](std::int64_t t) { return t >= start - margin && t <= end + margin; };

    // Health: one line per channel, in the channel's colour.
    bool legendChanged = false;
    for (const auto &[id, track] : source.channels()) {
        QLineSeries *&series = m_healthSeries[id];
        if (!series) {
            series = new QLineSeries(m_healthChart);
            series->setName(track.name);
            series->setPen(QPen(channelColor(id), 2.2));
            m_healthChart->addSeries(series);
            series->attachAxis(m_healthTime);
            series->attachAxis(m_healthValues);
            const QString name = track.name;
            connect(series, &QLineSeries::hovered, this, [this, name](const QPointF &point, bool state) {
                if (state)
                    QToolTip::showText(QCursor::pos(), tr("%1 · health %2 · %3")
                                                           .arg(name, QString::number(point.y(), 'f', 0),
                                                                formatClock(std::int64_t(point.x()))), this);
            });
            legendChanged = true;
        }
        QList<QPointF> points;
        for (const auto &sample : track.samples) {
            if (inRange(sample.wallMillis))
                points.append(QPointF(double(sample.wallMillis), sample.score));
        }
        series->replace(thin(points, maxPoints(), true));
    }
    for (auto it = m_healthSeries.begin(); it != m_healthSeries.end();) {
        if (source.channels().count(it.key()) == 0) {
            m_healthChart->removeSeries(it.value());
            delete it.value();
            it = m_healthSeries.erase(it);
            legendChanged = true;
        } else {
            ++it;
        }
    }
    if (legendChanged) {
        updateLegend();
        m_healthView->applyGutters();
    }

    if (m_historyMode)
        m_circuit->setSampling(60'000, 180'000);
    else
        m_circuit->setSampling(1000, 5000);
    m_circuit->setData(source, start, end);

    // TTFT overall, and failover markers riding near the top of the same chart.
    QList<QPointF> p50, p95;
    double top = 0;
    for (const auto &sample : source.totals()) {
        if (!inRange(sample.wallMillis))
            continue;
        p50.append(QPointF(double(sample.wallMillis), sample.ttftP50Ms));
        p95.append(QPointF(double(sample.wallMillis), sample.ttftP95Ms));
        top = std::max(top, sample.ttftP95Ms);
    }
    m_ttftValues->setRange(0, std::max(100.0, top * 1.2));
    m_ttftValues->applyNiceNumbers();
    const double yMax = m_ttftValues->max();
    m_ttftP50->replace(thin(p50, maxPoints(), false));
    m_ttftP95->replace(thin(p95, maxPoints(), false));

    m_visibleMarkers.clear();
    QList<QPointF> markers;
    for (const auto &marker : source.failovers()) {
        if (marker.secondMillis < start || marker.secondMillis > end)
            continue;
        m_visibleMarkers.push_back(marker);
        markers.append(QPointF(double(marker.secondMillis + 500), yMax * 0.92));
    }
    m_failoverMarkers->replace(markers);
    m_stats.longestRedrawMicros = std::max<std::int64_t>(m_stats.longestRedrawMicros, timer.nsecsElapsed() / 1000);
}

void OverviewPage::setAxesRange(std::int64_t fromMillis, std::int64_t toMillis)
{
    const std::int64_t span = toMillis - fromMillis;
    const QString format = span > 2 * 86'400'000LL ? QStringLiteral("MM-dd HH:mm")
        : span > 900'000 ? QStringLiteral("HH:mm") : QStringLiteral("HH:mm:ss");
    const QDateTime from = QDateTime::fromMSecsSinceEpoch(fromMillis), to = QDateTime::fromMSecsSinceEpoch(toMillis);
    const QScopedValueRollback<bool> ours(m_settingAxes, true);
    for (QDateTimeAxis *axis : {m_healthTime, m_ttftTime}) {
        axis->setRange(from, to);
        axis->setFormat(format);
    }
    m_circuit->setRange(fromMillis, toMillis);
}

void OverviewPage::axisRangeChanged(QDateTimeAxis *axis)
{
    if (m_settingAxes)
        return;
    // A rubber band moved this chart's axis: the others follow.
    setViewRange(axis->min().toMSecsSinceEpoch(), axis->max().toMSecsSinceEpoch());
}

void OverviewPage::setViewRange(std::int64_t fromMillis, std::int64_t toMillis)
{
    if (toMillis <= fromMillis)
        return;
    m_viewFrom = fromMillis;
    m_viewTo = toMillis;
    if (!m_historyMode)
        m_viewPinned = true; // live mode: hold still while the user looks, until "Live"
    updateModeWidgets();
    redrawNow();
}

std::int64_t OverviewPage::visibleFrom() const
{
    return m_healthTime->min().toMSecsSinceEpoch();
}

std::int64_t OverviewPage::visibleTo() const
{
    return m_healthTime->max().toMSecsSinceEpoch();
}

void OverviewPage::updateModeWidgets()
{
    for (QAbstractButton *button : m_windowButtons->buttons())
        button->setVisible(!m_historyMode);
    m_rangePicker->setVisible(m_historyMode);
    m_liveButton->setVisible(m_historyMode || m_viewPinned);
    m_historyButton->setVisible(!m_historyMode);
    m_ttftLegend->setText(m_historyMode
        ? tr("<span style=\"font-weight:600\">━━</span> max &nbsp; <span>╍╍</span> average per minute &nbsp; "
             "<span style=\"color:#d55e00\">▲</span> failovers (hover for the count)")
        : tr("<span style=\"font-weight:600\">━━</span> p95 &nbsp; <span>╍╍</span> p50 &nbsp; "
             "<span style=\"color:#d55e00\">▲</span> failover (hover for from → to and why)"));
}

void OverviewPage::showLive()
{
    m_historyMode = false;
    m_viewPinned = false;
    m_past.clear();
    updateModeWidgets();
    updateLegend();
    redrawNow();
}

void OverviewPage::loadPickedRange()
{
    showHistory(m_fromEdit->dateTime().toMSecsSinceEpoch(), m_toEdit->dateTime().toMSecsSinceEpoch());
}

QString OverviewPage::historyStatus() const
{
    return m_historyState->text();
}

void OverviewPage::showHistory(std::int64_t fromMillis, std::int64_t toMillis)
{
    if (!m_historyService || toMillis <= fromMillis)
        return;
    m_historyMode = true;
    m_viewPinned = false;
    m_pastFrom = fromMillis;
    m_pastTo = toMillis;
    m_viewFrom = fromMillis;
    m_viewTo = toMillis;
    m_fromEdit->setDateTime(QDateTime::fromMSecsSinceEpoch(fromMillis));
    m_toEdit->setDateTime(QDateTime::fromMSecsSinceEpoch(toMillis));
    m_historyLoading = true;
    m_historyState->setText(tr("loading…"));
    updateModeWidgets();
    redrawNow();

    struct Loaded {
        std::vector<HealthMinute> health;
        std::vector<HistoryReader::RequestMinute> requests;
        std::map<int, QString> names;
    };
    auto loaded = std::make_shared<Loaded>();
    for (const auto &[id, track] : m_history.channels())
        loaded->names[id] = track.name; // the live names first; the database fills the rest
    m_historyService->submit(this, QStringLiteral("overview.history"), [loaded, fromMillis, toMillis](HistoryReader &reader) {
        loaded->health = reader.healthPerMinute(fromMillis, toMillis);
        loaded->requests = reader.requestsPerMinute(fromMillis, toMillis);
        for (const auto &channel : reader.channelNames())
            loaded->names.try_emplace(channel.channelId, channel.name);
    }, [this, loaded] {
        m_historyLoading = false;
        if (!m_historyMode)
            return;
        ++m_historyLoads;
        m_past.clear();
        for (const HealthMinute &m : loaded->health) {
            const auto name = loaded->names.find(m.channelId);
            // The minute's lowest score: a one-minute dip must not average away.
            m_past.addChannelSample(m.channelId, name != loaded->names.end() ? name->second : QStringLiteral("#%1").arg(m.channelId),
                                    m.minuteMs, m.scoreMin, stateFromHistory(m.state, m.scoreAvg));
        }
        std::uint64_t failovers = 0;
        for (const auto &m : loaded->requests) {
            if (m.ttftAvgMs >= 0)
                m_past.addTotals(m.minuteMs, m.ttftAvgMs, m.ttftMaxMs);
            if (m.failovers > 0) {
                TimelineHistory::FailoverMarker marker;
                marker.secondMillis = m.minuteMs + 30'000;
                marker.count = int(m.failovers);
                m_past.addMarker(marker);
                failovers += std::uint64_t(m.failovers);
            }
        }
        m_historyState->setText(loaded->health.empty() && loaded->requests.empty()
                                    ? tr("nothing recorded in this range")
                                    : tr("%1 channels · %2 failovers").arg(m_past.channels().size()).arg(formatCount(failovers)));
        updateLegend();
        redrawNow();
    });
}

void OverviewPage::setHistory(HistoryService *history)
{
    m_historyService = history;
    m_costFromSnapshots = false;
    m_historyButton->setEnabled(history != nullptr);
    m_historyButton->setToolTip(tr("Load any past range from the history database"));
    if (history) {
        m_totalsTimer->start();
        refreshTotals();
    } else {
        m_totalsTimer->stop();
    }
}

void OverviewPage::setHistoryUnavailable(const QString &reason)
{
    setHistory(nullptr);
    m_costFromSnapshots = true;
    m_historyButton->setToolTip(reason);
}

void OverviewPage::clearLive()
{
    m_history.clear();
    m_availabilityHistory.clear();
    m_costToday = -1.0;
    m_tokensToday = 0;
    for (KpiTile *tile : {m_availability, m_requestRate, m_ttft, m_failovers, m_cost})
        tile->setValue(QStringLiteral("—"), tr("no traffic yet"));
    showLive(); // also leaves history mode: its range came from the previous source's database
    updateLegend();
    redrawNow();
}

void OverviewPage::refreshTotals()
{
    if (!m_historyService)
        return;
    const std::int64_t now = QDateTime::currentMSecsSinceEpoch();
    const std::int64_t midnight = QDateTime(QDate::currentDate(), QTime(0, 0)).toMSecsSinceEpoch();
    struct Totals {
        HistoryReader::RequestTotals hour, day, today;
    };
    auto totals = std::make_shared<Totals>();
    m_historyService->submit(this, QStringLiteral("overview.totals"), [totals, now, midnight](HistoryReader &reader) {
        HistoryReader::RequestQuery query;
        query.toMs = now + 1;
        query.fromMs = now - 3600 * 1000LL;
        totals->hour = reader.totals(query);
        query.fromMs = now - 24 * 3600 * 1000LL;
        totals->day = reader.totals(query);
        query.fromMs = midnight;
        totals->today = reader.totals(query);
    }, [this, totals] {
        if (!m_historyService) // asked before the console attached elsewhere: not the instance's figures
            return;
        m_availabilityHistory = tr("1h %1 · 24h %2").arg(availabilityText(totals->hour), availabilityText(totals->day));
        m_costToday = totals->today.costUsd;
        m_tokensToday = std::uint64_t(totals->today.inputTokens + totals->today.outputTokens);
        if (m_stats.snapshots == 0)
            m_availability->setValue(QStringLiteral("—"), m_availabilityHistory);
        m_cost->setValue(QStringLiteral("$%1").arg(QLocale().toString(m_costToday, 'f', 2)),
                         tr("%1 tokens today").arg(formatCount(m_tokensToday)));
        m_availability->setToolTip(tr("Successful answers over answered requests (a 404 for a model nothing serves is the "
                                      "caller's mistake and not counted): last 5 minutes from the engine, 1 h and 24 h from the history."));
        m_cost->setToolTip(tr("Cost of today's requests (since local midnight), from the history"));
    });
}

void OverviewPage::updateTiles(const MetricsSnapshot &snapshot)
{
    const bool idle = snapshot.answered5m == 0;
    const QString longer = m_availabilityHistory.isEmpty() ? tr("1h — · 24h — (no history)") : m_availabilityHistory;
    m_availability->setValue(idle ? QStringLiteral("—") : formatPercent(snapshot.availability5m),
                             idle ? tr("none answered in 5 min · %1").arg(longer) : longer);
    m_requestRate->setValue(formatRate(snapshot.requestsPerSecond),
                            tr("%1 in flight · %2 total").arg(formatCount(std::uint64_t(std::max<std::int64_t>(0, snapshot.inFlight))),
                                                              formatCount(snapshot.requests)));
    m_ttft->setValue(formatMs(snapshot.ttftP95Ms), tr("p50 %1 (last minute)").arg(formatMs(snapshot.ttftP50Ms)));
    const std::uint64_t lastHour = m_history.failoversSince(snapshot.wallMillis - 3600 * 1000);
    m_failovers->setValue(formatCount(lastHour), tr("%1 since start").arg(formatCount(snapshot.failovers)));
    if (m_costFromSnapshots)
        m_cost->setValue(QStringLiteral("$%1").arg(QLocale().toString(snapshot.costTodayUsd, 'f', 2)),
                         tr("%1 tokens since start").arg(formatCount(snapshot.inputTokens + snapshot.outputTokens)));
    else if (m_costToday < 0)
        m_cost->setValue(QStringLiteral("—"), tr("%1 tokens").arg(formatCount(snapshot.inputTokens + snapshot.outputTokens)));
}

void OverviewPage::updateLegend()
{
    QStringList items;
    for (const auto &[id, track] : (m_historyMode ? m_past : m_history).channels()) {
        items << QStringLiteral("<span style=\"color:%1; font-weight:700\">━━</span>&nbsp;%2")
                     .arg(channelColor(id).name(), track.name.toHtmlEscaped());
    }
    m_legend->setText(items.join(QStringLiteral(" &nbsp;&nbsp; ")));
}

void OverviewPage::restyle()
{
    const QPalette pal = palette();
    styleChart(m_healthChart, pal);
    styleChart(m_ttftChart, pal);
    m_healthView->setBackgroundBrush(pal.base());
    m_ttftView->setBackgroundBrush(pal.base());
    QColor p50 = pal.text().color();
    p50.setAlpha(150);
    QPen p50Pen(p50, 1.6, Qt::DashLine);
    m_ttftP50->setPen(p50Pen);
    m_ttftP95->setPen(QPen(pal.text().color(), 2.2));
}

void OverviewPage::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange)
        restyle();
    QWidget::changeEvent(event);
}

void OverviewPage::showFailoverTip(const QPointF &point, bool state)
{
    if (!state) {
        QToolTip::hideText();
        return;
    }
    // Every marker hovered at that second, in every direction.
    const std::int64_t second = std::int64_t(point.x()) - 500;
    QStringList lines;
    for (const auto &marker : m_visibleMarkers) {
        if (marker.secondMillis != second)
            continue;
        if (marker.fromName.isEmpty()) { // history: counted per minute, no direction kept
            lines << tr("%1 failovers in the minute from %2").arg(marker.count).arg(formatClock(marker.secondMillis - 30'000));
            continue;
        }
        lines << tr("%1 → %2 ×%3, %4, %5")
                     .arg(marker.fromName, marker.toName, QString::number(marker.count),
                          marker.lastReason.isEmpty() ? tr("no reason given") : marker.lastReason,
                          formatClock(marker.secondMillis));
    }
    if (!lines.isEmpty())
        QToolTip::showText(QCursor::pos(), lines.join('\n'), this);
}

int OverviewPage::maxPoints() const
{
    // About one point per two pixels of plot; never fewer than a 5-minute window at 1/s.
    return std::max(360, (m_healthView->width() - ChartGeometry::kLeftGutter - ChartGeometry::kRightGutter) / 2);
}

double OverviewPage::healthMinimum(int channelId) const
{
    const QLineSeries *series = m_healthSeries.value(channelId, nullptr);
    double lowest = 100;
    if (series) {
        for (const QPointF &point : series->points())
            lowest = std::min(lowest, point.y());
    }
    return lowest;
}

int OverviewPage::healthPointCount(int channelId) const
{
    const QLineSeries *series = m_healthSeries.value(channelId, nullptr);
    return series ? int(series->count()) : 0;
}

int OverviewPage::ttftPointCount() const
{
    return int(m_ttftP95->count());
}

int OverviewPage::failoverMarkerCount() const
{
    return int(m_failoverMarkers->count());
}

QString OverviewPage::kpiCaption(const QString &title) const
{
    for (const KpiTile *tile : {m_availability, m_requestRate, m_ttft, m_failovers, m_cost}) {
        if (tile->title() == title)
            return tile->caption();
    }
    return {};
}

QString OverviewPage::kpiValue(const QString &title) const
{
    for (const KpiTile *tile : {m_availability, m_requestRate, m_ttft, m_failovers, m_cost}) {
        if (tile->title() == title)
            return tile->value();
    }
    return {};
}

} // namespace sb
