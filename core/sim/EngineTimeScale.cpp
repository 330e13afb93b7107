#include "sim/EngineTimeScale.h"

#include <cmath>

namespace sb::sim {

namespace {

struct Scaler {
    double factor;
    int rounded = 0;

    template <class Rep, class Period>
    void operator()(std::chrono::duration<Rep, Period> &d)
    {
        using D = std::chrono::duration<Rep, Period>;
        const double exact = std::chrono::duration<double, Period>(d).count() / factor;
        auto scaled = static_cast<Rep>(std::llround(exact));
        if (scaled < 1 && d.count() > 0)
            scaled = 1;
        if (std::abs(static_cast<double>(scaled) - exact) > 1e-9)
            ++rounded;
        d = D(scaled);
    }
};

} // namespace

EngineConfig scaleEngineConfig(const EngineConfig &config, double factor, int *roundedFields)
{
    EngineConfig c = config;
    if (factor <= 0.0 || factor == 1.0) {
        if (roundedFields)
            *roundedFields = 0;
        return c;
    }
    Scaler s{factor};
    s(c.health.window);
    s(c.health.fastWindow);
    s(c.health.ejectAfter);
    s(c.health.slowWaitFloor);
    s(c.breaker.rateWindow);
    s(c.breaker.openDuration);
    s(c.breaker.maxOpenDuration);
    s(c.probe.interval);
    s(c.probe.timeout);
    s(c.retry.baseDelay);
    s(c.retry.maxDelay);
    s(c.retry.jitter);
    s(c.retry.overallDeadline);
    s(c.retry.streamIdleTimeout);
    s(c.retry.firstContentTimeout);
    s(c.retry.keyCoolDown);
    s(c.retry.maxClientWait);
    for (ProviderConfig &p : c.providers) {
        s(p.connectTimeout);
        s(p.primaryTimeout);
        s(p.fallbackTimeout);
        // Rates per minute of scenario time are that many times more per real minute.
        p.requestsPerMinute = static_cast<int>(std::lround(p.requestsPerMinute * factor));
        p.tokensPerMinute = static_cast<int>(std::lround(p.tokensPerMinute * factor));
    }
    if (roundedFields)
        *roundedFields = s.rounded;
    return c;
}

} // namespace sb::sim
