#include "charts/AlignedChartView.h"

#include "charts/ChartGeometry.h"

#include <QChart>

namespace sb {

AlignedChartView::AlignedChartView(QChart *chart, QWidget *parent) : QChartView(chart, parent)
{
    setRenderHint(QPainter::Antialiasing);
    setFrameShape(QFrame::NoFrame);
}

void AlignedChartView::resizeEvent(QResizeEvent *event)
{
    QChartView::resizeEvent(event);
    const QRectF plot(ChartGeometry::kLeftGutter, ChartGeometry::kTopMargin,
                      std::max(10, width() - ChartGeometry::kLeftGutter - ChartGeometry::kRightGutter),
                      std::max(10, height() - ChartGeometry::kTopMargin - ChartGeometry::kBottomMargin));
    chart()->setPlotArea(plot);
}

} // namespace sb
