#include "health/HealthEvent.h"

namespace sb {

const char *toString(HealthEvent::Type type)
{
    switch (type) {
    case HealthEvent::Type::Breaker: return "breaker";
    case HealthEvent::Type::Pool: return "pool";
    case HealthEvent::Type::Failover: return "failover";
    case HealthEvent::Type::Panic: return "panic";
    case HealthEvent::Type::Budget: return "budget";
    case HealthEvent::Type::Key: return "key";
    case HealthEvent::Type::Bucket: return "bucket";
    case HealthEvent::Type::Fleet: return "fleet";
    }
    return "unknown";
}

void EventDispatcher::setSink(EventSink sink)
{
    std::lock_guard lock(m_mutex);
    m_sink = std::move(sink);
}

void EventDispatcher::emitEvent(const HealthEvent &event) const
{
    std::lock_guard lock(m_mutex);
    if (m_sink)
        m_sink(event);
}

} // namespace sb
