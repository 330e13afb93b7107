// HttpResponseParser (the Http1Engine's reader of upstream bytes): first byte's low bit says the
// request was HEAD, the byte seeds the cuts. The outcome (status, headers, body, where the response
// ended, error or not) does not depend on where the bytes were cut; a sink refusing the body stops
// the parser with an error, and a response to HEAD never has a body.
#include "FuzzEntries.h"

#include "net/HttpResponseParser.h"
#include "RecordedResponse.h"

namespace sb::fuzz {

namespace {

using Recorded = test::RecordedResponse;

struct Outcome {
    HttpResponseParser::Result result = HttpResponseParser::Result::NeedMore;
    qsizetype endsAt = -1; // offset in the input where a complete response ended
    bool keepAlive = false;
};

// Feeds the pieces until the response completes or fails, then tells of the end of the input as
// the engine does (finish() after the connection's close).
Outcome run(HttpResponseParser &parser, Recorded &sink, const std::vector<QByteArrayView> &pieces)
{
    Outcome outcome;
    qsizetype offset = 0;
    for (QByteArrayView piece : pieces) {
        std::size_t consumed = 0;
        outcome.result = parser.feed(piece.data(), std::size_t(piece.size()), sink, &consumed);
        fuzzCheck(consumed <= std::size_t(piece.size()), "never consumes more than it was given");
        if (outcome.result == HttpResponseParser::Result::Complete) {
            outcome.endsAt = offset + qsizetype(consumed);
            outcome.keepAlive = parser.keepAlive();
            return outcome;
        }
        if (outcome.result == HttpResponseParser::Result::Error) {
            fuzzCheck(!parser.errorText().isEmpty(), "an error says what it is");
            return outcome;
        }
        offset += piece.size();
    }
    outcome.result = parser.finish(sink);
    if (outcome.result == HttpResponseParser::Result::Complete) {
        outcome.endsAt = offset;
        fuzzCheck(!parser.keepAlive(), "a response ended by the close does not keep the connection");
    }
    return outcome;
}

} // namespace

int fuzzHttpResponse(const std::uint8_t *data, std::size_t size)
{
    if (size < 1)
        return 0;
    const bool toHead = data[0] & 1;
    const QByteArrayView input(reinterpret_cast<const char *>(data + 1), qsizetype(size - 1));

    HttpResponseParser whole;
    whole.expectResponse(toHead);
    Recorded wholeSink;
    const Outcome a = run(whole, wholeSink, {input});

    HttpResponseParser cut;
    cut.expectResponse(toHead);
    Recorded cutSink;
    const Outcome b = run(cut, cutSink, fuzzPieces(input, data[0]));

    fuzzCheck(a.result == b.result, "the outcome does not depend on the cuts");
    fuzzCheck(wholeSink.heads == cutSink.heads && wholeSink.status == cutSink.status, "the same head");
    fuzzCheck(wholeSink.headers.fields() == cutSink.headers.fields(), "the same headers");
    fuzzCheck(wholeSink.body == cutSink.body, "the same body");
    fuzzCheck(wholeSink.heads <= 1, "one final head at most");
    if (a.result == HttpResponseParser::Result::Complete) {
        fuzzCheck(a.endsAt == b.endsAt && a.keepAlive == b.keepAlive, "the response ends at the same byte");
        fuzzCheck(wholeSink.heads == 1 && wholeSink.status >= 200, "a complete response had a final head");
        fuzzCheck(!toHead || wholeSink.body.isEmpty(), "a response to HEAD has no body");
    }

    // The same bytes again on the same parser, as the next response on a kept-alive connection.
    whole.expectResponse(toHead);
    Recorded again;
    const Outcome c = run(whole, again, {input});
    fuzzCheck(c.result == a.result && again.body == wholeSink.body, "expectResponse() starts afresh");

    // A sink that refuses the body past a few bytes stops the parser with an error.
    if (wholeSink.body.size() > 4) {
        HttpResponseParser refusing;
        refusing.expectResponse(toHead);
        Recorded small;
        small.refuseAfter = 4;
        const Outcome d = run(refusing, small, {input});
        fuzzCheck(d.result == HttpResponseParser::Result::Error, "a refused body is an error");
        fuzzCheck(small.body.size() <= 4, "nothing past the refusal is taken");
    }
    return 0;
}

} // namespace sb::fuzz
