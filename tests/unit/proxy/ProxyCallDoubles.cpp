#include "ProxyCallDoubles.h"

#include <QtGlobal>

namespace sb::test {

quint64 ScriptedUpstream::start(const UpstreamRequest &request, const TransferOptions &options, TransferCallbacks callbacks)
{
    Transfer transfer;
    transfer.id = m_nextId++;
    transfer.request = request;
    transfer.options = options;
    transfer.callbacks = std::move(callbacks);
    transfer.startedAt = m_clock.now();
    m_transfers.push_back(std::move(transfer));
    return m_transfers.back().id;
}

void ScriptedUpstream::cancel(quint64 transferId)
{
    for (Transfer &transfer : m_transfers)
        if (transfer.id == transferId && !transfer.ended)
            transfer.cancelled = transfer.ended = true;
}

ScriptedUpstream::Transfer &ScriptedUpstream::live(std::size_t i)
{
    Transfer &transfer = m_transfers.at(i);
    // A cancelled transfer never calls back: answering one would be a test that proves nothing.
    Q_ASSERT_X(!transfer.ended, "ScriptedUpstream", "the transfer already ended or was cancelled");
    return transfer;
}

void ScriptedUpstream::reply(std::size_t i, int status, const QByteArray &body, HttpHeaders headers)
{
    if (!headers.contains("content-type"))
        headers.set("Content-Type", "application/json");
    const TransferCallbacks callbacks = live(i).callbacks;
    callbacks.onHeaders(status, headers);
    if (!body.isEmpty())
        callbacks.onData(body);
    m_transfers.at(i).ended = true;
    callbacks.onComplete(TransferError::None, QString());
}

void ScriptedUpstream::streamHead(std::size_t i)
{
    HttpHeaders headers;
    headers.set("Content-Type", "text/event-stream");
    live(i).callbacks.onHeaders(200, headers);
}

void ScriptedUpstream::data(std::size_t i, const QByteArray &bytes)
{
    const TransferCallbacks callbacks = live(i).callbacks;
    callbacks.onData(bytes);
}

void ScriptedUpstream::end(std::size_t i)
{
    const TransferCallbacks callbacks = live(i).callbacks;
    m_transfers.at(i).ended = true;
    callbacks.onComplete(TransferError::None, QString());
}

void ScriptedUpstream::fail(std::size_t i, TransferError error, const QString &message)
{
    const TransferCallbacks callbacks = live(i).callbacks;
    m_transfers.at(i).ended = true;
    callbacks.onComplete(error, message);
}

void RecordingResponse::send(int s, const HttpHeaders &h, const QByteArray &b)
{
    status = s;
    headers = h;
    body = b;
    finished = true;
    m_open = false;
}

void RecordingResponse::startStream(int s, const HttpHeaders &h)
{
    status = s;
    headers = h;
    streamed = true;
}

void RecordingResponse::write(const QByteArray &bytes)
{
    body += bytes;
}

void RecordingResponse::finish()
{
    finished = true;
    m_open = false;
}

void RecordingResponse::onClosed(std::function<void()> callback)
{
    if (!m_open && !finished) {
        callback();
        return;
    }
    m_closed.push_back(std::move(callback));
}

void RecordingResponse::clientLeaves()
{
    m_open = false;
    for (const auto &callback : std::exchange(m_closed, {}))
        callback();
}

ProviderConfig scriptedProvider(int id, int keys)
{
    ProviderConfig p;
    p.id = id;
    p.name = QStringLiteral("p%1").arg(id);
    p.dialect = QStringLiteral("openai_compat");
    p.baseUrl = QStringLiteral("http://p%1.test/v1").arg(id);
    p.domain.account = QStringLiteral("account-%1").arg(id);
    for (int k = 1; k <= keys; ++k)
        p.keys.push_back(ApiKeyConfig{id * 10 + k, QStringLiteral("key %1").arg(k), QStringLiteral("sk-p%1-key%2-abcdefgh").arg(id).arg(k), true, {}});
    return p;
}

} // namespace sb::test
