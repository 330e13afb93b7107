#include "net/PortProbe.h"

#include <QTcpServer>

namespace sb {

bool isPortFree(const QHostAddress &host, quint16 port)
{
    QTcpServer probe;
    return probe.listen(host, port);
}

std::optional<quint16> nextFreePort(const QHostAddress &host, quint16 after, int tries)
{
    for (int i = 1; i <= tries && int(after) + i <= 65535; ++i) {
        const auto port = static_cast<quint16>(after + i);
        if (isPortFree(host, port))
            return port;
    }
    return std::nullopt;
}

} // namespace sb
