#pragma once

#include "common/HttpHeaders.h"

#include <QByteArray>
#include <QUrl>

namespace sb {

// A fully formed upstream HTTP request, ready for the upstream client.
struct UpstreamRequest {
    QByteArray method = "POST";
    QUrl url;
    HttpHeaders headers; // includes the provider's auth header and Content-Type
    QByteArray body;
    bool stream = false; // the response is an SSE stream
};

} // namespace sb
