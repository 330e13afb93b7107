#pragma once

#include "frontends/ApiError.h"

#include <QByteArray>
#include <QString>

#include <vector>

namespace sb {

class OpenAiAnswer;

// The API a client called, as its answer goes back. The engine works in OpenAI chat completions
// (every upstream dialect translates to and from them); a front door turns the engine's answers,
// stream chunks and errors into its own wire format. One object per request: a stream's writer
// may keep state (which blocks are open, what the usage was).
class ClientApi {
public:
    virtual ~ClientApi() = default;

    // The body of a complete answer, from the OpenAI chat.completion the adapter produced.
    virtual QByteArray answer(const OpenAiAnswer &answer, const QString &model, qint64 createdSeconds) = 0;
    // The client's bytes for a batch of OpenAI chunk payloads; empty when none of it is content the
    // client should see yet (the response is not started for nothing: a failure before the first
    // content can still fail over unseen).
    virtual QByteArray streamChunks(const std::vector<QByteArray> &openAiChunks) = 0;
    // The end of a complete stream.
    virtual QByteArray streamEnd() = 0;
    // The event that ends a stream broken after its first byte.
    virtual QByteArray streamError(const ApiError &error) = 0;
    // An error answered before the first byte: the status this API uses for it, and its body.
    virtual int errorStatus(const ApiError &error) const = 0;
    virtual QByteArray errorBody(const ApiError &error) const = 0;
};

} // namespace sb
