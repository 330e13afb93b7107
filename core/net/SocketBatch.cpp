#include "net/SocketBatch.h"

#include "common/EnvironmentSwitch.h"

#include <liburing.h>
#include <spdlog/spdlog.h>

#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <utility>

namespace sb {

namespace {

// A turn rarely holds more writes (or readable sockets) than this; the rest go one by one.
constexpr unsigned kEntries = 256;
constexpr int kMostPieces = 2; // an upstream request's head and body

} // namespace

struct SocketBatch::Ring {
    io_uring ring{};
    std::array<msghdr, kEntries> messages{};
    std::array<iovec, kEntries * kMostPieces> pieces{};
};

SocketBatch &SocketBatch::forThisThread()
{
    thread_local SocketBatch batch;
    return batch;
}

SocketBatch::SocketBatch()
{
    if (switchedOffInEnvironment("SWITCHBOARD_IO_URING"))
        return;
    auto ring = std::make_unique<Ring>();
    // One thread submits and reaps, and nothing else needs the kernel's attention between its
    // calls; an older kernel refuses the flags, and gets a plain ring.
    int status = io_uring_queue_init(kEntries, &ring->ring, IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN);
    if (status == -EINVAL)
        status = io_uring_queue_init(kEntries, &ring->ring, 0);
    if (status < 0) {
        spdlog::debug("io_uring unavailable ({}): sends go one by one", std::strerror(-status));
        return;
    }
    m_ring = std::move(ring);
    m_results.reserve(kEntries);
}

SocketBatch::~SocketBatch()
{
    if (m_ring)
        io_uring_queue_exit(&m_ring->ring);
}

bool SocketBatch::hasRoom() const
{
    return m_ring && m_added < kEntries;
}

bool SocketBatch::reserve(std::size_t tag)
{
    if (!m_ring || m_added == kEntries)
        return false;
    if (m_results.size() <= m_added)
        m_results.resize(m_added + 1);
    m_results[m_added] = {tag, -EAGAIN}; // nothing done, until its completion says otherwise
    return true;
}

bool SocketBatch::add(int descriptor, const iovec *pieces, int count, std::size_t tag)
{
    if (count < 1 || count > kMostPieces || !reserve(tag))
        return false;
    io_uring_sqe *entry = io_uring_get_sqe(&m_ring->ring);
    if (!entry)
        return false;
    iovec *kept = &m_ring->pieces[m_added * kMostPieces];
    std::copy(pieces, pieces + count, kept);
    msghdr &message = m_ring->messages[m_added];
    message = msghdr{};
    message.msg_iov = kept;
    message.msg_iovlen = static_cast<std::size_t>(count);
    // MSG_DONTWAIT: a socket that cannot take it all now answers at once, as send(2) on a
    // non-blocking socket would, rather than have the ring wait for it to become writable.
    io_uring_prep_sendmsg(entry, descriptor, &message, MSG_NOSIGNAL | MSG_DONTWAIT);
    io_uring_sqe_set_data64(entry, m_added);
    ++m_added;
    return true;
}

bool SocketBatch::addReceive(int descriptor, char *buffer, std::size_t size, std::size_t tag)
{
    if (!reserve(tag))
        return false;
    io_uring_sqe *entry = io_uring_get_sqe(&m_ring->ring);
    if (!entry)
        return false;
    // MSG_DONTWAIT: a socket with nothing to read answers -EAGAIN at once instead of the ring
    // waiting for bytes.
    io_uring_prep_recv(entry, descriptor, buffer, size, MSG_DONTWAIT);
    io_uring_sqe_set_data64(entry, m_added);
    ++m_added;
    ++m_receivesAdded;
    return true;
}

const std::vector<SocketBatch::Result> &SocketBatch::run()
{
    const std::size_t added = std::exchange(m_added, 0);
    const std::size_t receives = std::exchange(m_receivesAdded, 0);
    m_results.resize(added);
    if (added == 0)
        return m_results;
    int submitted = io_uring_submit_and_wait(&m_ring->ring, static_cast<unsigned>(added));
    while (submitted == -EINTR)
        submitted = io_uring_submit_and_wait(&m_ring->ring, 0);
    if (submitted < 0) {
        // Entries the kernel did not take would run with a later batch, their buffers long gone:
        // the ring goes instead, and this thread sends and receives one by one from now on.
        spdlog::warn("io_uring submission failed ({}): sends and receives go one by one", std::strerror(-submitted));
        io_uring_queue_exit(&m_ring->ring);
        m_ring.reset();
        m_results.clear();
        return m_results;
    }
    // Sends and receives that do not wait complete as they are submitted; the wait is for the rare
    // one the kernel finishes a moment later.
    for (std::size_t reaped = 0; reaped < added;) {
        io_uring_cqe *completion = nullptr;
        const int status = io_uring_wait_cqe(&m_ring->ring, &completion);
        if (status == -EINTR)
            continue;
        if (status < 0)
            break; // cannot happen with entries in flight; their results stay -EAGAIN
        const std::uint64_t index = io_uring_cqe_get_data64(completion);
        if (index < added)
            m_results[index].bytes = completion->res;
        io_uring_cqe_seen(&m_ring->ring, completion);
        ++reaped;
    }
    m_stats.batches += 1;
    m_stats.sends += added - receives;
    m_stats.receives += receives;
    return m_results;
}

} // namespace sb
