#pragma once

#include "frontends/ApiError.h"

#include <QByteArray>
#include <QString>

#include <optional>
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
    // An answer from an upstream that speaks this API itself (ProviderAdapter::nativeRequest), for an
    // API that words those itself; std::nullopt leaves it to the proxy (the model set, every event
    // as it came, held until the first content_block). A whole answer's body; or one stream event's
    // bytes for the client, empty while this API holds it back (until the first content, so that an
    // early error can still fail over unseen), then the held events with it.
    virtual std::optional<QByteArray> passThroughAnswer(const QByteArray &body) { Q_UNUSED(body); return std::nullopt; }
    virtual std::optional<QByteArray> passThroughEvent(const QByteArray &name, const QByteArray &data)
    {
        Q_UNUSED(name);
        Q_UNUSED(data);
        return std::nullopt;
    }
    // A stream whose upstream's own events were passed through broke, and is to be continued in the
    // engine's chunks: the writer takes `sentChunks` (the engine's reading of what went out) as
    // written, its bytes dropped, so that the continuation's words go on from there. False when it
    // cannot: this API has no writer of its own events, or its reading of them would not match what
    // the upstream sent (`upstreamBlocks`: the content blocks the passed events started).
    virtual bool resumeAfterPassThrough(const std::vector<QByteArray> &sentChunks, int upstreamBlocks)
    {
        Q_UNUSED(sentChunks);
        Q_UNUSED(upstreamBlocks);
        return false;
    }
    virtual bool resumesPassThrough() const { return false; }
    // An error answered before the first byte: the status this API uses for it, and its body.
    virtual int errorStatus(const ApiError &error) const = 0;
    virtual QByteArray errorBody(const ApiError &error) const = 0;
};

} // namespace sb
