#pragma once

#include "frontends/anthropic_messages/AnthropicError.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <cstdint>

namespace sb {

// One streamed answer: the engine's OpenAI chat.completion.chunk payloads in, Anthropic's Messages
// SSE out, in the grammar Anthropic documents:
//
//   message_start                      once, with the first content block (content empty, usage so far)
//   content_block_start                per block, indices contiguous from 0; a block is stopped
//   content_block_delta …                before the next one starts:
//   content_block_stop                   reasoning_content → a thinking block (thinking_delta),
//                                        content → a text block (text_delta), each tool call →
//                                        a tool_use block (input_json_delta with the argument pieces)
//   message_delta                      in finish(): stop_reason, stop_sequence and the usage, which
//   message_stop                         OpenAI sends in a chunk of its own after the finish_reason
//
// Role-only and empty deltas start no block. Bytes come back ready to write; an empty result means
// there is nothing to send for that chunk.
class AnthropicStreamWriter {
public:
    struct Stats {
        std::uint64_t chunks = 0;          // payloads given to onChunk
        std::uint64_t malformedChunks = 0; // not a JSON object: skipped
        std::uint64_t events = 0;          // SSE events written
        std::uint64_t blocks = 0;          // content blocks started
        std::uint64_t toolCalls = 0;       // of them, tool_use blocks
    };

    explicit AnthropicStreamWriter(QString model, QString messageId, QStringList stopSequences);

    // One chunk payload (the JSON after "data: "). A payload carrying {"error": …} (how the engine
    // ends a stream that broke) comes out as error().
    QByteArray onChunk(const QByteArray &openAiChunkJson);
    // The upstream finished: the open block's stop, message_delta and message_stop. Starts the
    // message first if no chunk ever came. Nothing after the first call, or after error().
    QByteArray finish();
    // An "event: error" that ends the stream; nothing is written after it. Before anything was
    // written (hasStarted() is false) the client is better served by an HTTP error instead.
    QByteArray error(const AnthropicError &error);

    bool hasStarted() const { return m_started; }  // message_start was written
    bool hasContent() const { return m_stats.blocks > 0; }
    bool isFinished() const { return m_finished; } // finish() or error() ran
    const Stats &stats() const { return m_stats; }

private:
    enum class Block { None, Text, Thinking, Tool };

    void ensureStarted(QByteArray &out);
    void openBlock(Block kind, QByteArray &out);
    void closeBlock(QByteArray &out);
    void startPendingTool(QByteArray &out);
    void toolCallDelta(const QJsonObject &call, QByteArray &out);
    void delta(const char *deltaType, const char *field, const QString &value, QByteArray &out);
    void event(const char *type, const QByteArray &json, QByteArray &out);
    void rememberText(const QString &text);
    QJsonObject usageSoFar() const;

    QString m_model;
    QString m_messageId;
    QStringList m_stopSequences;
    qsizetype m_longestStop = 0;

    bool m_started = false;
    bool m_finished = false;
    Block m_open = Block::None;
    int m_index = -1;    // of the open block
    int m_nextIndex = 0; // of the next block to start

    // The tool call being streamed, by its OpenAI index and id. Its block starts once its name is
    // known (content_block_start must carry it); argument pieces that came first wait for it.
    int m_toolIndex = -1;
    QString m_toolId;
    QString m_toolName;
    QString m_pendingArguments;
    bool m_toolPending = false;
    bool m_sawToolUse = false;

    QString m_finishReason;
    QString m_stopSequence;
    QString m_textEnd; // the last characters of text, as long as the longest stop sequence

    QList<int> m_closedTools; // OpenAI indices of tool calls whose block has stopped
    QJsonObject m_usage;      // the last OpenAI usage object seen

    Stats m_stats;
};

} // namespace sb
