#pragma once

#include "health/HealthEvent.h"

#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

namespace sb {

// The last few hundred health events in memory, numbered from 1, for GET /admin/events and
// /admin/incidents: the proxy answers from here rather than reading SQLite on a worker thread.
// Fed by Gateway::healthEvent on whichever thread caused the event. Thread-safe.
class EventLog {
public:
    struct Entry {
        std::uint64_t sequence = 0;
        HealthEvent event;
    };

    explicit EventLog(std::size_t capacity = 1000);

    void append(const HealthEvent &event);
    // Entries with sequence > `after`, oldest first, at most `limit` of them (the newest ones when
    // more are waiting, so a client that polls rarely sees what is current).
    std::vector<Entry> since(std::uint64_t after, std::size_t limit) const;
    std::vector<Entry> all() const;
    std::uint64_t lastSequence() const;

private:
    const std::size_t m_capacity;
    mutable std::mutex m_mutex;
    std::deque<Entry> m_entries;
    std::uint64_t m_next = 1;
};

} // namespace sb
