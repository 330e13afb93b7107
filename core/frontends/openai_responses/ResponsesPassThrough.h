#pragma once

#include "frontends/ApiError.h"
#include "frontends/openai_responses/ResponseFrame.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QJsonArray>
#include <QJsonObject>
#include <QStringList>

#include <optional>

namespace sb {

// The answer of an upstream that speaks the Responses API itself (an OpenAI-compatible provider
// with `responses_api`), on its way to the client nearly as it came. Rewritten: the response's id
// (Switchboard's, which previous_response_id and GET /v1/responses/{id} know), its model (the one
// the client asked for), and store and previous_response_id (what the client sent; the upstream
// was sent store: false and the conversation expanded). Everything else, the output items' ids
// and the events' sequence numbers included, is the upstream's.
//
// A stream's events are held until the first content (isContent), then released together, so
// that an upstream that fails right after response.created still fails over unseen. One object
// per request; a response.created starts over, as each attempt's stream begins with one.
class ResponsesPassThrough {
public:
    explicit ResponsesPassThrough(const ResponseFrame &frame) : m_frame(frame) {}

    // A whole response object as the client gets it; *clientResponse receives it parsed (to store).
    QByteArray answer(const QByteArray &body, QJsonObject *clientResponse) const;

    // One upstream event ("event:" name, possibly empty, and its data) → the client's bytes now:
    // empty while held; at the first content the held events and this one.
    QByteArray event(QByteArrayView name, const QByteArray &data);
    bool hasSent() const { return m_sent; }
    // What a writer going on from these events needs: the last sequence number, and the output
    // items' ids in the order they were added.
    int lastSequence() const { return m_lastSequence; }
    const QStringList &itemIds() const { return m_itemIds; }
    // The terminal response the client got (response.completed or response.incomplete), once sent.
    const std::optional<QJsonObject> &finished() const { return m_finished; }

    // response.failed for a stream broken after its first byte: sequence_number right after the
    // last event sent, the response as the upstream last described it with the items done so far
    // (a half-written item is left out: a client would run a call with half its arguments).
    QByteArray fail(const ApiError &error);
    const QJsonObject &failedResponse() const { return m_response; }

    // Whether the client must see this event before it is clear the upstream answers: deltas, tool
    // calls and message items that carry text, done events and the terminal ones are content;
    // response.created, in_progress, queued, empty message and reasoning items and empty parts are not.
    static bool isContent(QByteArrayView type, const QByteArray &data);

private:
    // A response object's bytes with the frame's members set.
    QByteArray rewrittenResponse(QByteArrayView response) const;
    // A lifecycle event's data ({type, sequence_number, response}) with its response rewritten.
    QByteArray rewrittenEvent(const QByteArray &data) const;

    ResponseFrame m_frame;
    QByteArray m_held;
    bool m_sent = false;
    int m_lastSequence = -1;
    QJsonObject m_response; // the latest response snapshot the upstream sent, rewritten
    QJsonArray m_done;      // output items done so far, in order
    QStringList m_itemIds;  // every output item added, in order
    std::optional<QJsonObject> m_finished;
};

} // namespace sb
