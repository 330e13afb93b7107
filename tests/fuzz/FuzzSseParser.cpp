// SseParser: events do not depend on where the stream was cut (first byte picks the cuts), every
// byte is counted, and a small event limit is honoured.
#include "FuzzEntries.h"

#include "stream/SseParser.h"

namespace sb::fuzz {

namespace {

bool sameEvents(const std::vector<SseEvent> &a, const std::vector<SseEvent> &b)
{
    if (a.size() != b.size())
        return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i].event != b[i].event || a[i].data != b[i].data || a[i].id != b[i].id
            || a[i].retryMillis != b[i].retryMillis)
            return false;
    }
    return true;
}

} // namespace

int fuzzSseParser(const std::uint8_t *data, std::size_t size)
{
    if (size < 1)
        return 0;
    const QByteArrayView input(reinterpret_cast<const char *>(data + 1), static_cast<qsizetype>(size - 1));

    SseParser whole;
    std::vector<SseEvent> wholeEvents = whole.feed(input);
    for (SseEvent &event : whole.finish())
        wholeEvents.push_back(std::move(event));

    SseParser cut;
    std::vector<SseEvent> cutEvents;
    for (QByteArrayView piece : fuzzPieces(input, data[0]))
        for (SseEvent &event : cut.feed(piece))
            cutEvents.push_back(std::move(event));
    for (SseEvent &event : cut.finish())
        cutEvents.push_back(std::move(event));

    fuzzCheck(sameEvents(wholeEvents, cutEvents), "events do not depend on where the stream was cut");
    fuzzCheck(cut.stats().bytes == static_cast<std::uint64_t>(input.size()), "every byte is counted");
    fuzzCheck(cut.lastEventId() == whole.lastEventId(), "the last event id does not depend on the cuts");

    constexpr qsizetype kSmallLimit = 64;
    SseParser small(kSmallLimit);
    for (QByteArrayView piece : fuzzPieces(input, static_cast<std::uint8_t>(data[0] ^ 0x5a))) {
        for (const SseEvent &event : small.feed(piece))
            fuzzCheck(event.data.size() <= kSmallLimit, "an event never exceeds the limit");
    }
    for (const SseEvent &event : small.finish())
        fuzzCheck(event.data.size() <= kSmallLimit, "an event never exceeds the limit");
    return 0;
}

} // namespace sb::fuzz
