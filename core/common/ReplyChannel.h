#pragma once

#include <functional>
#include <memory>
#include <mutex>

class QObject;

namespace sb {

// The way back to one QObject's thread for results computed on another (a database thread's
// answer to a worker's lookup). The owner closes it before it is destroyed; a result that arrives
// after that is dropped instead of reaching a dead object. Shared: each pending job holds it.
class ReplyChannel {
public:
    static std::shared_ptr<ReplyChannel> to(QObject *target);

    // Runs `fn` on the target's thread, from its event loop; false when the channel is closed.
    bool post(std::function<void()> fn);
    // From the target's thread, before the target goes: nothing posted after this runs.
    void close();

private:
    explicit ReplyChannel(QObject *target) : m_target(target) {}

    std::mutex m_mutex;
    QObject *m_target; // null once closed
};

} // namespace sb
