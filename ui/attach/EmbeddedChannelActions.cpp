#include "attach/EmbeddedChannelActions.h"

#include "control/Gateway.h"

namespace sb {

EmbeddedChannelActions::EmbeddedChannelActions(Gateway *gateway, QObject *parent)
    : ChannelActions(parent), m_gateway(gateway)
{
}

void EmbeddedChannelActions::eject(int channelId)
{
    if (m_gateway)
        m_gateway->router().drain(channelId, tr("drained in the console"));
}

void EmbeddedChannelActions::readmit(int channelId)
{
    if (m_gateway)
        m_gateway->router().readmit(channelId, tr("re-admitted in the console"));
}

void EmbeddedChannelActions::probe(int channelId)
{
    if (m_gateway && !m_gateway->probeNow(channelId))
        emit finished(false, tr("A probe of that channel is already running."));
}

} // namespace sb
