#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

namespace sb {

// Versions come from one counter across all snapshots (none is 0), so a version names one value of
// one snapshot: a snapshot made where a destroyed one lived never matches the destroyed one's handle.
std::uint64_t nextThreadSnapshotVersion();

// A value every worker reads on every request and one thread rarely replaces: the routing table,
// the retry policy, the request sink. Copies of one shared_ptr count on one control block, and when
// two workers copy it a request's worth of times, that block's cache line goes back and forth
// between their cores on each copy; behind a mutex, the mutex's line does too. Here a thread holds
// the value through a control block of its own, which keeps the shared one, and the copies it hands
// out are counted there, on a line no other core writes. Lifetimes stay shared_ptr's: a copy keeps
// the thread's block, which keeps the value.
//
// A thread keeps one handle per type T, so two snapshots of one type read alternately on one thread
// (as in tests with two engines) each make a new handle on every read: correct, only slower.
template <typename T>
class ThreadSnapshot {
public:
    explicit ThreadSnapshot(std::shared_ptr<const T> value = {}) { set(std::move(value)); }
    ~ThreadSnapshot()
    {
        Handle &handle = threadHandle();
        if (handle.version == m_version.load(std::memory_order_acquire))
            handle = Handle{}; // this thread's handle goes with its snapshot
    }
    ThreadSnapshot(const ThreadSnapshot &) = delete;
    ThreadSnapshot &operator=(const ThreadSnapshot &) = delete;

    void set(std::shared_ptr<const T> value)
    {
        m_value.store(std::move(value), std::memory_order_release);
        m_version.store(nextThreadSnapshotVersion(), std::memory_order_release);
    }

    std::shared_ptr<const T> get() const { return current(); }

    // The value as last set, from the shared pointer itself: for the thread that replaces it.
    std::shared_ptr<const T> latest() const { return m_value.load(std::memory_order_acquire); }

    // This thread's handle itself, without a copy: valid until this thread next reads a snapshot of
    // type T. For making an aliasing copy of a part of the value (shared_ptr(handle, &part)).
    const std::shared_ptr<const T> &current() const
    {
        const std::uint64_t version = m_version.load(std::memory_order_acquire);
        Handle &handle = threadHandle();
        if (handle.version != version) {
            // A value newer than `version` may be read here; the next read then reads it again.
            std::shared_ptr<const T> shared = m_value.load(std::memory_order_acquire);
            const T *value = shared.get();
            handle.value = value ? std::shared_ptr<const T>(value, [held = std::move(shared)](const T *) {}) : nullptr;
            handle.version = version;
        }
        return handle.value;
    }

private:
    struct Handle {
        std::uint64_t version = 0;
        std::shared_ptr<const T> value;
    };
    static Handle &threadHandle()
    {
        thread_local Handle handle;
        return handle;
    }

    std::atomic<std::shared_ptr<const T>> m_value;
    std::atomic<std::uint64_t> m_version{0};
};

} // namespace sb
