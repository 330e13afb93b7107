#pragma once

#include "charts/TimelineHistory.h"

#include <QWidget>

namespace sb {

// Circuit state per channel as stacked bands on the Overview's time axis: one row per channel,
// coloured by state (the console's state colours) and told apart by pattern and text too, never colour alone.
class CircuitTimeline : public QWidget {
    Q_OBJECT
public:
    explicit CircuitTimeline(QWidget *parent = nullptr);

    // Copies what is visible between fromMillis and toMillis; repaints once.
    void setData(const TimelineHistory &history, std::int64_t fromMillis, std::int64_t toMillis);
    // Moves the visible range without new data (zoom and scroll on the shared time axis).
    void setRange(std::int64_t fromMillis, std::int64_t toMillis);
    std::int64_t fromMillis() const { return m_from; }
    std::int64_t toMillis() const { return m_to; }
    // Samples every sampleMillis; a hole longer than maxGapMillis is drawn as "no data" (live: 1 s
    // and 5 s; history's per-minute rows: 60 s and 3 min).
    void setSampling(std::int64_t sampleMillis, std::int64_t maxGapMillis);
    int rowCount() const { return static_cast<int>(m_rows.size()); }
    // The state shown for a channel at a time (tests, tooltips); Closed when unknown.
    ChannelState stateAt(int channelId, std::int64_t wallMillis) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

    static Qt::BrushStyle statePattern(ChannelState state);

protected:
    void paintEvent(QPaintEvent *event) override;
    bool event(QEvent *event) override;

private:
    struct Segment {
        std::int64_t from = 0, to = 0;
        ChannelState state = ChannelState::Closed;
    };
    struct Row {
        int channelId = 0;
        QString name;
        std::vector<Segment> segments;
    };
    QRect plotRect() const;
    QRect rowRect(int row) const;
    double xOf(std::int64_t wallMillis) const;

    std::vector<Row> m_rows;
    std::int64_t m_from = 0, m_to = 0;
    std::int64_t m_sample = 1000;
    std::int64_t m_maxGap = 5000;
};

} // namespace sb
