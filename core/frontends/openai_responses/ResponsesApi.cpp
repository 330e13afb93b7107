#include "frontends/openai_responses/ResponsesApi.h"

#include "frontends/openai_responses/ResponsesAnswer.h"
#include "frontends/openai_responses/ResponsesQuickAnswer.h"
#include "providers/common/OpenAiAnswer.h"

#include <QJsonDocument>

namespace sb {

ResponsesApi::ResponsesApi(ResponseFrame frame, Finished onFinished)
    : m_frame(std::move(frame))
    , m_onFinished(std::move(onFinished))
    , m_passThrough(m_frame)
{
}

ResponsesStreamWriter &ResponsesApi::streamWriter()
{
    if (!m_writer)
        m_writer.emplace(m_frame);
    return *m_writer;
}

void ResponsesApi::reportOnce(const QJsonObject &response, const QByteArray &json)
{
    if (m_reported)
        return;
    m_reported = true;
    if (m_onFinished)
        m_onFinished(response, json);
}

QByteArray ResponsesApi::answer(const OpenAiAnswer &answer, const QString &model, qint64 createdSeconds)
{
    // The frame names the response; the engine's arguments only fill what it left open.
    ResponseFrame frame = m_frame;
    if (frame.model.isEmpty())
        frame.model = model;
    if (frame.createdAt <= 0)
        frame.createdAt = createdSeconds;
    // A provider's own bytes are read as they came, already scanned: the response object takes its
    // model and time from the frame, not from the completion, so they need not be written in first.
    const JsonObjectScan *providerScan = answer.providerScan();
    std::optional<QByteArray> json = providerScan ? quickWriteResponse(answer.providerBytes(), *providerScan, frame) : std::nullopt;
    if (!json) {
        const QByteArray completion = answer.toJson(frame.model, frame.createdAt);
        if (!providerScan) // else the quick writer has declined these choices and usage already
            json = quickWriteResponse(completion, frame);
        if (!json)
            json = ResponsesAnswer::write(QJsonDocument::fromJson(completion).object(), frame);
    }
    reportOnce(QJsonObject(), *json);
    return std::move(*json);
}

QByteArray ResponsesApi::streamChunks(const std::vector<QByteArray> &openAiChunks)
{
    ResponsesStreamWriter &writer = streamWriter();
    QByteArray out;
    for (const QByteArray &chunk : openAiChunks) {
        out += writer.onChunk(chunk);
        if (writer.isFinished()) { // an in-band error failed the stream
            reportOnce(writer.response());
            break;
        }
    }
    return out;
}

QByteArray ResponsesApi::streamEnd()
{
    ResponsesStreamWriter &writer = streamWriter();
    const QByteArray out = writer.finish();
    if (writer.isFinished())
        reportOnce(writer.response());
    return out;
}

std::optional<QByteArray> ResponsesApi::passThroughAnswer(const QByteArray &body)
{
    QJsonObject response;
    const QByteArray out = m_passThrough.answer(body, &response);
    reportOnce(response); // stored as the client got it
    return out;
}

std::optional<QByteArray> ResponsesApi::passThroughEvent(const QByteArray &name, const QByteArray &data)
{
    const QByteArray out = m_passThrough.event(name, data);
    if (m_passThrough.finished())
        reportOnce(*m_passThrough.finished());
    return out;
}

bool ResponsesApi::resumeAfterPassThrough(const std::vector<QByteArray> &sentChunks, int upstreamBlocks)
{
    Q_UNUSED(upstreamBlocks); // the pass-through counted the upstream's items itself
    ResponsesStreamWriter &writer = streamWriter();
    for (const QByteArray &chunk : sentChunks)
        writer.onChunk(chunk); // written already, in the upstream's words
    m_resumed = writer.continueFrom(m_passThrough.lastSequence() + 1, m_passThrough.itemIds());
    return m_resumed;
}

QByteArray ResponsesApi::streamError(const ApiError &error)
{
    if (m_passThrough.hasSent() && !m_resumed) { // the client has the upstream's own events: their numbering goes on
        const QByteArray out = m_passThrough.fail(error);
        reportOnce(m_passThrough.failedResponse());
        return out;
    }
    ResponsesStreamWriter &writer = streamWriter();
    const QByteArray out = writer.fail(error);
    if (writer.isFinished())
        reportOnce(writer.response());
    return out;
}

} // namespace sb
