#pragma once

#include "providers/ProviderAdapter.h"

namespace sb {

// Google's Generative Language API (v1beta): models/{model}:generateContent and
// :streamGenerateContent?alt=sse, key in x-goog-api-key. OpenAI system messages become
// systemInstruction, assistant turns the "model" role, tools functionDeclarations.
class GeminiAdapter final : public ProviderAdapter {
public:
    QString dialect() const override;
    QString displayName() const override;
    QString defaultBaseUrl() const override;

    UpstreamRequest chatRequest(const QJsonObject &openAiBody, const AdapterContext &context) const override;
    std::optional<UpstreamRequest> embeddingsRequest(const QJsonObject &openAiBody,
                                                    const AdapterContext &context) const override;
    // GET models?pageSize=1: authenticated, costs no tokens.
    UpstreamRequest probeRequest(const AdapterContext &context) const override;

    Outcome classify(int httpStatus, const HttpHeaders &headers, const QByteArray &body) const override;
    std::optional<QString> answerProblem(const HttpHeaders &headers, const QByteArray &body, bool embeddings) const override;
    QJsonObject chatResponse(const QByteArray &body, TokenUsage *usage) const override;
    QJsonObject embeddingsResponse(const QByteArray &body, TokenUsage *usage) const override;
    std::unique_ptr<StreamTranslator> streamTranslator(const QJsonObject &openAiBody) const override;

    // The translated generateContent body, exposed for tests and the request inspector.
    static QJsonObject translateBody(const QJsonObject &openAiBody);
};

} // namespace sb
