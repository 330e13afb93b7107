#pragma once

#include "frontends/ClientApi.h"
#include "frontends/anthropic_messages/AnthropicStreamWriter.h"

#include <QStringList>

namespace sb {

// Anthropic's Messages API as the answer goes back: the engine's OpenAI answers, chunks and errors
// in Anthropic's message object, event grammar and error shape. One per request (the stream
// writer keeps the open block and the usage).
class AnthropicMessagesApi final : public ClientApi {
public:
    AnthropicMessagesApi(QString model, QString messageId, QStringList stopSequences);

    QByteArray answer(const OpenAiAnswer &answer, const QString &model, qint64 createdSeconds) override;
    QByteArray streamChunks(const std::vector<QByteArray> &openAiChunks) override;
    QByteArray streamEnd() override;
    QByteArray streamError(const ApiError &error) override;
    // The writer replays what the upstream's events said; it goes on only when its blocks are the
    // upstream's (a thinking block then a text block, say, in the same order).
    bool resumeAfterPassThrough(const std::vector<QByteArray> &sentChunks, int upstreamBlocks) override;
    bool resumesPassThrough() const override { return true; }
    int errorStatus(const ApiError &error) const override;
    QByteArray errorBody(const ApiError &error) const override;

    static AnthropicError toAnthropic(const ApiError &error);

private:
    QString m_model;
    QString m_messageId;
    QStringList m_stopSequences;
    AnthropicStreamWriter m_writer;
};

} // namespace sb
