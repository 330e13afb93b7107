#include "charts/AlignedChartView.h"

#include "charts/ChartGeometry.h"

#include <QChart>
#include <QDateTime>
#include <QDateTimeAxis>
#include <QMouseEvent>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace sb {

namespace {
constexpr double kZoomStep = 0.8;          // per wheel notch
constexpr double kScrollStep = 0.1;        // of the visible span per notch
constexpr std::int64_t kMinSpanMillis = 30'000;
} // namespace

AlignedChartView::AlignedChartView(QChart *chart, QWidget *parent) : QChartView(chart, parent)
{
    setRenderHint(QPainter::Antialiasing);
    setFrameShape(QFrame::NoFrame);
    // The chart is resized by its scene, sometimes after the view's own resize event.
    connect(chart, &QGraphicsWidget::geometryChanged, this, [this] { applyGutters(); });
}

void AlignedChartView::resizeEvent(QResizeEvent *event)
{
    // A fixed plot area also fixes the chart's minimum size: shrink it first, or the chart cannot
    // follow the view down and ends up clipped.
    applyGutters(event->size());
    QChartView::resizeEvent(event);
    applyGutters();
}

void AlignedChartView::applyGutters()
{
    applyGutters(chart()->size());
}

void AlignedChartView::applyGutters(const QSizeF &size)
{
    const QRectF plot(ChartGeometry::kLeftGutter, ChartGeometry::kTopMargin,
                      std::max(10.0, size.width() - ChartGeometry::kLeftGutter - ChartGeometry::kRightGutter),
                      std::max(10.0, size.height() - ChartGeometry::kTopMargin - ChartGeometry::kBottomMargin));
    if (chart()->plotArea() != plot)
        chart()->setPlotArea(plot);
}

void AlignedChartView::setZoomEnabled(bool enabled)
{
    m_zoomEnabled = enabled;
    // QChartView's own rubber band zooms the chart's axes on release; the page hears the time
    // axis change and moves the other charts with it.
    setRubberBand(enabled ? QChartView::HorizontalRubberBand : QChartView::NoRubberBand);
}

QDateTimeAxis *AlignedChartView::timeAxis() const
{
    for (QAbstractAxis *axis : chart()->axes(Qt::Horizontal)) {
        if (auto *time = qobject_cast<QDateTimeAxis *>(axis))
            return time;
    }
    return nullptr;
}

void AlignedChartView::zoomBy(double factor, double anchorX)
{
    QDateTimeAxis *axis = timeAxis();
    if (!axis)
        return;
    const QRectF plot = chart()->plotArea();
    const double from = double(axis->min().toMSecsSinceEpoch());
    const double to = double(axis->max().toMSecsSinceEpoch());
    const double ratio = plot.width() > 0 ? std::clamp((anchorX - plot.left()) / plot.width(), 0.0, 1.0) : 0.5;
    const double anchor = from + (to - from) * ratio;
    const double span = std::max(double(kMinSpanMillis), (to - from) * factor);
    const auto newFrom = std::int64_t(anchor - span * ratio);
    emit timeRangeRequested(newFrom, newFrom + std::int64_t(span));
}

void AlignedChartView::scrollBy(double fraction)
{
    QDateTimeAxis *axis = timeAxis();
    if (!axis)
        return;
    const std::int64_t from = axis->min().toMSecsSinceEpoch();
    const std::int64_t to = axis->max().toMSecsSinceEpoch();
    const auto shift = std::int64_t(double(to - from) * fraction);
    emit timeRangeRequested(from + shift, to + shift);
}

void AlignedChartView::wheelEvent(QWheelEvent *event)
{
    if (!m_zoomEnabled) {
        QChartView::wheelEvent(event);
        return;
    }
    const QPoint delta = event->angleDelta();
    const bool sideways = delta.x() != 0 && delta.y() == 0;
    const double notches = double(sideways ? delta.x() : delta.y()) / 120.0;
    if (sideways || (event->modifiers() & Qt::ShiftModifier))
        scrollBy(-notches * kScrollStep);
    else
        zoomBy(std::pow(kZoomStep, notches), event->position().x());
    event->accept();
}

void AlignedChartView::mouseReleaseEvent(QMouseEvent *event)
{
    if (m_zoomEnabled && event->button() == Qt::RightButton) {
        // Zoom out around the middle; QChart's own zoomOut would also move the value axis.
        zoomBy(2.0, chart()->plotArea().center().x());
        event->accept();
        return;
    }
    QChartView::mouseReleaseEvent(event);
}

} // namespace sb
