// HttpRequestReader, the local server's reader of request bytes: the same input read as a
// connection reads it (every byte at hand each time, so the one-pass path takes the usual requests)
// and byte by byte (which only llhttp can read) gives the same requests, fails alike and ends in the
// same state. A difference here is a request two readers of one stream see differently:
// the stuff of request smuggling. The limits are small, so inputs reach them.
#include "FuzzEntries.h"

#include "net/HttpRequestReader.h"

#include <QList>

namespace sb::fuzz {

namespace {

struct Reading {
    QList<HttpRequest> requests;
    QList<qsizetype> endsAt; // where in the input each request ended
    bool failed = false;
    bool inMessage = false;
    bool wantsContinue = false;
};

class Phases : public HttpRequestReader::Listener {
public:
    void headStarted() override { inHead = true; }
    void bodyProgressed() override { fuzzCheck(inHead, "a body follows a head"); }
    void requestEnded() override { inHead = false; }
    bool inHead = false;
};

// Reads `input` `piece` bytes at a time, as HttpConnection does: what a request left unread is
// read again before new bytes are taken.
Reading readAll(QByteArrayView input, qsizetype piece, const HttpServerLimits &limits)
{
    Phases phases;
    HttpRequestReader reader(limits, phases);
    Reading reading;
    QByteArray buffered;
    qsizetype taken = 0;
    for (int rounds = 0; rounds < 1'000'000; ++rounds) {
        if (buffered.isEmpty()) {
            if (taken == input.size())
                break;
            const qsizetype n = std::min(piece, input.size() - taken);
            buffered = input.sliced(taken, n).toByteArray();
            taken += n;
        }
        qsizetype consumed = -1;
        const HttpRequestReader::Result result = reader.read(buffered, &consumed);
        fuzzCheck(consumed >= 0 && consumed <= buffered.size(), "consumes what it was given at most");
        if (result == HttpRequestReader::Result::Failed) {
            fuzzCheck(consumed == 0, "a failure consumes nothing");
            reading.failed = true;
            fuzzCheck(reader.failure().status >= 400 && !reader.failure().code.isEmpty(), "a failure is an error answer");
            fuzzCheck(reader.read(QByteArrayView("GET / HTTP/1.1\r\nHost: a\r\n\r\n"), &consumed) == HttpRequestReader::Result::Failed,
                      "a failure stays one");
            break;
        }
        buffered.remove(0, consumed);
        if (result == HttpRequestReader::Result::Request) {
            fuzzCheck(!reader.inMessage() && !phases.inHead, "a read request ends its message");
            HttpRequest request = reader.takeRequest();
            fuzzCheck(request.body.size() <= limits.maxBodyBytes, "a body within the limit");
            fuzzCheck(request.headers.size() <= std::size_t(limits.maxHeaderCount), "headers within the limit");
            reading.requests.append(std::move(request));
            reading.endsAt.append(taken - buffered.size());
        } else {
            fuzzCheck(consumed > 0 || !buffered.isEmpty(), "progress");
        }
    }
    reading.inMessage = reader.inMessage();
    reading.wantsContinue = reader.wantsContinue();
    return reading;
}

bool sameRequest(const HttpRequest &a, const HttpRequest &b)
{
    return a.method == b.method && a.target == b.target && a.path == b.path && a.query == b.query && a.httpMinor == b.httpMinor
        && a.headers.fields() == b.headers.fields() && a.body == b.body && a.keepAlive == b.keepAlive;
}

} // namespace

int fuzzHttpRequestReader(const std::uint8_t *data, std::size_t size)
{
    if (size > 64 * 1024)
        return 0;
    const QByteArrayView input(reinterpret_cast<const char *>(data), qsizetype(size));
    HttpServerLimits limits;
    limits.maxBodyBytes = 512;
    limits.maxHeaderBytes = 256;
    limits.maxHeaderCount = 8;

    const Reading whole = readAll(input, input.size(), limits);
    const Reading bytewise = readAll(input, 1, limits);
    fuzzCheck(whole.requests.size() == bytewise.requests.size(), "as many requests");
    for (qsizetype i = 0; i < whole.requests.size(); ++i) {
        fuzzCheck(sameRequest(whole.requests[i], bytewise.requests[i]), "the same request");
        fuzzCheck(whole.endsAt[i] == bytewise.endsAt[i], "a request ends at the same byte");
    }
    // Which limit or rule a bad head breaks first can depend on the cuts in llhttp itself (a size
    // limit counted piece by piece before a bad byte later in the piece); that it fails cannot.
    fuzzCheck(whole.failed == bytewise.failed, "the same bytes fail");
    fuzzCheck(whole.inMessage == bytewise.inMessage && whole.wantsContinue == bytewise.wantsContinue, "the same state at the end");
    return 0;
}

} // namespace sb::fuzz
