#pragma once

#include "net/HttpRequestReader.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QStringList>

#include <algorithm>

namespace sb::test {

// What an HttpRequestReader read from some bytes, fed as HttpConnection feeds it, and which of the
// reader's promises it broke on the way (empty when none).
struct RequestReading {
    QList<HttpRequest> requests;
    QList<qsizetype> endsAt; // where in the bytes each request ended
    bool failed = false;
    int failureStatus = 0;
    QString failureCode;
    bool inMessage = false; // at the end
    bool wantsContinue = false;
    int heads = 0; // heads llhttp began: a request read in one pass begins none
    QStringList broken;
};

// Reads `bytes` `step` bytes at a time (0: all at once): what a request left unread is read again
// before more bytes are taken.
inline RequestReading readRequests(QByteArrayView bytes, qsizetype step, const HttpServerLimits &limits = {})
{
    struct Phases : HttpRequestReader::Listener {
        RequestReading *out = nullptr;
        bool inHead = false;
        void headStarted() override
        {
            inHead = true;
            ++out->heads;
        }
        void bodyProgressed() override
        {
            if (!inHead)
                out->broken << QStringLiteral("a body without a head");
        }
        void requestEnded() override { inHead = false; }
    };
    RequestReading out;
    Phases phases;
    phases.out = &out;
    HttpRequestReader reader(limits, phases);
    const qsizetype size = step > 0 ? step : std::max<qsizetype>(bytes.size(), 1);
    QByteArray buffered;
    qsizetype taken = 0;
    int idle = 0;
    for (;;) {
        if (buffered.isEmpty()) {
            if (taken >= bytes.size())
                break;
            buffered = bytes.sliced(taken, std::min(size, bytes.size() - taken)).toByteArray();
            taken += buffered.size();
        }
        qsizetype consumed = -1;
        const HttpRequestReader::Result result = reader.read(buffered, &consumed);
        if (consumed < 0 || consumed > buffered.size()) {
            out.broken << QStringLiteral("consumed more than it was given");
            break;
        }
        if (result == HttpRequestReader::Result::Failed) {
            out.failed = true;
            out.failureStatus = reader.failure().status;
            out.failureCode = reader.failure().code;
            if (consumed != 0)
                out.broken << QStringLiteral("a failure consumed bytes");
            if (out.failureStatus < 400 || out.failureCode.isEmpty())
                out.broken << QStringLiteral("a failure is no error answer");
            if (reader.read(QByteArrayView("GET / HTTP/1.1\r\nHost: a\r\n\r\n"), &consumed) != HttpRequestReader::Result::Failed)
                out.broken << QStringLiteral("a failure did not stay one");
            break;
        }
        // Nothing taken and nothing read is a reset after an Upgrade; twice running, a loop.
        idle = result == HttpRequestReader::Result::NeedMore && consumed == 0 ? idle + 1 : 0;
        if (idle > 1) {
            out.broken << QStringLiteral("no progress");
            break;
        }
        buffered.remove(0, consumed);
        if (result == HttpRequestReader::Result::Request) {
            if (reader.inMessage() || phases.inHead)
                out.broken << QStringLiteral("a request read did not end its message");
            HttpRequest request = reader.takeRequest();
            if (request.body.size() > limits.maxBodyBytes || request.headers.size() > std::size_t(limits.maxHeaderCount))
                out.broken << QStringLiteral("a request past the limits");
            out.requests.append(std::move(request));
            out.endsAt.append(taken - buffered.size());
        }
    }
    out.inMessage = reader.inMessage();
    out.wantsContinue = reader.wantsContinue();
    return out;
}

// The parts of a request a handler sees, alike in both.
inline bool sameRequest(const HttpRequest &a, const HttpRequest &b)
{
    return a.method == b.method && a.target == b.target && a.path == b.path && a.query == b.query && a.httpMinor == b.httpMinor
        && a.headers.fields() == b.headers.fields() && a.body == b.body && a.keepAlive == b.keepAlive;
}

} // namespace sb::test
