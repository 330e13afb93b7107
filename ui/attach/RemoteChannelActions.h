#pragma once

#include "attach/ChannelActions.h"

#include <QPointer>

namespace sb {

class RemoteGateway;

// An attached instance's channel actions: each becomes a POST to its admin API, and the answer
// (done, or the instance's own reason) comes back through `finished` — the operator must see that
// an eject reached the server, not assume it.
class RemoteChannelActions : public ChannelActions {
    Q_OBJECT
public:
    explicit RemoteChannelActions(RemoteGateway *remote, QObject *parent = nullptr);

    void eject(int channelId) override;
    void readmit(int channelId) override;
    void probe(int channelId) override;

private:
    QPointer<RemoteGateway> m_remote;
};

} // namespace sb
