#include "RawHttp.h"

#include <QHostAddress>
#include <QTcpSocket>

namespace sb::test {

QByteArray rawRequest(const QByteArray &method, const QByteArray &target, const QByteArray &body, const QByteArray &extraHeaders)
{
    QByteArray out = method + ' ' + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + extraHeaders;
    if (!body.isNull())
        out += "Content-Type: application/json\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n";
    return out + "\r\n" + body;
}

QByteArray exchangeUntilClose(quint16 port, const QByteArray &bytes)
{
    QTcpSocket socket;
    socket.connectToHost(QHostAddress::LocalHost, port);
    if (!socket.waitForConnected(5000))
        return {};
    socket.write(bytes);
    QByteArray raw;
    while (socket.waitForReadyRead(5000) || socket.bytesAvailable())
        raw += socket.readAll();
    return raw;
}

} // namespace sb::test
