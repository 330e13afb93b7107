#pragma once

#include "attach/ChannelActions.h"

#include <QPointer>

namespace sb {

class Gateway;

// The embedded engine's channel actions: the Router's drain/readmit are thread-safe and only take a
// per-channel lock, and a probe only queues work on the control thread, so nothing here waits on the
// engine. A quiet success (the Channels row changes with the next snapshot) reports nothing.
class EmbeddedChannelActions : public ChannelActions {
    Q_OBJECT
public:
    explicit EmbeddedChannelActions(Gateway *gateway, QObject *parent = nullptr);

    void eject(int channelId) override;
    void readmit(int channelId) override;
    void probe(int channelId) override;

private:
    QPointer<Gateway> m_gateway;
};

} // namespace sb
