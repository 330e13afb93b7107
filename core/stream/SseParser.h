#pragma once

#include "stream/SseEvent.h"

#include <QByteArray>
#include <QByteArrayView>

#include <cstdint>
#include <optional>
#include <vector>

namespace sb {

// Incremental Server-Sent Events parser (WHATWG HTML "event stream interpretation"). Upstreams cut
// their streams anywhere — inside a field name, between CR and LF, inside a multi-byte character —
// so all state lives across feed() calls and an event is returned the moment its blank line arrives,
// never later (no buffering past a whole event: every held byte is latency the client feels).
//
// Bytes are treated as opaque: line ends are ASCII, so a UTF-8 character is never split by the
// parser itself; an event's data is exactly the bytes the upstream sent.
class SseParser {
public:
    // A hostile or broken upstream must not grow memory without bound: one event (its pending line
    // plus the data collected so far) may not exceed this. 8 MiB is far above any real chunk (a
    // large tool-call argument delta is a few KiB) and far below what hurts a worker.
    static constexpr qsizetype DefaultMaxEventBytes = 8 * 1024 * 1024;

    struct Stats {
        std::uint64_t bytes = 0;           // fed in
        std::uint64_t events = 0;          // dispatched
        std::uint64_t comments = 0;        // ":" lines, usually keep-alives
        std::uint64_t oversizedEvents = 0; // dropped for exceeding maxEventBytes
    };

    explicit SseParser(qsizetype maxEventBytes = DefaultMaxEventBytes);

    // Consumes any number of bytes and returns the events they completed, in order.
    std::vector<SseEvent> feed(QByteArrayView bytes);
    // End of stream. The spec discards an event without its closing blank line; many servers end
    // the body right after the last "data:" line, so a pending event that has data is dispatched
    // here instead of lost. Whether that stream was complete is the dialect's decision (its end
    // marker), not the parser's.
    std::vector<SseEvent> finish();

    // An event was dropped because it exceeded the size limit. Sticky until reset(): the caller
    // should treat the stream as broken (PROVIDER_DOWN), since content is missing.
    bool overflowed() const { return m_stats.oversizedEvents > 0; }
    // The reconnection time the stream last asked for, if any.
    std::optional<int> retryMillis() const { return m_retryMillis; }
    const QByteArray &lastEventId() const { return m_lastEventId; }
    const Stats &stats() const { return m_stats; }
    void reset();

private:
    void processLine(QByteArrayView line, std::vector<SseEvent> &out);
    void dispatch(std::vector<SseEvent> &out);
    void clearEvent();
    bool appendToLine(QByteArrayView bytes);

    qsizetype m_maxEventBytes;
    QByteArray m_line;        // the current, not yet terminated line
    QByteArray m_data;        // "data:" values joined, each followed by '\n'
    QByteArray m_eventType;
    QByteArray m_lastEventId; // persists across events, as the spec says
    std::optional<int> m_retryMillis;
    std::optional<int> m_eventRetry; // a retry field inside the event being collected
    bool m_hasData = false;
    bool m_skipLf = false;     // the previous feed ended in CR: a leading LF belongs to that line end
    bool m_discarding = false; // skipping the rest of an oversized event up to its blank line
    bool m_discardLineHasBytes = false;
    qsizetype m_bomBytesSeen = 0; // a UTF-8 BOM at the very start is stripped, even when split
    bool m_started = false;
    Stats m_stats;
};

} // namespace sb
