#include "charts/CircuitTimeline.h"

#include "charts/ChartGeometry.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

namespace sb {

namespace {
constexpr int kRowHeight = 22;
constexpr int kRowGap = 6;
constexpr int kLegendHeight = 26;
constexpr ChannelState kLegendStates[] = {ChannelState::Closed, ChannelState::Degraded, ChannelState::HalfOpen,
                                          ChannelState::Open, ChannelState::Ejected};
} // namespace

CircuitTimeline::CircuitTimeline(QWidget *parent) : QWidget(parent)
{
    setAttribute(Qt::WA_OpaquePaintEvent, false);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

Qt::BrushStyle CircuitTimeline::statePattern(ChannelState state)
{
    switch (state) {
    case ChannelState::Closed: return Qt::NoBrush;
    case ChannelState::Degraded: return Qt::HorPattern;
    case ChannelState::HalfOpen: return Qt::FDiagPattern;
    case ChannelState::Open: return Qt::BDiagPattern;
    case ChannelState::Ejected:
    case ChannelState::Drained: return Qt::DiagCrossPattern;
    case ChannelState::Misconfigured: return Qt::CrossPattern;
    }
    return Qt::NoBrush;
}

void CircuitTimeline::setData(const TimelineHistory &history, std::int64_t fromMillis, std::int64_t toMillis)
{
    m_from = fromMillis;
    m_to = toMillis;
    const int oldRows = rowCount();
    m_rows.clear();
    for (const auto &[id, track] : history.channels()) {
        Row row;
        row.channelId = id;
        row.name = track.name;
        const auto &samples = track.samples;
        for (std::size_t i = 0; i < samples.size(); ++i) {
            const auto &sample = samples[i];
            const std::int64_t end = i + 1 < samples.size() ? samples[i + 1].wallMillis : sample.wallMillis + m_sample;
            if (end < fromMillis)
                continue;
            const std::int64_t to = std::min(end, sample.wallMillis + m_maxGap);
            if (!row.segments.empty() && row.segments.back().state == sample.state
                && row.segments.back().to == sample.wallMillis)
                row.segments.back().to = to;
            else
                row.segments.push_back({sample.wallMillis, to, sample.state});
        }
        m_rows.push_back(std::move(row));
    }
    if (oldRows != rowCount())
        updateGeometry();
    update();
}

void CircuitTimeline::setSampling(std::int64_t sampleMillis, std::int64_t maxGapMillis)
{
    m_sample = sampleMillis;
    m_maxGap = maxGapMillis;
}

void CircuitTimeline::setRange(std::int64_t fromMillis, std::int64_t toMillis)
{
    m_from = fromMillis;
    m_to = toMillis;
    update();
}

ChannelState CircuitTimeline::stateAt(int channelId, std::int64_t wallMillis) const
{
    for (const Row &row : m_rows) {
        if (row.channelId != channelId)
            continue;
        for (const Segment &segment : row.segments) {
            if (wallMillis >= segment.from && wallMillis < segment.to)
                return segment.state;
        }
    }
    return ChannelState::Closed;
}

QSize CircuitTimeline::sizeHint() const
{
    const int rows = std::max(2, rowCount());
    return {600, ChartGeometry::kTopMargin + rows * (kRowHeight + kRowGap) + kLegendHeight};
}

QSize CircuitTimeline::minimumSizeHint() const
{
    return {300, sizeHint().height()};
}

QRect CircuitTimeline::plotRect() const
{
    return QRect(ChartGeometry::kLeftGutter, ChartGeometry::kTopMargin,
                 std::max(10, width() - ChartGeometry::kLeftGutter - ChartGeometry::kRightGutter),
                 height() - ChartGeometry::kTopMargin - kLegendHeight);
}

QRect CircuitTimeline::rowRect(int row) const
{
    const QRect plot = plotRect();
    return QRect(plot.left(), plot.top() + row * (kRowHeight + kRowGap), plot.width(), kRowHeight);
}

double CircuitTimeline::xOf(std::int64_t wallMillis) const
{
    const QRect plot = plotRect();
    if (m_to <= m_from)
        return plot.left();
    return plot.left() + double(wallMillis - m_from) * plot.width() / double(m_to - m_from);
}

void CircuitTimeline::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    const QPalette &pal = palette();
    painter.fillRect(rect(), pal.base());
    const QRect plot = plotRect();

    QColor grid = pal.text().color();
    grid.setAlpha(40);
    painter.setPen(QPen(grid, 1));
    for (int i = 0; i < ChartGeometry::kTimeTicks; ++i) {
        const int x = plot.left() + i * (plot.width() - 1) / (ChartGeometry::kTimeTicks - 1);
        painter.drawLine(x, plot.top() - 4, x, plot.bottom());
    }

    const QFontMetrics metrics(font());
    QFont bandFont = font();
    bandFont.setBold(true);
    bandFont.setPointSizeF(font().pointSizeF() * 0.85);
    const QFontMetrics bandMetrics(bandFont);

    if (m_rows.empty()) {
        painter.setPen(pal.placeholderText().color());
        painter.drawText(plot, Qt::AlignCenter, tr("No circuit data yet"));
    }
    for (int r = 0; r < rowCount(); ++r) {
        const Row &row = m_rows[static_cast<std::size_t>(r)];
        const QRect band = rowRect(r);
        // Channel label in the gutter: its chart colour, then its name.
        const QRect label(4, band.top(), ChartGeometry::kLeftGutter - 12, band.height());
        painter.setRenderHint(QPainter::Antialiasing);
        painter.setPen(Qt::NoPen);
        painter.setBrush(channelColor(row.channelId));
        painter.drawRoundedRect(QRect(label.left() + 4, label.center().y() - 5, 10, 10), 2, 2);
        painter.setRenderHint(QPainter::Antialiasing, false);
        painter.setPen(pal.text().color());
        painter.setFont(font());
        painter.drawText(label.adjusted(20, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter,
                         metrics.elidedText(row.name, Qt::ElideMiddle, label.width() - 20));

        QColor track = pal.text().color();
        track.setAlpha(18);
        painter.fillRect(band, track);
        painter.setClipRect(plot);
        for (const Segment &segment : row.segments) {
            const double x1 = std::max<double>(xOf(segment.from), plot.left());
            const double x2 = std::min<double>(xOf(segment.to), plot.right() + 1);
            if (x2 <= x1)
                continue;
            const QRectF area(x1, band.top(), std::max(1.0, x2 - x1), band.height());
            painter.fillRect(area, stateColor(segment.state));
            const Qt::BrushStyle pattern = statePattern(segment.state);
            if (pattern != Qt::NoBrush) {
                QColor ink = segment.state == ChannelState::HalfOpen ? QColor(0, 0, 0, 70) : QColor(255, 255, 255, 90);
                painter.fillRect(area, QBrush(ink, pattern));
            }
            if (segment.state != ChannelState::Closed) {
                const QString text = stateText(segment.state).toUpper();
                if (bandMetrics.horizontalAdvance(text) + 10 < area.width()) {
                    painter.setFont(bandFont);
                    const QRectF textBox = bandMetrics.boundingRect(text).adjusted(-4, 0, 4, 0);
                    QRectF chip(area.center().x() - textBox.width() / 2, area.top() + 3, textBox.width(),
                                area.height() - 6);
                    painter.fillRect(chip, stateColor(segment.state));
                    painter.setPen(segment.state == ChannelState::HalfOpen ? QColor(0x21, 0x21, 0x21) : QColor(Qt::white));
                    painter.drawText(chip, Qt::AlignCenter, text);
                }
            }
        }
        painter.setClipping(false);
    }

    // Legend: the same swatch (colour + pattern) and the state's name.
    int x = plot.left();
    const int y = height() - kLegendHeight + 6;
    painter.setFont(font());
    for (ChannelState state : kLegendStates) {
        const QRect swatch(x, y, 22, 12);
        painter.fillRect(swatch, stateColor(state));
        if (statePattern(state) != Qt::NoBrush)
            painter.fillRect(swatch, QBrush(state == ChannelState::HalfOpen ? QColor(0, 0, 0, 70) : QColor(255, 255, 255, 90),
                                            statePattern(state)));
        const QString text = state == ChannelState::Ejected ? tr("ejected / drained") : stateText(state);
        painter.setPen(pal.text().color());
        const QRect textRect(x + 28, y - 3, metrics.horizontalAdvance(text) + 4, 18);
        painter.drawText(textRect, Qt::AlignLeft | Qt::AlignVCenter, text);
        x = textRect.right() + 18;
    }
}

bool CircuitTimeline::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        const QRect plot = plotRect();
        for (int r = 0; r < rowCount(); ++r) {
            if (!rowRect(r).contains(help->pos()))
                continue;
            const std::int64_t at = m_from + static_cast<std::int64_t>(double(help->pos().x() - plot.left())
                                                                       * double(m_to - m_from) / plot.width());
            const Row &row = m_rows[static_cast<std::size_t>(r)];
            for (const Segment &segment : row.segments) {
                if (at >= segment.from && at < segment.to) {
                    QToolTip::showText(help->globalPos(),
                                       tr("%1: %2 from %3 to %4").arg(row.name, stateText(segment.state),
                                                                     formatClock(segment.from), formatClock(segment.to)),
                                       this);
                    return true;
                }
            }
        }
        QToolTip::hideText();
        event->ignore();
        return true;
    }
    return QWidget::event(event);
}

} // namespace sb
