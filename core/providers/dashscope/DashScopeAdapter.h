#pragma once

#include "providers/ProviderAdapter.h"

namespace sb {

// Alibaba Cloud Model Studio's native DashScope API (Qwen): POST
// /api/v1/services/aigc/text-generation/generation with input.messages and parameters
// (result_format "message"; streaming through X-DashScope-SSE: enable with incremental_output).
// Qwen's OpenAI-compatible mode needs no adapter of its own: it is an openai_compat provider.
class DashScopeAdapter final : public ProviderAdapter {
public:
    QString dialect() const override;
    QString displayName() const override;
    QString defaultBaseUrl() const override;

    UpstreamRequest chatRequest(const QJsonObject &openAiBody, const AdapterContext &context) const override;
    std::optional<UpstreamRequest> embeddingsRequest(const QJsonObject &openAiBody,
                                                    const AdapterContext &context) const override;
    // The native API has no model listing; the same key lists models on the compatible-mode
    // endpoint of the same host (GET /compatible-mode/v1/models), which costs no tokens.
    UpstreamRequest probeRequest(const AdapterContext &context) const override;

    Outcome classify(int httpStatus, const HttpHeaders &headers, const QByteArray &body) const override;
    std::optional<QString> answerProblem(const HttpHeaders &headers, const QByteArray &body, bool embeddings) const override;
    Outcome classifyProbe(int httpStatus, const HttpHeaders &headers, const QByteArray &body) const override;
    QJsonObject chatResponse(const QByteArray &body, TokenUsage *usage) const override;
    QJsonObject embeddingsResponse(const QByteArray &body, TokenUsage *usage) const override;
    std::unique_ptr<StreamTranslator> streamTranslator(const QJsonObject &openAiBody) const override;

    // The translated generation body, exposed for tests and the request inspector.
    static QJsonObject translateBody(const QJsonObject &openAiBody, const QString &upstreamModel);
};

} // namespace sb
