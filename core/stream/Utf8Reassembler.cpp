#include "stream/Utf8Reassembler.h"

namespace sb {

namespace {

constexpr char Replacement[] = "\xEF\xBF\xBD"; // U+FFFD

enum class Scan { Complete, Incomplete, Invalid };

// Examines the sequence starting at bytes[i] (a non-ASCII byte). On Complete, *length is the
// sequence's length; on Invalid, *length is the maximal subpart to replace (at least 1); on
// Incomplete, the input ended inside an otherwise valid sequence. Ranges are Unicode Table 3-7,
// which rules out overlong forms, surrogates and code points above U+10FFFF.
Scan scanSequence(const unsigned char *bytes, qsizetype size, qsizetype i, qsizetype *length)
{
    const unsigned char lead = bytes[i];
    int need = 0;
    unsigned char lo = 0x80, hi = 0xBF; // allowed range of the first continuation byte
    if (lead >= 0xC2 && lead <= 0xDF) {
        need = 1;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        need = 2;
        if (lead == 0xE0) lo = 0xA0;
        if (lead == 0xED) hi = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        need = 3;
        if (lead == 0xF0) lo = 0x90;
        if (lead == 0xF4) hi = 0x8F;
    } else {
        *length = 1; // stray continuation byte, C0/C1 overlong lead, or F5..FF
        return Scan::Invalid;
    }
    for (int k = 1; k <= need; ++k) {
        if (i + k >= size)
            return Scan::Incomplete;
        const unsigned char c = bytes[i + k];
        const bool ok = k == 1 ? (c >= lo && c <= hi) : (c >= 0x80 && c <= 0xBF);
        if (!ok) {
            *length = k; // the lead and the valid continuations before the bad byte
            return Scan::Invalid;
        }
    }
    *length = need + 1;
    return Scan::Complete;
}

} // namespace

QByteArray Utf8Reassembler::feed(QByteArrayView input)
{
    m_stats.bytesIn += static_cast<std::uint64_t>(input.size());
    QByteArrayView bytes = input;
    QByteArray joined;
    if (!m_carry.isEmpty()) {
        joined = m_carry + input.toByteArray();
        m_carry.clear();
        bytes = joined;
    }

    const auto *data = reinterpret_cast<const unsigned char *>(bytes.data());
    const qsizetype size = bytes.size();
    QByteArray out;
    qsizetype runStart = 0; // start of the valid bytes not yet copied to out
    qsizetype i = 0;
    while (i < size) {
        if (data[i] < 0x80) {
            ++i;
            continue;
        }
        qsizetype length = 0;
        switch (scanSequence(data, size, i, &length)) {
        case Scan::Complete:
            i += length;
            break;
        case Scan::Invalid:
            out.append(bytes.sliced(runStart, i - runStart));
            out.append(Replacement, 3);
            ++m_stats.invalidSequences;
            i += length;
            runStart = i;
            break;
        case Scan::Incomplete:
            out.append(bytes.sliced(runStart, i - runStart));
            m_carry = bytes.sliced(i).toByteArray();
            ++m_stats.carriedSplits;
            m_stats.bytesOut += static_cast<std::uint64_t>(out.size());
            return out;
        }
    }
    if (runStart == 0 && !joined.isEmpty())
        out = std::move(joined); // fast path: nothing replaced, no copy of the whole chunk
    else if (runStart == 0)
        out = input.toByteArray();
    else
        out.append(bytes.sliced(runStart));
    m_stats.bytesOut += static_cast<std::uint64_t>(out.size());
    return out;
}

QByteArray Utf8Reassembler::flush()
{
    if (m_carry.isEmpty())
        return QByteArray();
    m_carry.clear();
    ++m_stats.truncatedTails;
    m_stats.bytesOut += 3;
    return QByteArray(Replacement, 3);
}

bool Utf8Reassembler::isValid(QByteArrayView bytes)
{
    const auto *data = reinterpret_cast<const unsigned char *>(bytes.data());
    qsizetype i = 0;
    while (i < bytes.size()) {
        if (data[i] < 0x80) {
            ++i;
            continue;
        }
        qsizetype length = 0;
        if (scanSequence(data, bytes.size(), i, &length) != Scan::Complete)
            return false;
        i += length;
    }
    return true;
}

} // namespace sb
