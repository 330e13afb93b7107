#include "FakeClock.h"

namespace sb::test {

namespace {
constexpr std::int64_t kStartNanos = 1'000'000'000'000LL; // 1000 s after the steady epoch
}

FakeClock::FakeClock(std::int64_t wallMillisAtStart)
    : m_nanos(kStartNanos), m_wallStartMillis(wallMillisAtStart), m_startNanos(kStartNanos)
{
}

Clock::TimePoint FakeClock::now() const
{
    return TimePoint(Duration(m_nanos.load(std::memory_order_acquire)));
}

std::int64_t FakeClock::wallMillis() const
{
    return m_wallStartMillis + (m_nanos.load(std::memory_order_acquire) - m_startNanos) / 1'000'000;
}

void FakeClock::advance(Duration by)
{
    m_nanos.fetch_add(by.count(), std::memory_order_acq_rel);
}

} // namespace sb::test
