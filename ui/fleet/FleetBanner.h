#pragma once

#include "fleet/FleetReport.h"
#include "widgets/WarningStrip.h"

namespace sb {

// A strip across the top of the console while the instance shown is in a fleet whose Redis does
// not answer: since when, why, and what that means for the traffic (each instance decides alone
// until Redis is back). Hidden otherwise. Red: the open-circuit colour.
class FleetBanner : public WarningStrip {
    Q_OBJECT
public:
    explicit FleetBanner(QWidget *parent = nullptr);

    void showReport(const FleetReport &report);
    void clear() { clearText(); }

    // The banner's sentence for `report`; empty when there is nothing to warn about.
    static QString warningFor(const FleetReport &report);
};

} // namespace sb
