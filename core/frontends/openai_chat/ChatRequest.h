#pragma once

#include "common/json/ClientBody.h"
#include "frontends/ApiError.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>

#include <optional>

namespace sb {

// An inbound OpenAI chat.completions request, checked for shape once at the door so that adapters
// can rely on it (types right, messages present) and bad input gets a 400 that names the field.
// The usual request is checked on its bytes and not parsed into values (ClientBody); whatever that
// check is unsure of is parsed and checked again by QJsonDocument, which alone words the errors.
struct ChatRequest {
    ClientBody body;
    QString model;
    bool stream = false;
    bool includeUsage = false; // stream_options.include_usage
    int estimatedPromptTokens = 0; // for the provider's tokens/min bucket: ~4 bytes a token

    static std::optional<ChatRequest> parse(const QByteArray &json, ApiError *error);
    // The same checks, always through QJsonDocument: what parse() must agree with (tests).
    static std::optional<ChatRequest> parseWithQt(const QByteArray &json, ApiError *error);
};

// An inbound /v1/embeddings request.
struct EmbeddingsRequest {
    QJsonObject body;
    QString model;
    int estimatedPromptTokens = 0;

    static std::optional<EmbeddingsRequest> parse(const QByteArray &json, ApiError *error);
};

} // namespace sb
