#pragma once

#include <QChartView>

#include <cstdint>

class QDateTimeAxis;

namespace sb {

// A chart view whose plot area keeps ChartGeometry's gutters at any size, so stacked charts (and
// the circuit timeline) share their x positions instead of each sizing itself to its labels.
// With zoom enabled it also moves its time axis: the wheel zooms around the cursor, Shift+wheel
// (or a sideways wheel) scrolls, a drag selects a span (rubber band) and a right click zooms out.
// It only asks (timeRangeRequested); the page applies the range to every chart at once.
class AlignedChartView : public QChartView {
    Q_OBJECT
public:
    explicit AlignedChartView(QChart *chart, QWidget *parent = nullptr);
    // Re-applies the gutters; QChart lays out again by itself when series are added.
    void applyGutters();

    void setZoomEnabled(bool enabled);
    // Zooms the time axis by `factor` (< 1 zooms in) keeping the time under plot x `anchorX`.
    void zoomBy(double factor, double anchorX);
    // Scrolls by a fraction of the visible span (negative: back in time).
    void scrollBy(double fraction);

signals:
    void timeRangeRequested(std::int64_t fromMillis, std::int64_t toMillis);

private:
    void applyGutters(const QSizeF &size);
    QDateTimeAxis *timeAxis() const;

protected:
    void resizeEvent(QResizeEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;

private:
    bool m_zoomEnabled = false;
};

} // namespace sb
