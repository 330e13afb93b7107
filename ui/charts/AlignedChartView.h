#pragma once

#include <QChartView>

namespace sb {

// A chart view whose plot area keeps ChartGeometry's gutters at any size, so stacked charts (and
// the circuit timeline) share their x positions instead of each sizing itself to its labels.
class AlignedChartView : public QChartView {
    Q_OBJECT
public:
    explicit AlignedChartView(QChart *chart, QWidget *parent = nullptr);
    // Re-applies the gutters; QChart lays out again by itself when series are added.
    void applyGutters();

private:
    void applyGutters(const QSizeF &size);

protected:
    void resizeEvent(QResizeEvent *event) override;
};

} // namespace sb
