#include "common/EventLoop.h"

#include <QAbstractEventDispatcher>
#include <QMetaObject>

namespace sb {

void runSoon(std::function<void()> fn)
{
    // The dispatcher is a QObject of this thread, so a queued call to it runs on this thread's loop.
    QMetaObject::invokeMethod(
        QAbstractEventDispatcher::instance(), [fn = std::move(fn)] { fn(); }, Qt::QueuedConnection);
}

} // namespace sb
