#pragma once

#include "frontends/ApiError.h"

#include <QByteArray>
#include <QJsonArray>
#include <QJsonObject>
#include <QSet>
#include <QString>
#include <QStringList>

#include <optional>

namespace sb {

// An inbound OpenAI Responses request (POST /v1/responses: Codex CLI, the OpenAI SDKs'
// responses.create), checked once at the door so that a bad one gets OpenAI's 400 naming the field
// (input[2].content[0].type, tools[1].type, text.format.schema), and translated into the engine's
// OpenAI chat.completions body. What no chat upstream can be given, and what the client gets
// instead, is the table in TRANSLATION.md beside this file.
struct ResponsesRequest {
    QString model;
    bool stream = false;
    bool store = true;          // OpenAI's default
    QString previousResponseId; // empty when none
    // The client's input as a list of items: a string input becomes one item
    // {"type":"message","role":"user","content":[{"type":"input_text","text":…}]}, and an item with a
    // "role" but no "type" gets "type":"message". Otherwise the items as the client sent them.
    QJsonArray input;
    // The same items as JSON text instead, when the quick check wrote them (`input` is then empty):
    // the store keeps them as text, and a request without history needs them no other way.
    QByteArray inputJson;
    QString instructions; // empty when none
    // What a response object repeats from its request, as given or defaulted: instructions (null),
    // tools ([]), tool_choice ("auto"), parallel_tool_calls (true), max_output_tokens (null),
    // temperature (1), top_p (1), text ({"format":{"type":"text"}}), reasoning
    // ({"effort":null,"summary":null}), metadata ({}), user (null), truncation ("disabled"), store,
    // previous_response_id (null).
    QJsonObject echo;
    // Names of the tools declared as {"type":"custom"}: sent up as function tools of one string
    // parameter "input"; the answer side turns their calls back into custom_tool_call items.
    QSet<QString> customTools;
    int maxOutputTokens = 0;       // 0 when not set
    int estimatedPromptTokens = 0; // for the provider's tokens/min bucket: ~4 bytes a token
    QStringList dropped;           // what the translation left out, each named once, for the request log
    QByteArray original;           // the client's bytes
    // The chat body's members that parse() translated from the request's own options, and only those
    // the client gave (tools, tool_choice, parallel_tool_calls, temperature, top_p, response_format,
    // reasoning_effort, user): a default the client did not ask for is not sent up, since some
    // models refuse even the default value of a parameter they do not take. chatBody() adds the rest.
    QJsonObject chatParameters;
    // The whole chat body as JSON text, when the quick check (ResponsesQuickCheck) wrote it from
    // the client's bytes; chatBody() is then not needed for a request without history.
    QByteArray chatBodyJson;

    static std::optional<ResponsesRequest> parse(const QByteArray &body, ApiError *error);
    // `input`, or `inputJson` parsed.
    QJsonArray inputItems() const;
    // What the provider's tokens/min bucket is charged for a body of `bytes`: ~4 bytes a token.
    static int estimateTokens(qsizetype bytes);

    // The engine's chat.completions body for this request: `instructions` as the first (system)
    // message, then `history` (the items of the earlier turns of a previous_response_id chain, in
    // order, inputs and outputs alike, in Responses item form), then this request's own input; model,
    // stream (with stream_options.include_usage), max_tokens and chatParameters.
    QJsonObject chatBody(const QJsonArray &history = {}) const;

    // The same item → chat message translation for one list of items. Items that do not translate
    // are left out (this serves items the proxy kept itself; parse() checks a client's).
    static QJsonArray chatMessages(const QJsonArray &items, const QSet<QString> &customTools);
};

} // namespace sb
