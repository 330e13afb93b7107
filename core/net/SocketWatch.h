#pragma once

#include "common/CallbackDispatcher.h"

#include <QPointer>

#include <functional>
#include <memory>

class QSocketNotifier;

namespace sb {

// Calls a function whenever a descriptor is readable (or writable) while enabled: what a
// QSocketNotifier does, without one on a loop that offers callback sockets (the proxy's workers'
// EpollEventDispatcher), where a notifier's event and signal cost some 700 instructions each time
// a socket is ready. On any other loop it is a QSocketNotifier. Made, used and destroyed on the
// thread whose loop watches it, before the descriptor is closed; made disabled.
class SocketWatch final : private CallbackDispatcher::SocketClient {
public:
    using Direction = CallbackDispatcher::SocketDirection;

    // `ready` may destroy this watch.
    SocketWatch(int descriptor, Direction direction, std::function<void()> ready);
    ~SocketWatch();
    SocketWatch(const SocketWatch &) = delete;
    SocketWatch &operator=(const SocketWatch &) = delete;

    void setEnabled(bool enabled);
    bool isEnabled() const { return m_enabled; }
    // A read watch's reader that takes what the loop reads for it before its event (only a loop
    // that offers callback sockets reads ahead); nullptr: it reads for itself.
    void setReadAhead(CallbackDispatcher::ReadAheadClient *client) { m_readAhead = client; }

private:
    void socketReady() override;
    CallbackDispatcher::ReadAheadClient *readAheadClient() override { return m_readAhead; }

    // Shared with a call in progress, so that the call may destroy its own watch.
    std::shared_ptr<const std::function<void()>> m_ready;
    bool m_enabled = false;
    QPointer<CallbackDispatcher> m_loop; // gone once its thread has ended
    CallbackDispatcher::SocketHandle m_handle = -1;
    CallbackDispatcher::ReadAheadClient *m_readAhead = nullptr;
    std::unique_ptr<QSocketNotifier> m_notifier; // on any other loop
};

} // namespace sb
