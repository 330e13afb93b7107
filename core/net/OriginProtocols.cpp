#include "net/OriginProtocols.h"

namespace sb {

OriginProtocols &OriginProtocols::shared()
{
    static OriginProtocols *instance = new OriginProtocols; // never destroyed: clients may outlive static destructors
    return *instance;
}

std::optional<bool> OriginProtocols::multiplexes(const QByteArray &origin) const
{
    std::lock_guard lock(m_mutex);
    const auto it = m_origins.find(origin);
    if (it == m_origins.end())
        return std::nullopt;
    return it->second;
}

void OriginProtocols::learnt(const QByteArray &origin, bool multiplexes)
{
    std::lock_guard lock(m_mutex);
    if (m_origins.size() >= kMaxOrigins && !m_origins.count(origin))
        m_origins.clear();
    m_origins[origin] = multiplexes;
}

} // namespace sb
