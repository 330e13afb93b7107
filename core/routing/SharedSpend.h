#pragma once

#include <QString>

namespace sb {

// What a route has spent across a fleet this budget period (summed in Redis), so one instance's
// hard stop is every instance's. Thread-safe: every worker adds and asks.
class SharedSpend {
public:
    virtual ~SharedSpend() = default;
    // `period` names the budget period (RouteBudget::periodKey as a number).
    virtual void add(const QString &route, const QString &period, double usd) = 0;
    // The fleet's spend as last heard, plus what this instance added since; 0 before anything was heard.
    virtual double total(const QString &route, const QString &period) const = 0;
};

} // namespace sb
