#pragma once

#include <QByteArray>
#include <QByteArrayView>

#include <cstdint>

namespace sb {

// Re-assembles UTF-8 across chunk boundaries: providers cut streams by bytes, and a
// CJK or Vietnamese character split over two chunks, forwarded as is, stalls or corrupts the
// client's decoder. feed() returns the longest prefix that ends on a whole character and carries
// the rest (at most 3 bytes) to the next call; nothing else is held back.
//
// Invalid input is replaced, never forwarded: each maximal invalid subpart (Unicode §3.9, the
// "substitution of maximal subparts" practice WHATWG decoders use) becomes one U+FFFD. Downstream is
// JSON and SDK decoders, which reject or mangle raw invalid bytes, so guaranteeing valid UTF-8
// out is worth more than byte transparency. An incomplete sequence left at flush() is likewise
// one U+FFFD and is counted, so a truncated upstream is visible in Stats rather than silent.
class Utf8Reassembler {
public:
    struct Stats {
        std::uint64_t bytesIn = 0;
        std::uint64_t bytesOut = 0;
        std::uint64_t carriedSplits = 0;    // feeds that ended inside a character (the case this exists for)
        std::uint64_t invalidSequences = 0; // replaced by U+FFFD
        std::uint64_t truncatedTails = 0;   // incomplete character left at flush()
    };

    // Returns whole characters only; an incomplete trailing sequence is kept for the next feed.
    QByteArray feed(QByteArrayView bytes);
    // End of input: returns U+FFFD for an incomplete carried sequence (or nothing) and resets.
    QByteArray flush();

    qsizetype pendingBytes() const { return m_carry.size(); }
    const Stats &stats() const { return m_stats; }

    // True when `bytes` is complete, valid UTF-8 (no partial character at either end).
    static bool isValid(QByteArrayView bytes);

private:
    QByteArray m_carry;
    Stats m_stats;
};

} // namespace sb
