#pragma once

#include "model/Outcome.h"
#include "model/TokenUsage.h"

#include <QJsonObject>
#include <QString>

#include <optional>

namespace sb {

// OpenAI's Responses API as an upstream answers it (POST <base_url>/responses, for a provider with
// `responses_api`), read into the engine's OpenAI chat forms: the engine's cache, history text and
// token counts work in chat completions whichever wire the answer came on. The client itself gets
// the upstream's own response (ResponsesPassThrough); this is only what the engine keeps of it.
namespace responsesupstream {

// A Responses usage object ({input_tokens, input_tokens_details.cached_tokens, output_tokens,
// output_tokens_details.reasoning_tokens, total_tokens}) as token counts: output_tokens includes
// the reasoning tokens, as OpenAI bills them.
TokenUsage usage(const QJsonObject &responsesUsage);
// The same as a chat usage object (prompt_tokens_details.cached_tokens and
// completion_tokens_details.reasoning_tokens when given).
QJsonObject chatUsage(const QJsonObject &responsesUsage);

// The error a response object (status "failed", `error` {code, message}) or an `error` stream event
// ({code, message, param}) carries, classified as OpenAiCompatErrorMap does OpenAI's error codes
// (rate_limit_exceeded is a rate limit, server_error a provider failure, invalid_prompt the
// request's fault); std::nullopt when it carries none.
std::optional<Outcome> errorIn(const QJsonObject &object);

// The chat finish_reason of a response: incomplete for max_output_tokens is "length", for
// content_filter "content_filter"; otherwise "tool_calls" when it called a tool, else "stop".
QString finishReason(const QJsonObject &response, bool calledTools);

// A complete response object as a chat.completion: the message items' text as the content (refusals
// too), the reasoning items' summary text as reasoning_content, function and custom tool calls as
// tool_calls (a custom call's input as arguments {"input": …}, the form the front door sends such
// tools up in), the usage; *usage receives the counts.
QJsonObject chatCompletion(const QJsonObject &response, TokenUsage *usage);

} // namespace responsesupstream

} // namespace sb
