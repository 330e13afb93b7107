#pragma once

#include "common/HttpHeaders.h"
#include "net/HttpResponseParser.h"

#include <QByteArray>
#include <QByteArrayView>

namespace sb::test {

// A sink that keeps what an HttpResponseParser read: the final head and the body, and that can
// refuse the body past a number of bytes.
struct RecordedResponse final : HttpResponseParser::Sink {
    int heads = 0;
    int status = 0;
    HttpHeaders headers;
    QByteArray body;
    qsizetype refuseAfter = -1; // refuse the piece that takes the body past this many bytes

    void responseHead(int s, HttpHeaders &&h) override
    {
        ++heads;
        status = s;
        headers = std::move(h);
    }
    bool responseBody(QByteArrayView piece) override
    {
        if (refuseAfter >= 0 && body.size() + piece.size() > refuseAfter)
            return false;
        body.append(piece);
        return true;
    }
};

} // namespace sb::test
