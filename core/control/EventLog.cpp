#include "control/EventLog.h"

#include <algorithm>

namespace sb {

EventLog::EventLog(std::size_t capacity) : m_capacity(std::max<std::size_t>(1, capacity)) {}

void EventLog::append(const HealthEvent &event)
{
    std::lock_guard lock(m_mutex);
    m_entries.push_back(Entry{m_next++, event});
    while (m_entries.size() > m_capacity)
        m_entries.pop_front();
}

std::vector<EventLog::Entry> EventLog::since(std::uint64_t after, std::size_t limit) const
{
    std::lock_guard lock(m_mutex);
    // Sequences are consecutive inside the deque, so the first newer entry is found by arithmetic.
    std::size_t first = 0;
    if (!m_entries.empty() && after >= m_entries.front().sequence)
        first = static_cast<std::size_t>(std::min<std::uint64_t>(after - m_entries.front().sequence + 1, m_entries.size()));
    const std::size_t available = m_entries.size() - first;
    if (available > limit)
        first += available - limit;
    return std::vector<Entry>(m_entries.begin() + static_cast<std::ptrdiff_t>(first), m_entries.end());
}

std::vector<EventLog::Entry> EventLog::all() const
{
    std::lock_guard lock(m_mutex);
    return std::vector<Entry>(m_entries.begin(), m_entries.end());
}

std::uint64_t EventLog::lastSequence() const
{
    std::lock_guard lock(m_mutex);
    return m_next - 1;
}

} // namespace sb
