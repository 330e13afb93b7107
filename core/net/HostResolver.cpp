#include "net/HostResolver.h"

#include <QObject>
#include <QUrl>

#include <netdb.h>
#include <pthread.h>
#include <sys/socket.h>

#include <thread>

namespace sb {

void ResolverInbox::close()
{
    std::lock_guard lock(m_mutex);
    m_receiver = nullptr;
}

void ResolverInbox::post(std::function<void()> fn)
{
    std::lock_guard lock(m_mutex);
    if (m_receiver)
        QMetaObject::invokeMethod(m_receiver, std::move(fn), Qt::QueuedConnection);
}

HostResolver::HostResolver(const Clock &clock, Lookup lookup, Clock::Duration freshFor, Clock::Duration usableFor)
    : m_clock(clock)
    , m_lookup(std::move(lookup))
    , m_freshFor(freshFor)
    , m_usableFor(std::max(freshFor, usableFor))
{
}

HostResolver::~HostResolver()
{
    std::unique_lock lock(m_mutex);
    m_idle.wait(lock, [this] { return m_running == 0; });
}

HostResolver &HostResolver::shared()
{
    // Never destroyed: a lookup thread may outlive everything else at exit.
    static auto *resolver = new HostResolver(SystemClock::instance());
    return *resolver;
}

std::optional<HostResolver::Answer> HostResolver::resolve(const QString &host, const std::shared_ptr<ResolverInbox> &inbox,
                                                          Done done)
{
    const QString name = host.toLower();
    const Clock::TimePoint now = m_clock.now();
    std::lock_guard lock(m_mutex);
    auto it = m_entries.find(name);
    if (it == m_entries.end()) {
        makeRoomLocked();
        it = m_entries.emplace(name, Entry{}).first;
    }
    Entry &entry = it->second;
    const Clock::Duration age = now - entry.resolvedAt;
    if (!entry.addresses.empty() && age < m_usableFor) {
        if (age >= m_freshFor && !entry.looking)
            startLocked(name, entry);
        return Answer{entry.addresses, {}, false};
    }
    entry.waiters.push_back({inbox, std::move(done)});
    if (!entry.looking)
        startLocked(name, entry);
    return std::nullopt;
}

void HostResolver::startLocked(const QString &host, Entry &entry)
{
    entry.looking = true;
    ++m_running;
    ++m_started;
    std::thread([this, host] {
        pthread_setname_np(pthread_self(), "sb-resolve");
        finish(host, m_lookup(host));
    }).detach();
}

void HostResolver::finish(const QString &host, Answer answer)
{
    std::vector<Waiter> waiters;
    {
        std::lock_guard lock(m_mutex);
        Entry &entry = m_entries[host];
        entry.looking = false;
        const Clock::TimePoint now = m_clock.now();
        // A failed refresh leaves a still usable answer in place; no one waits on a usable answer,
        // so the waiters, if any, hear the failure.
        if (!answer.addresses.empty()) {
            entry.addresses = answer.addresses;
            entry.resolvedAt = now;
        } else if (now - entry.resolvedAt >= m_usableFor) {
            entry.addresses.clear();
        }
        waiters = std::move(entry.waiters);
        entry.waiters.clear();
    }
    for (Waiter &waiter : waiters)
        waiter.inbox->post([done = std::move(waiter.done), answer] { done(answer); });
    std::lock_guard lock(m_mutex);
    --m_running;
    m_idle.notify_all();
}

void HostResolver::makeRoomLocked()
{
    if (m_entries.size() < kMaxNames)
        return;
    for (auto it = m_entries.begin(); it != m_entries.end();)
        it = it->second.looking ? std::next(it) : m_entries.erase(it);
}

quint64 HostResolver::lookupsStarted() const
{
    std::lock_guard lock(m_mutex);
    return m_started;
}

int HostResolver::lookupsRunning() const
{
    std::lock_guard lock(m_mutex);
    return m_running;
}

HostResolver::Answer HostResolver::systemLookup(const QString &host)
{
    Answer answer;
    const QByteArray name = QUrl::toAce(host);
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    // No AI_ADDRCONFIG: it counts only non-loopback addresses, so a host with only a loopback
    // interface (a private network namespace) could not resolve even localhost.
    addrinfo *list = nullptr;
    // .invalid names have no address by definition (RFC 6761), with or without a name server.
    const bool invalid = name.isEmpty() || name.endsWith(".invalid") || name.endsWith(".invalid.");
    const int status = invalid ? EAI_NONAME : ::getaddrinfo(name.constData(), nullptr, &hints, &list);
    if (status != 0) {
        answer.error = QStringLiteral("Could not resolve host: %1 (%2)").arg(host, QString::fromLocal8Bit(gai_strerror(status)));
        answer.nameUnknown = status == EAI_NONAME || status == EAI_NODATA || status == EAI_ADDRFAMILY;
        return answer;
    }
    // IPv4 first: a machine with an IPv6 address but no IPv6 route would otherwise spend the
    // connect timeout on each new connection before trying the address that works.
    std::vector<QHostAddress> v6;
    for (const addrinfo *a = list; a; a = a->ai_next) {
        const QHostAddress address(a->ai_addr);
        auto &into = address.protocol() == QAbstractSocket::IPv4Protocol ? answer.addresses : v6;
        if (std::find(into.begin(), into.end(), address) == into.end())
            into.push_back(address);
    }
    ::freeaddrinfo(list);
    answer.addresses.insert(answer.addresses.end(), v6.begin(), v6.end());
    if (answer.addresses.empty()) {
        answer.error = QStringLiteral("Could not resolve host: %1 (no address)").arg(host);
        answer.nameUnknown = true;
    }
    return answer;
}

} // namespace sb
