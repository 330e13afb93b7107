#pragma once

#include "frontends/ClientApi.h"

namespace sb {

// OpenAI chat completions, the engine's own API: answers and chunks go out as they are, errors in
// OpenAI's shape. Stateless, so one instance serves every request.
class OpenAiChatApi final : public ClientApi {
public:
    static OpenAiChatApi &instance();

    QByteArray answer(const OpenAiAnswer &answer, const QString &model, qint64 createdSeconds) override;
    QByteArray streamChunks(const std::vector<QByteArray> &openAiChunks) override;
    QByteArray streamEnd() override;
    QByteArray streamError(const ApiError &error) override;
    int errorStatus(const ApiError &error) const override { return error.status; }
    QByteArray errorBody(const ApiError &error) const override { return error.toJson(); }
};

} // namespace sb
