#include "attach/RemoteChannelActions.h"

#include "remote/RemoteGateway.h"

namespace sb {

RemoteChannelActions::RemoteChannelActions(RemoteGateway *remote, QObject *parent)
    : ChannelActions(parent), m_remote(remote)
{
    connect(remote, &RemoteGateway::actionFinished, this, &ChannelActions::finished);
}

void RemoteChannelActions::eject(int channelId)
{
    if (m_remote)
        m_remote->eject(channelId);
}

void RemoteChannelActions::readmit(int channelId)
{
    if (m_remote)
        m_remote->readmit(channelId);
}

void RemoteChannelActions::probe(int channelId)
{
    if (m_remote)
        m_remote->probeNow(channelId);
}

} // namespace sb
