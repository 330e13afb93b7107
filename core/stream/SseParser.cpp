#include "stream/SseParser.h"

#include <algorithm>
#include <cstring>

namespace sb {

namespace {
constexpr char Bom[] = "\xEF\xBB\xBF";
constexpr qsizetype BomSize = 3;

// Index of the next CR or LF at or after `from`, or -1.
qsizetype findLineEnd(QByteArrayView bytes, qsizetype from)
{
    const char *begin = bytes.data();
    const char *end = begin + bytes.size();
    const char *hit = std::find_if(begin + from, end, [](char c) { return c == '\n' || c == '\r'; });
    return hit == end ? -1 : hit - begin;
}

std::optional<int> parseRetry(QByteArrayView value)
{
    if (value.isEmpty() || value.size() > 9) // more than 9 digits would overflow int; ignore, as for junk
        return std::nullopt;
    int millis = 0;
    for (char c : value) {
        if (c < '0' || c > '9')
            return std::nullopt;
        millis = millis * 10 + (c - '0');
    }
    return millis;
}
} // namespace

SseParser::SseParser(qsizetype maxEventBytes)
    : m_maxEventBytes(std::max<qsizetype>(maxEventBytes, 64))
{
}

void SseParser::reset()
{
    *this = SseParser(m_maxEventBytes);
}

bool SseParser::appendToLine(QByteArrayView bytes)
{
    if (m_discarding) {
        m_discardLineHasBytes = m_discardLineHasBytes || !bytes.isEmpty();
        return false;
    }
    if (m_line.size() + m_data.size() + bytes.size() > m_maxEventBytes) {
        ++m_stats.oversizedEvents;
        m_discarding = true;
        m_discardLineHasBytes = true;
        m_line.clear();
        m_line.squeeze();
        clearEvent();
        m_data.squeeze();
        return false;
    }
    m_line.append(bytes);
    return true;
}

std::vector<SseEvent> SseParser::feed(QByteArrayView bytes)
{
    std::vector<SseEvent> out;
    m_stats.bytes += static_cast<std::uint64_t>(bytes.size());

    if (!m_started) {
        qsizetype i = 0;
        while (i < bytes.size() && m_bomBytesSeen < BomSize && bytes[i] == Bom[m_bomBytesSeen]) {
            ++i;
            ++m_bomBytesSeen;
        }
        if (m_bomBytesSeen == BomSize) {
            m_started = true;
        } else if (i < bytes.size()) {
            // Not a BOM after all: the bytes taken for one are ordinary content.
            m_started = true;
            appendToLine(QByteArrayView(Bom, m_bomBytesSeen));
        }
        bytes = bytes.sliced(i);
    }

    qsizetype pos = 0;
    const qsizetype n = bytes.size();
    while (pos < n) {
        if (m_skipLf) {
            m_skipLf = false;
            if (bytes[pos] == '\n') {
                ++pos;
                continue;
            }
        }
        const qsizetype end = findLineEnd(bytes, pos);
        if (end < 0) {
            appendToLine(bytes.sliced(pos));
            break;
        }
        if (m_discarding) {
            if (!m_discardLineHasBytes && end == pos)
                m_discarding = false; // the oversized event is over; the next one is parsed normally
        } else if (m_line.isEmpty()) {
            processLine(bytes.sliced(pos, end - pos), out); // common case: the whole line is in this feed
        } else if (appendToLine(bytes.sliced(pos, end - pos))) {
            processLine(m_line, out);
            m_line.clear();
        }
        m_discardLineHasBytes = false; // a line ended here
        if (bytes[end] == '\r') {
            if (end + 1 < n) {
                pos = end + (bytes[end + 1] == '\n' ? 2 : 1);
                continue;
            }
            m_skipLf = true;
        }
        pos = end + 1;
    }
    return out;
}

std::vector<SseEvent> SseParser::finish()
{
    std::vector<SseEvent> out;
    if (!m_discarding && !m_line.isEmpty()) {
        const QByteArray line = std::exchange(m_line, QByteArray());
        processLine(line, out);
    }
    if (!m_discarding && m_hasData)
        dispatch(out);
    clearEvent();
    m_discarding = false;
    return out;
}

void SseParser::processLine(QByteArrayView line, std::vector<SseEvent> &out)
{
    if (line.isEmpty()) {
        dispatch(out);
        return;
    }
    if (line.front() == ':') {
        ++m_stats.comments;
        return;
    }
    QByteArrayView field = line;
    QByteArrayView value;
    const qsizetype colon = line.indexOf(':');
    if (colon >= 0) {
        field = line.first(colon);
        value = line.sliced(colon + 1);
        if (!value.isEmpty() && value.front() == ' ')
            value = value.sliced(1);
    }
    if (field == "data") {
        if (m_data.size() + line.size() + 1 > m_maxEventBytes) {
            // Only reachable when a line arrived whole in one feed; same rule as appendToLine.
            ++m_stats.oversizedEvents;
            clearEvent();
            m_discarding = true; // until the blank line that ends this event
            return;
        }
        m_data.append(value);
        m_data.append('\n');
        m_hasData = true;
    } else if (field == "event") {
        m_eventType = value.toByteArray();
    } else if (field == "id") {
        if (!value.contains('\0'))
            m_lastEventId = value.toByteArray();
    } else if (field == "retry") {
        if (auto millis = parseRetry(value)) {
            m_retryMillis = millis;
            m_eventRetry = millis;
        }
    }
    // Any other field is ignored, as the spec requires.
}

void SseParser::dispatch(std::vector<SseEvent> &out)
{
    if (!m_hasData) {
        // No data field: per spec nothing is dispatched, and the event type is forgotten.
        clearEvent();
        return;
    }
    SseEvent event;
    m_data.chop(1); // the '\n' after the last data line
    event.data = std::move(m_data);
    event.event = std::move(m_eventType);
    event.id = m_lastEventId;
    event.retryMillis = m_eventRetry;
    out.push_back(std::move(event));
    ++m_stats.events;
    clearEvent();
}

void SseParser::clearEvent()
{
    m_data.clear();
    m_eventType.clear();
    m_eventRetry.reset();
    m_hasData = false;
}

} // namespace sb
