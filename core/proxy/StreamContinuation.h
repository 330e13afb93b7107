#pragma once

#include "model/TokenUsage.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>

#include <optional>
#include <vector>

namespace sb {

// A streamed answer that broke after some of it reached the client, carried on by another
// channel (ARCHITECTURE.md, "Streams that survive"). It keeps what the client got, in the
// engine's OpenAI chunks; words the request that asks for the rest; and splices the rest into
// the client's stream: one answer, no text twice, none missing.
//
// The rules:
// - Only text is continued. A tool call's deltas are held from its first one until the answer
//   finishes (holdToolCalls), so the client gets every call whole, once: a break while one is
//   held asks for the answer again from the text sent, and the call comes whole from there.
//   Were a call's delta to have reached the client the answer could not be spliced (the
//   arguments would be two halves of two calls): the stream would end with its error.
// - Reasoning that reached the client is not shown a second time: the continuation's reasoning
//   is dropped. When only reasoning had gone out, the request is asked again as it was.
// - The continuation's opening is trimmed where it repeats the end of what was sent (a model
//   told to continue often restates the last words), or all of it (it started over).
class StreamContinuation {
public:
    // What a continuation request adds after the partial answer when the upstream cannot take an
    // assistant prefill. The simulator recognises it, as a model would read it.
    static constexpr const char *kInstruction =
        "Your previous answer was cut off. Continue it exactly where it stopped: do not repeat any of it, add no preamble.";
    // A repeat shorter than this is taken for new text, not trimmed (unless it is the whole answer so far).
    static constexpr int kMinOverlap = 8;

    // The client's stream got these chunks.
    void sent(const std::vector<QByteArray> &chunks);
    const QString &text() const { return m_text; }
    bool toolCallSent() const { return m_toolCall; }
    bool anySent() const { return !m_text.isEmpty() || m_reasoning; }
    // Why the answer so far cannot be continued; empty when it can.
    QString refusal() const;

    // Chunks on their way to the client: from a tool call's first delta on they are held, and
    // released together when the answer finishes.
    std::vector<QByteArray> holdToolCalls(std::vector<QByteArray> chunks, bool finished);
    bool holdingToolCall() const { return !m_heldCall.empty(); }
    // The attempt holding a call failed: the next attempt's call is the one the client gets.
    void dropHeldToolCall() { m_heldCall.clear(); }
    // Whether this engine chunk carries a tool call's delta.
    static bool isToolCall(const QByteArray &chunk);

    // The request for the rest: `original` (an OpenAI chat body) with the answer so far as the
    // assistant's partial turn — a prefill, its trailing white space left off, as upstreams that
    // take one refuse it otherwise; or followed by kInstruction.
    QJsonObject request(const QJsonObject &original, bool prefill);

    // A new attempt continues the answer. `failed` is the usage the attempt that broke reported;
    // a cut stream reports none, and is counted as `promptTokens` in and its text's estimate out.
    void beginSplice(const TokenUsage &failed, int promptTokens);
    bool splicing() const { return m_splicing; }
    int splices() const { return m_splices; }
    // The continuation's chunks as the client gets them; some may be held until the overlap with
    // what was sent is known, and are released by a later call or by `finished`.
    std::vector<QByteArray> splice(const std::vector<QByteArray> &chunks, bool finished);
    // The usage of every attempt so far, with `last` (the current attempt's) added.
    TokenUsage summedUsage(const TokenUsage &last) const;

    // How many characters of the continuation's opening repeat the end of `sent` (0 when none);
    // std::nullopt while `opening` could still turn out to repeat more, unless `final` (the
    // continuation ended there: what repeats so far is taken for a repeat).
    static std::optional<int> overlap(const QString &sent, const QString &opening, bool final);

private:
    void releaseHeld(std::vector<QByteArray> *out, int trim);

    QString m_text;      // the answer's text the client got
    bool m_toolCall = false;
    bool m_reasoning = false;
    // The first attempt's chunk identity, which the continuation's chunks take on.
    bool m_haveIdentity = false;
    QJsonValue m_id, m_created, m_model;

    bool m_splicing = false;
    bool m_prefilled = false;
    int m_splices = 0;
    TokenUsage m_earlier;
    QString m_textAtSplice;    // m_text when the current continuation began
    bool m_openingDone = false; // the overlap has been decided for the current continuation
    QString m_opening;         // its text so far, while undecided
    std::vector<QJsonObject> m_held;
    std::vector<QByteArray> m_heldCall; // a tool call's chunks, and every one after them
};

} // namespace sb
