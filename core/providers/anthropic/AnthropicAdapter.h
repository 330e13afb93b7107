#pragma once

#include "providers/ProviderAdapter.h"

namespace sb {

// The Anthropic Messages API behind the OpenAI chat-completions surface. Requests: system
// messages become the top-level "system", tools become tools with input_schema, tool results become
// tool_result blocks in user turns, max_tokens (required there) defaults to 4096. Responses: content
// blocks become message content and tool_calls, stop_reason becomes finish_reason.
class AnthropicAdapter final : public ProviderAdapter {
public:
    // Pinned: a newer version may change event shapes under us; moving it is a deliberate change.
    static constexpr const char *ApiVersion = "2023-06-01";
    // Anthropic requires max_tokens; OpenAI callers often omit it. 4096 is accepted by every
    // current Claude model and long enough for ordinary answers.
    static constexpr int DefaultMaxTokens = 4096;

    QString dialect() const override;
    QString displayName() const override;
    QString defaultBaseUrl() const override;

    UpstreamRequest chatRequest(const QJsonObject &openAiBody, const AdapterContext &context) const override;
    // The usual request written from the client's bytes (quickAnthropicRequest); anything else
    // through chatRequest's translation of the object.
    UpstreamRequest chatRequestFor(const ClientBody &body, const AdapterContext &context) const override;
    bool takesAssistantPrefill() const override { return true; }
    // Anthropic's Messages API in: the client's body goes as it came, its thinking signatures,
    // cache_control and beta fields untouched; anthropic-version and anthropic-beta are the client's.
    std::optional<UpstreamRequest> nativeRequest(QStringView clientApi, const QByteArray &clientBytes, const HttpHeaders &clientHeaders,
                                                 const AdapterContext &context) const override;
    // POST /v1/messages/count_tokens of a client's Messages body, the same way: the channel's model,
    // the client's protocol headers, this provider's key.
    UpstreamRequest countTokensRequest(const QByteArray &clientBytes, const HttpHeaders &clientHeaders, const AdapterContext &context) const;
    std::optional<UpstreamRequest> embeddingsRequest(const QJsonObject &openAiBody,
                                                    const AdapterContext &context) const override;
    UpstreamRequest probeRequest(const AdapterContext &context) const override;

    Outcome classify(int httpStatus, const HttpHeaders &headers, const QByteArray &body) const override;
    std::optional<QString> answerProblem(const HttpHeaders &headers, const QByteArray &body, bool embeddings) const override;

    QJsonObject chatResponse(const QByteArray &body, TokenUsage *usage) const override;
    // The usual message on its bytes (quickChatCompletion); anything else as the default reads it.
    Outcome classifyAnswer(int httpStatus, const HttpHeaders &headers, const QByteArray &body, bool embeddings,
                           OpenAiAnswer *answer, TokenUsage *usage) const override;
    Outcome classifyNativeAnswer(QStringView clientApi, int httpStatus, const HttpHeaders &headers, const QByteArray &body,
                                 OpenAiAnswer *answer, TokenUsage *usage) const override;
    QJsonObject embeddingsResponse(const QByteArray &body, TokenUsage *usage) const override;

    std::unique_ptr<StreamTranslator> streamTranslator(const QJsonObject &openAiBody) const override;

    // The request body alone (what chatRequest sends), for tests and the request log.
    static QJsonObject translateRequest(const QJsonObject &openAiBody, const QString &upstreamModel);
    // Shared with the stream translator.
    static QString finishReason(const QString &stopReason);
    // Anthropic usage → TokenUsage: promptTokens = input_tokens + cache_read_input_tokens +
    // cache_creation_input_tokens (the whole prompt, as OpenAI counts it); the cache counts only
    // where the usage has them.
    static TokenUsage usageFromAnthropic(const QJsonObject &usage);
    // The usage of a message `scan` accepted, read without parsing the rest of it.
    static TokenUsage usageOfMessage(QByteArrayView message, const JsonObjectScan &scan);
};

} // namespace sb
