#include "frontends/anthropic_messages/AnthropicMessagesApi.h"

#include "frontends/anthropic_messages/AnthropicAnswer.h"
#include "providers/common/OpenAiAnswer.h"

#include <QJsonDocument>

namespace sb {

AnthropicMessagesApi::AnthropicMessagesApi(QString model, QString messageId, QStringList stopSequences)
    : m_model(std::move(model))
    , m_messageId(std::move(messageId))
    , m_stopSequences(std::move(stopSequences))
    , m_writer(m_model, m_messageId, m_stopSequences)
{
}

QByteArray AnthropicMessagesApi::answer(const OpenAiAnswer &answer, const QString &model, qint64 createdSeconds)
{
    const QJsonObject completion = QJsonDocument::fromJson(answer.toJson(model, createdSeconds)).object();
    return AnthropicAnswer::fromChatCompletion(completion, model, m_messageId, m_stopSequences);
}

QByteArray AnthropicMessagesApi::streamChunks(const std::vector<QByteArray> &openAiChunks)
{
    QByteArray out;
    for (const QByteArray &chunk : openAiChunks)
        out += m_writer.onChunk(chunk);
    return out;
}

bool AnthropicMessagesApi::resumeAfterPassThrough(const std::vector<QByteArray> &sentChunks, int upstreamBlocks)
{
    for (const QByteArray &chunk : sentChunks)
        m_writer.onChunk(chunk); // written already, in the upstream's words
    return !m_writer.isFinished() && m_writer.stats().blocks == std::uint64_t(upstreamBlocks);
}

QByteArray AnthropicMessagesApi::streamEnd()
{
    return m_writer.finish();
}

QByteArray AnthropicMessagesApi::streamError(const ApiError &error)
{
    return m_writer.error(toAnthropic(error));
}

int AnthropicMessagesApi::errorStatus(const ApiError &error) const
{
    return toAnthropic(error).status;
}

QByteArray AnthropicMessagesApi::errorBody(const ApiError &error) const
{
    return toAnthropic(error).toJson();
}

AnthropicError AnthropicMessagesApi::toAnthropic(const ApiError &error)
{
    return AnthropicError::fromOpenAi(error.status, error.type, error.code, error.message);
}

} // namespace sb
