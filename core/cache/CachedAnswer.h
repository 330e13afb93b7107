#pragma once

#include <QByteArray>

#include <optional>
#include <vector>

namespace sb {

// One complete, successful chat answer as the cache keeps it: either the chunk payloads of a
// stream (OpenAI `chat.completion.chunk` JSON, in order) or a whole `chat.completion`. A hit can
// be served in either form, whichever the new caller asked for.
struct CachedAnswer {
    std::vector<QByteArray> events;
    QByteArray completion;

    bool isStream() const { return !events.empty(); }
    qint64 bytes() const;

    // The answer as chunk payloads: the stream's own, or a whole answer as a provider would have
    // streamed it (the message, the end, the usage).
    std::vector<QByteArray> toChunks() const;
    // The answer as an SSE body: "data: <chunk>\n\n" per chunk, then "data: [DONE]\n\n".
    QByteArray toSseBody() const;
    // The answer as one chat.completion JSON (chunks are merged: content and tool-call arguments
    // concatenated per choice, the last finish_reason, the usage if a chunk carried one).
    QByteArray toCompletionJson() const;

    // For the semantic cache's table.
    QByteArray serialize() const;
    static std::optional<CachedAnswer> deserialize(const QByteArray &bytes);
};

} // namespace sb
