#include "stream/StreamTee.h"

#include "common/EventLoop.h"

#include <memory>

namespace sb {

StreamTee::StreamTee(qint64 maxBytes, Sink sink) : m_maxBytes(maxBytes), m_sink(std::move(sink)) {}

void StreamTee::append(const std::vector<QByteArray> &events)
{
    if (m_done || m_overflowed)
        return;
    for (const QByteArray &event : events) {
        m_bytes += event.size();
        if (m_bytes > m_maxBytes) {
            // Too big to be worth keeping; drop what we have rather than grow without bound.
            m_overflowed = true;
            m_events = {};
            return;
        }
        // QByteArray is implicitly shared: this keeps a reference, it does not copy the bytes.
        m_events.push_back(event);
    }
}

void StreamTee::completeStream()
{
    if (m_done)
        return;
    m_done = true;
    if (m_overflowed || m_events.empty())
        return;
    deliverLater(Result{std::move(m_events), {}});
}

void StreamTee::completeWhole(const QByteArray &json)
{
    if (m_done)
        return;
    m_done = true;
    if (json.size() > m_maxBytes || json.isEmpty())
        return;
    deliverLater(Result{{}, json});
}

void StreamTee::abandon()
{
    m_done = true;
    m_events = {};
}

void StreamTee::deliverLater(Result &&result)
{
    if (!m_sink)
        return;
    // After this event-loop turn, once the client's last bytes are on their way: saving (hashing,
    // copying, queueing a database row) never sits between the last token and the client.
    runSoon([sink = m_sink, result = std::make_shared<Result>(std::move(result))] { sink(std::move(*result)); });
}

} // namespace sb
