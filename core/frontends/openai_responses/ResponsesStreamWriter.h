#pragma once

#include "frontends/ApiError.h"
#include "frontends/openai_responses/ResponseFrame.h"

#include <QByteArray>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QStringList>
#include <QSet>
#include <QString>

#include <cstdint>

namespace sb {

// One streamed answer: the engine's OpenAI chat.completion.chunk payloads in, the Responses API's
// streaming events out, each "event: <type>\ndata: <json>\n\n" with a sequence_number counting
// from 0:
//
//   response.created, response.in_progress        once, with the first content (output empty)
//   response.output_item.added … .done            per output item, output_index contiguous from 0,
//                                                 each done before the next is added:
//     reasoning_content → a reasoning item with one summary part (reasoning_summary_part.added,
//       reasoning_summary_text.delta …, reasoning_summary_text.done, reasoning_summary_part.done)
//     content → a message item with an output_text part (content_part.added,
//       output_text.delta …, output_text.done, content_part.done); refusal → a refusal part
//     each tool call → a function_call item (function_call_arguments.delta per piece, .done),
//       or for a custom tool a custom_tool_call item written whole when the call is (its input
//       is decoded from the arguments, so it cannot stream)
//   response.completed / response.incomplete      in finish(), with the whole response object:
//                                                 output, usage (OpenAI sends it in a chunk of its
//                                                 own after the finish_reason), the echoed request
//   response.failed                               in fail(), instead of either
//
// Role-only and empty deltas write nothing: until the first content the client has seen nothing,
// so an upstream that fails before it can still be failed over unseen.
class ResponsesStreamWriter {
public:
    struct Stats {
        std::uint64_t chunks = 0;          // payloads given to onChunk
        std::uint64_t malformedChunks = 0; // not a JSON object: skipped
        std::uint64_t events = 0;          // SSE events written
        std::uint64_t items = 0;           // output items added
        std::uint64_t toolCalls = 0;       // of them, function_call and custom_tool_call items
        std::uint64_t lostToolPieces = 0;  // argument pieces of a call already done (a server that
                                           // interleaves parallel calls): an item is never reopened
    };

    explicit ResponsesStreamWriter(ResponseFrame frame);

    // One chunk payload (the JSON after "data: "); empty bytes when there is nothing to send yet.
    // A payload carrying {"error": …} (how the engine ends a stream that broke) comes out as fail().
    QByteArray onChunk(const QByteArray &openAiChunkJson);
    // The upstream finished: closes the open item, then response.completed or response.incomplete.
    // Starts the response first if no content ever came. Nothing after the first call, or fail().
    QByteArray finish();
    // response.failed, the response with status failed and error {code, message}; nothing is
    // written after it. Starts the response first if nothing was written yet (the proxy answers an
    // error before the first byte with errorBody instead). The item the break cut short gets no
    // output_item.done (a client would run a tool call with half its arguments); if it was added,
    // it is in the failed response's output as it stood, status incomplete.
    QByteArray fail(const ApiError &error);

    // The events so far were an upstream's own, passed through, and this writer read the same
    // answer from their chunks: it goes on as their continuation, numbering from `nextSequence`
    // and naming its items by the upstream's ids (in output order). False, and nothing changed,
    // when its items are not as many as the upstream's.
    bool continueFrom(int nextSequence, const QStringList &upstreamItemIds);

    bool hasStarted() const { return m_started; } // response.created went out
    bool hasContent() const { return m_stats.items > 0; }
    bool isFinished() const { return m_finished; } // finish() or fail() ran
    // The response object as it stands (the items done so far); complete after finish()/fail().
    const QJsonObject &response() const { return m_response; }
    const Stats &stats() const { return m_stats; }

private:
    enum class Kind { None, Reasoning, Message, Tool };
    enum class Part { None, Text, Refusal };

    // The output item being written; there is one at a time.
    struct Item {
        Kind kind = Kind::None;
        bool added = false; // output_item.added went out
        int outputIndex = -1;
        QString id;
        QJsonArray parts;        // a message's finished content parts
        Part part = Part::None;  // and the one being written
        QString text;            // of that part, or the reasoning summary
        // A tool call, by its OpenAI index and id. It is added once its name is known (the item
        // must carry it); argument pieces that came first wait in `arguments` like the rest.
        int toolIndex = -1;
        QString upstreamId;
        QString callId;
        QString name;
        QString arguments;
    };

    void ensureStarted(QByteArray &out);
    void lifecycle(const char *type, QByteArray &out);
    void event(const char *type, QJsonObject data, QByteArray &out);
    void itemEvent(const char *type, QJsonObject data, QByteArray &out);
    void delta(const char *type, const char *indexName, int index, const QString &value, bool logprobs, QByteArray &out);
    void write(const char *type, const QByteArray &json, QByteArray &out);

    void reasoningDelta(const QString &text, QByteArray &out);
    void messageDelta(Part part, const QString &text, QByteArray &out);
    void closePart(QByteArray &out);
    void toolCallDelta(const QJsonObject &call, QByteArray &out);
    bool isCustomTool() const;
    void addItem(QByteArray &out);
    void closeItem(const QString &status, QByteArray &out);
    void closeToolCall(QByteArray &out);
    QJsonObject itemObject(const QString &status) const;
    QJsonObject partObject() const;
    QJsonValue usageSoFar() const;

    ResponseFrame m_frame;
    QJsonObject m_response;
    QJsonArray m_output; // the items done
    Item m_item;
    QList<int> m_closedTools; // OpenAI indices of tool calls whose item is done
    QSet<QString> m_callIds;
    QString m_finishReason;
    QJsonObject m_usage; // the last OpenAI usage object seen
    int m_sequence = 0;
    bool m_started = false;
    bool m_finished = false;
    Stats m_stats;
};

} // namespace sb
