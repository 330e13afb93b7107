#pragma once

#include "frontends/ClientApi.h"
#include "frontends/openai_responses/ResponseFrame.h"
#include "frontends/openai_responses/ResponsesPassThrough.h"
#include "frontends/openai_responses/ResponsesStreamWriter.h"

#include <QJsonObject>

#include <functional>
#include <optional>

namespace sb {

// OpenAI's Responses API as the answer goes back: the engine's OpenAI answers, chunks and errors as
// a response object, the Responses streaming events, and OpenAI's error shape. One per request
// (the stream writer keeps the open item and the usage).
//
// `onFinished` is called once with the final response object (completed, incomplete or failed) —
// after answer(), streamEnd() or streamError(), or the in-band error chunk that fails a stream —
// so the proxy can store it for previous_response_id and GET /v1/responses/{id}. An error answered
// before the first byte (errorStatus/errorBody) made no response and does not call it.
class ResponsesApi final : public ClientApi {
public:
    // The response as compact JSON when it was written as such for the client (`response` is then
    // empty: the store parses it only if it is asked for it), or as an object (`json` empty).
    using Finished = std::function<void(const QJsonObject &response, const QByteArray &json)>;
    ResponsesApi(ResponseFrame frame, Finished onFinished);

    QByteArray answer(const OpenAiAnswer &answer, const QString &model, qint64 createdSeconds) override;
    QByteArray streamChunks(const std::vector<QByteArray> &openAiChunks) override;
    QByteArray streamEnd() override;
    QByteArray streamError(const ApiError &error) override;
    // An upstream that speaks the Responses API itself: its response and events nearly as they came
    // (ResponsesPassThrough); a stream it started that breaks ends with its own response.failed.
    std::optional<QByteArray> passThroughAnswer(const QByteArray &body) override;
    std::optional<QByteArray> passThroughEvent(const QByteArray &name, const QByteArray &data) override;
    // A passed-through stream that broke goes on in this API's own writer, which reads what was
    // sent from its chunks and takes up the upstream's numbering and item ids.
    bool resumeAfterPassThrough(const std::vector<QByteArray> &sentChunks, int upstreamBlocks) override;
    bool resumesPassThrough() const override { return true; }
    // OpenAI's error body ({"error": {message, type, param, code}}) with the status as given.
    int errorStatus(const ApiError &error) const override { return error.status; }
    QByteArray errorBody(const ApiError &error) const override { return error.toJson(); }

    const ResponsesStreamWriter &writer() { return streamWriter(); }

private:
    void reportOnce(const QJsonObject &response, const QByteArray &json = {});
    // Made for the first stream chunk: a whole answer never needs one, and making one starts a
    // response object.
    ResponsesStreamWriter &streamWriter();

    ResponseFrame m_frame;
    Finished m_onFinished;
    std::optional<ResponsesStreamWriter> m_writer;
    ResponsesPassThrough m_passThrough;
    bool m_reported = false;
    bool m_resumed = false; // a passed-through stream goes on in m_writer
};

} // namespace sb
