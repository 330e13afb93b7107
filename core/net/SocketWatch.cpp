#include "net/SocketWatch.h"

#include <QSocketNotifier>

namespace sb {

SocketWatch::SocketWatch(int descriptor, Direction direction, std::function<void()> ready)
    : m_ready(std::make_shared<const std::function<void()>>(std::move(ready)))
{
    if (auto *loop = qobject_cast<CallbackDispatcher *>(QAbstractEventDispatcher::instance())) {
        m_loop = loop;
        m_handle = loop->addCallbackSocket(descriptor, direction, this);
        return;
    }
    m_notifier = std::make_unique<QSocketNotifier>(
        qintptr(descriptor), direction == Direction::Read ? QSocketNotifier::Read : QSocketNotifier::Write);
    m_notifier->setEnabled(false);
    QObject::connect(m_notifier.get(), &QSocketNotifier::activated, [ready = m_ready] { (*ready)(); });
}

SocketWatch::~SocketWatch()
{
    // A notifier destroyed from its own call is safe to delete: Qt's notifier checks that it is
    // alive after its signal, and keeps the connected function alive through the call.
    if (m_loop)
        m_loop->removeCallbackSocket(m_handle);
}

void SocketWatch::setEnabled(bool enabled)
{
    if (enabled == m_enabled)
        return;
    m_enabled = enabled;
    if (m_loop)
        m_loop->setCallbackSocketEnabled(m_handle, enabled);
    else if (m_notifier)
        m_notifier->setEnabled(enabled);
}

void SocketWatch::socketReady()
{
    const std::shared_ptr<const std::function<void()>> ready = m_ready;
    (*ready)();
}

} // namespace sb
