#include "common/ReplyChannel.h"

#include <QMetaObject>
#include <QObject>

namespace sb {

std::shared_ptr<ReplyChannel> ReplyChannel::to(QObject *target)
{
    return std::shared_ptr<ReplyChannel>(new ReplyChannel(target));
}

bool ReplyChannel::post(std::function<void()> fn)
{
    // Posting under the lock: close() cannot return, and so the target cannot be destroyed, while a
    // call is being queued to it. Qt discards calls still queued to an object when it is deleted.
    std::lock_guard lock(m_mutex);
    if (!m_target)
        return false;
    QMetaObject::invokeMethod(m_target, [fn = std::move(fn)] { fn(); }, Qt::QueuedConnection);
    return true;
}

void ReplyChannel::close()
{
    std::lock_guard lock(m_mutex);
    m_target = nullptr;
}

} // namespace sb
