#include "charts/AlignedChartView.h"

#include "charts/ChartGeometry.h"

#include <QChart>

namespace sb {

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

} // namespace sb
