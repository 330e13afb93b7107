#pragma once

#include "common/HttpHeaders.h"

#include <QByteArray>

#include <functional>

namespace sb {

// The answer to one client request, as a handler writes it: either send() once, or startStream(),
// any number of write()s and finish(). ResponseWriter writes it to the client's connection; the
// seam lets the proxy's failover logic be tested without sockets.
class ClientResponse {
public:
    virtual ~ClientResponse() = default;
    virtual void send(int status, const HttpHeaders &headers, const QByteArray &body) = 0;
    virtual void startStream(int status, const HttpHeaders &headers) = 0;
    virtual void write(const QByteArray &bytes) = 0;
    virtual void finish() = 0;
    // False once the client went away, the connection was cut or the response is complete.
    virtual bool isOpen() const = 0;
    // Called once if the client goes away before finish(); registered after that, it runs at once.
    virtual void onClosed(std::function<void()> callback) = 0;
    // Bytes written but not yet taken by the client.
    virtual qint64 bufferedBytes() const = 0;
    // Called whenever the client has taken bytes and fewer than `lowWatermark` remain buffered.
    virtual void onDrained(qint64 lowWatermark, std::function<void()> callback) = 0;
};

} // namespace sb
