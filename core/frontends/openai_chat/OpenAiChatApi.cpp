#include "frontends/openai_chat/OpenAiChatApi.h"

#include "providers/common/OpenAiAnswer.h"

namespace sb {

OpenAiChatApi &OpenAiChatApi::instance()
{
    static OpenAiChatApi api;
    return api;
}

QByteArray OpenAiChatApi::answer(const OpenAiAnswer &answer, const QString &model, qint64 createdSeconds)
{
    return answer.toJson(model, createdSeconds);
}

QByteArray OpenAiChatApi::streamChunks(const std::vector<QByteArray> &openAiChunks)
{
    qsizetype size = 0;
    for (const QByteArray &chunk : openAiChunks)
        size += chunk.size() + 8;
    QByteArray out;
    out.reserve(size);
    for (const QByteArray &chunk : openAiChunks) {
        out.append("data: ");
        out.append(chunk);
        out.append("\n\n");
    }
    return out;
}

QByteArray OpenAiChatApi::streamEnd()
{
    return QByteArrayLiteral("data: [DONE]\n\n");
}

QByteArray OpenAiChatApi::streamError(const ApiError &error)
{
    return "data: " + error.toJson() + "\n\n";
}

} // namespace sb
