#pragma once

namespace sb {

// The Overview's charts share one time axis: every plot starts and ends at the same x, so a health
// dip, the circuit opening and the failover markers line up vertically.
struct ChartGeometry {
    static constexpr int kLeftGutter = 140; // channel names in the circuit timeline, value labels in charts
    static constexpr int kRightGutter = 40; // room for the last time label, centred on the edge
    static constexpr int kTopMargin = 22; // Qt Charts hides a top value label that would touch the edge
    static constexpr int kBottomMargin = 30; // time labels
    static constexpr int kTimeTicks = 7;     // 6 intervals: 50 s / 150 s / 10 min
};

} // namespace sb
