#pragma once

#include "providers/ProviderAdapter.h"

namespace sb {

// Baidu Qianfan's native v1 chat API (wenxinworkshop/chat/<endpoint>?access_token=…), the one
// whose errors arrive as HTTP 200 bodies. The channel's upstreamModel is the endpoint name
// ("completions_pro", "ernie-4.0-8k", …). The access token is placed only in the query string — so
// an upstream URL of this dialect must never be logged unmasked. A key is either the credentials
// Baidu gives, written "API_KEY:SECRET_KEY", which tokenRequest() exchanges for an access token
// (POST /oauth/2.0/token, client credentials, on the base URL's host; AccessTokens caches it), or a
// ready access token (anything without a colon), sent as given.
// Qianfan's newer OpenAI-like v2 API is an openai_compat provider.
class ErnieAdapter final : public ProviderAdapter {
public:
    QString dialect() const override;
    QString displayName() const override;
    QString defaultBaseUrl() const override;

    UpstreamRequest chatRequest(const QJsonObject &openAiBody, const AdapterContext &context) const override;
    std::optional<UpstreamRequest> embeddingsRequest(const QJsonObject &openAiBody,
                                                    const AdapterContext &context) const override;
    // v1 has no model listing, so the probe of a raw token is the smallest chat there is: one short
    // user turn, max_output_tokens 2. It proves the token and the endpoint at the price of a few
    // tokens. A credential pair's heartbeat is its token exchange instead, which is free.
    UpstreamRequest probeRequest(const AdapterContext &context) const override;
    bool probeIsBilled(const AdapterContext &context) const override;

    std::optional<UpstreamRequest> tokenRequest(const AdapterContext &context) const override;
    bool exchangesKeys() const override { return true; }
    AccessTokenGrant readTokenAnswer(int httpStatus, const HttpHeaders &headers, const QByteArray &body) const override;
    bool refusesAccessToken(const Outcome &outcome) const override;

    struct Credentials {
        QString apiKey;
        QString secretKey;
    };
    // A key with a colon is "API_KEY:SECRET_KEY" (split at the first colon, both halves non-empty;
    // Baidu's keys and access tokens have no colon); std::nullopt for a raw access token.
    static std::optional<Credentials> credentialPair(const QString &key);

    Outcome classify(int httpStatus, const HttpHeaders &headers, const QByteArray &body) const override;
    std::optional<QString> answerProblem(const HttpHeaders &headers, const QByteArray &body, bool embeddings) const override;
    QJsonObject chatResponse(const QByteArray &body, TokenUsage *usage) const override;
    QJsonObject embeddingsResponse(const QByteArray &body, TokenUsage *usage) const override;
    std::unique_ptr<StreamTranslator> streamTranslator(const QJsonObject &openAiBody) const override;

    // The translated chat body, exposed for tests and the request inspector.
    static QJsonObject translateBody(const QJsonObject &openAiBody);
};

} // namespace sb
