#pragma once

#include "sim/DialectWire.h"

#include <QByteArray>
#include <QString>

namespace sb::sim {

// OpenAI's Responses API as an OpenAI-compatible fake provider speaks it at POST /v1/responses
// (what a provider with `responses_api` is sent): the response object, the streaming events in
// OpenAI's grammar (response.created, response.in_progress, one message item with one output_text
// part and its deltas, the done events, response.completed; sequence_number contiguous from 0) and
// its in-stream errors (a response.failed after the stream's start, an `error` event mid-stream).
// HTTP errors are OpenAI's ordinary error bodies (DialectWire). Pure functions, like DialectWire.
struct ResponsesApiWire {
    // The ids the answer `id` of the fake provider gets: resp_sim<id>, msg_sim<id>.
    static QString responseId(const QByteArray &id);
    static QString messageId(const QByteArray &id);

    static QByteArray complete(const SimRequest &request, const QByteArray &id, qint64 created, const QByteArray &text, int completionTokens);
    // Events 0–3: response.created, response.in_progress, output_item.added, content_part.added.
    static QByteArray streamHead(const SimRequest &request, const QByteArray &id, qint64 created);
    // response.output_text.delta number `index` (sequence_number 4 + index).
    static QByteArray streamDelta(const QByteArray &id, const QByteArray &piece, int index);
    // After `completionTokens` deltas: output_text.done, content_part.done, output_item.done, response.completed.
    static QByteArray streamTail(const SimRequest &request, const QByteArray &id, qint64 created, const QByteArray &text, int completionTokens);
    // A stream that fails before any content: response.created, response.in_progress, then
    // response.failed with error {code, message} (server_error, or rate_limit_exceeded).
    static QByteArray failedStream(const SimRequest &request, const QByteArray &id, qint64 created, bool rateLimited);
    // The `error` event after `tokensSent` deltas (OpenAI's ResponseErrorEvent: code, message, param).
    static QByteArray midStreamError(int tokensSent);
};

} // namespace sb::sim
