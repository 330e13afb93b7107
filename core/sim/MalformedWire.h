#pragma once

#include "sim/DialectWire.h"

#include <QByteArray>

namespace sb::sim {

// What a provider of one dialect sends when its 2xx is not an answer, in the dialect's own shape:
// the envelope without the answer in it, an answer that is empty and unfinished, a stream with
// neither content nor a finish reason, and errors inside a 200 whose fields disagree (or agree that
// the caller is at fault). The engine must take each for what it is (ARCHITECTURE.md, "Errors and
// outcomes"); SCENARIO_FORMAT.md names the faults that send them. Pure, like DialectWire.
class MalformedWire {
public:
    explicit MalformedWire(const DialectWire &wire) : m_wire(wire) {}

    // The dialect's answer object with what makes it one left out: no choices (OpenAI), no content
    // (Anthropic), no candidates (Gemini), no output (DashScope), no result (ERNIE).
    QByteArray answerWithoutAnswer(const SimRequest &request, const QByteArray &id) const;
    // An answer whose one choice (candidate, message) carries no content and no finish reason.
    QByteArray emptyAnswer(const SimRequest &request, const QByteArray &id) const;
    // A whole event stream, ended cleanly the dialect's way, with neither content nor a finish
    // reason in it (OpenAI: the role chunk and [DONE]; Anthropic: message_start to message_stop).
    QByteArray emptyStream(const SimRequest &request, const QByteArray &id) const;
    // An error whose fields disagree: one of them says "invalid request", another that the provider
    // is overloaded. A provider failure, whatever the first field says.
    QByteArray disagreeingErrorBody(const QByteArray &id) const;
    QByteArray disagreeingErrorEvent(const QByteArray &id) const;
    // An error inside a 200 that is the caller's, plainly: the prompt is longer than the model takes.
    QByteArray invalidRequestBody(const QByteArray &id) const;
    QByteArray invalidRequestEvent(const QByteArray &id) const;
    // What a misconfigured proxy in front of the provider answers with.
    static QByteArray htmlPage();

private:
    // `body` as the dialect's error event (DashScope's carries `status` in its HTTP_STATUS comment).
    QByteArray asErrorEvent(const QByteArray &body, int status) const;

    const DialectWire &m_wire;
};

} // namespace sb::sim
