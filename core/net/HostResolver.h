#pragma once

#include "common/Clock.h"

#include <QHostAddress>
#include <QString>

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

class QObject;

namespace sb {

// Where a lookup's answer goes: an event for `receiver`, run on its thread. The receiver closes
// its inbox before it goes away, so an answer is never posted to an object being destroyed, and
// Qt drops the answers already posted to it with the object.
class ResolverInbox {
public:
    explicit ResolverInbox(QObject *receiver) : m_receiver(receiver) {}
    void close();
    // Runs `fn` on the receiver's thread, unless the inbox is closed.
    void post(std::function<void()> fn);

private:
    std::mutex m_mutex;
    QObject *m_receiver;
};

// Host names to addresses for the Http1Engine, off the event loop. getaddrinfo blocks (for as long
// as the system's resolver takes to give up on a dead DNS server), so each name is looked up on a
// thread of its own, one lookup per name however many connections wait for it, and the answer is
// kept for everyone: a provider's name is resolved about once a minute, not per connection.
//
// An answer is fresh for `freshFor` (60 s, as libcurl keeps its DNS cache). After that it is still
// used, at once, while a new lookup runs beside it, and it outlives a failed lookup for up to
// `usableFor`: a DNS server that stops answering at 3 a.m. does not take down providers whose
// addresses were known a minute ago. Only a name never resolved, or past `usableFor`, waits.
// Past kMaxNames names, those not being looked up are forgotten.
class HostResolver {
public:
    struct Answer {
        std::vector<QHostAddress> addresses; // IPv4 first, then IPv6, in the system's order within each
        QString error;                        // why there are none
        bool nameUnknown = false;             // the name has no address (not: the lookup failed for now)
    };
    using Lookup = std::function<Answer(const QString &host)>;
    using Done = std::function<void(const Answer &)>;

    static constexpr std::chrono::seconds kFreshFor{60};
    static constexpr std::chrono::minutes kUsableFor{10};
    static constexpr std::size_t kMaxNames = 512;

    // `lookup` answers one name, blocking: the system's resolver by default.
    explicit HostResolver(const Clock &clock, Lookup lookup = systemLookup,
                          Clock::Duration freshFor = kFreshFor, Clock::Duration usableFor = kUsableFor);
    // Waits for the lookups still running.
    ~HostResolver();
    HostResolver(const HostResolver &) = delete;
    HostResolver &operator=(const HostResolver &) = delete;

    // The process's resolver, on the system clock and resolver.
    static HostResolver &shared();

    // The answer now when one is known and usable (a stale one starts a new lookup beside it);
    // otherwise nullopt, and `done` runs later on the inbox's receiver's thread, unless the inbox
    // is closed by then. A host is compared case-insensitively.
    std::optional<Answer> resolve(const QString &host, const std::shared_ptr<ResolverInbox> &inbox, Done done);

    // getaddrinfo, stream sockets, addresses of both families.
    static Answer systemLookup(const QString &host);

    // Lookups started (not answers served from what was known), and those not finished yet.
    quint64 lookupsStarted() const;
    int lookupsRunning() const;

private:
    struct Waiter {
        std::shared_ptr<ResolverInbox> inbox;
        Done done;
    };
    struct Entry {
        std::vector<QHostAddress> addresses;
        Clock::TimePoint resolvedAt{};
        bool looking = false;
        std::vector<Waiter> waiters;
    };

    void startLocked(const QString &host, Entry &entry);
    void finish(const QString &host, Answer answer);
    void makeRoomLocked();

    const Clock &m_clock;
    const Lookup m_lookup;
    const Clock::Duration m_freshFor;
    const Clock::Duration m_usableFor;
    mutable std::mutex m_mutex;
    std::condition_variable m_idle;
    std::unordered_map<QString, Entry> m_entries;
    int m_running = 0;
    quint64 m_started = 0;
};

} // namespace sb
