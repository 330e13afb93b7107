#pragma once

#include "common/HttpHeaders.h"

#include <QByteArray>
#include <QHostAddress>

namespace sb {

// One complete request as the local server read it (HttpRequestReader); the body is fully read (chunked
// bodies are de-chunked) before a handler sees it.
struct HttpRequest {
    QByteArray method;      // "GET", "POST", …
    QByteArray target;      // as sent: "/v1/chat/completions?x=1"
    QByteArray path;        // "/v1/chat/completions"
    QByteArray query;       // "x=1" (no '?'), empty when absent
    HttpHeaders headers;
    QByteArray body;
    bool keepAlive = true;  // what the client asked for (HTTP version + Connection header)
    int httpMinor = 1;      // HTTP/1.x

    // The connection's, the same for every request on it.
    QHostAddress peer;
    quint64 connectionId = 0;
    int workerIndex = 0;    // the worker thread that owns the connection; answer on that thread

    // Empties the message and keeps the connection's part: the parser starts each request so,
    // where a new HttpRequest would allocate a QHostAddress (twice a request).
    void clearMessage()
    {
        method = {};
        target = {};
        path = {};
        query = {};
        headers = {};
        body = {};
        keepAlive = true;
        httpMinor = 1;
    }
};

} // namespace sb
