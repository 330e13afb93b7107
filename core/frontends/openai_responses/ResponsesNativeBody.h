#pragma once

#include <QByteArray>
#include <QJsonArray>

namespace sb {

// The body a Responses request goes up with to an upstream that speaks the Responses API itself.
// A previous_response_id names a response Switchboard stored, which the upstream has never seen:
// the request goes up with the stored conversation in `input` instead, before the client's own
// items, and previous_response_id null. Every other member stays as the client wrote it (the
// adapter then sets the model and store).
struct ResponsesNativeBody {
    // `clientBytes` as they are when `history` is empty; otherwise with input = the history's items
    // (as sendable input: the ids of the stored items left out, since they name nothing the
    // upstream kept, and reasoning items without encrypted_content dropped, which only OpenAI's
    // own store could resolve) followed by `input` (the request's items, ResponsesRequest::input).
    static QByteArray withHistory(const QByteArray &clientBytes, const QJsonArray &history, const QJsonArray &input);
    // One stored item as input for an upstream that did not store it; null to leave it out.
    static QJsonValue sendable(const QJsonValue &storedItem);
};

} // namespace sb
