#pragma once

#include "providers/ProviderAdapter.h"

namespace sb {

// OpenAI chat completions as OpenAI, DeepSeek, Doubao (Volcengine Ark), Qwen compatible mode and
// local servers (vLLM, Ollama, llama.cpp) speak it. The request passes through with the channel's
// upstream model; streams always ask for usage (stream_options.include_usage) so cost is known
// even when the client did not ask, and the translator hides that chunk from such clients.
class OpenAiCompatAdapter final : public ProviderAdapter {
public:
    QString dialect() const override;
    QString displayName() const override;
    QString defaultBaseUrl() const override;

    UpstreamRequest chatRequest(const QJsonObject &openAiBody, const AdapterContext &context) const override;
    UpstreamRequest chatRequestFor(const ClientBody &body, const AdapterContext &context) const override;
    // A Responses API request ("openai_responses") to a provider with `responses_api`: the client's
    // bytes to <base_url>/responses with the channel's model and store: false; std::nullopt
    // otherwise (the request goes as chat completions).
    std::optional<UpstreamRequest> nativeRequest(QStringView clientApi, const QByteArray &clientBytes, const HttpHeaders &clientHeaders,
                                                 const AdapterContext &context) const override;
    std::unique_ptr<StreamTranslator> nativeStreamTranslator(QStringView clientApi, const QJsonObject &openAiBody) const override;
    Outcome classifyNativeAnswer(QStringView clientApi, int httpStatus, const HttpHeaders &headers, const QByteArray &body,
                                 OpenAiAnswer *answer, TokenUsage *usage) const override;
    std::optional<UpstreamRequest> embeddingsRequest(const QJsonObject &openAiBody,
                                                    const AdapterContext &context) const override;
    UpstreamRequest probeRequest(const AdapterContext &context) const override;

    Outcome classify(int httpStatus, const HttpHeaders &headers, const QByteArray &body) const override;
    std::optional<QString> answerProblem(const HttpHeaders &headers, const QByteArray &body, bool embeddings) const override;

    QJsonObject chatResponse(const QByteArray &body, TokenUsage *usage) const override;
    QJsonObject embeddingsResponse(const QByteArray &body, TokenUsage *usage) const override;
    Outcome classifyAnswer(int httpStatus, const HttpHeaders &headers, const QByteArray &body, bool embeddings,
                           OpenAiAnswer *answer, TokenUsage *usage) const override;

    std::unique_ptr<StreamTranslator> streamTranslator(const QJsonObject &openAiBody) const override;
};

} // namespace sb
