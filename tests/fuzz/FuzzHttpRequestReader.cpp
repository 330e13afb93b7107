// HttpRequestReader, the local server's reader of request bytes: the same input read as a
// connection reads it (every byte at hand each time, so the one-pass path takes the usual requests)
// and byte by byte (which only llhttp can read) gives the same requests, fails alike and ends in the
// same state. A difference here is a request two readers of one stream see differently:
// the stuff of request smuggling. The limits are small, so inputs reach them.
#include "FuzzEntries.h"

#include "RequestReading.h"

namespace sb::fuzz {

int fuzzHttpRequestReader(const std::uint8_t *data, std::size_t size)
{
    if (size > 64 * 1024)
        return 0;
    const QByteArrayView input(reinterpret_cast<const char *>(data), qsizetype(size));
    HttpServerLimits limits;
    limits.maxBodyBytes = 512;
    limits.maxHeaderBytes = 256;
    limits.maxHeaderCount = 8;

    const test::RequestReading whole = test::readRequests(input, 0, limits);
    const test::RequestReading bytewise = test::readRequests(input, 1, limits);
    for (const test::RequestReading *reading : {&whole, &bytewise})
        if (!reading->broken.isEmpty())
            fuzzCheck(false, qPrintable(reading->broken.join(QStringLiteral("; "))));
    fuzzCheck(whole.requests.size() == bytewise.requests.size(), "as many requests");
    for (qsizetype i = 0; i < whole.requests.size(); ++i) {
        fuzzCheck(test::sameRequest(whole.requests[i], bytewise.requests[i]), "the same request");
        fuzzCheck(whole.endsAt[i] == bytewise.endsAt[i], "a request ends at the same byte");
    }
    // Which limit or rule a bad head breaks first can depend on the cuts in llhttp itself (a size
    // limit counted piece by piece before a bad byte later in the piece); that it fails cannot.
    fuzzCheck(whole.failed == bytewise.failed, "the same bytes fail");
    fuzzCheck(whole.inMessage == bytewise.inMessage && whole.wantsContinue == bytewise.wantsContinue, "the same state at the end");
    return 0;
}

} // namespace sb::fuzz
