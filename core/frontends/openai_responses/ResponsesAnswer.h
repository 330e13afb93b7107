#pragma once

#include "frontends/openai_responses/ResponseFrame.h"

#include <QByteArray>
#include <QJsonObject>

namespace sb {

// A buffered OpenAI chat.completion (what the engine answers with, whatever the upstream's dialect)
// as the Responses API's "response" object. The output items, in the order a Responses model
// writes them: a reasoning item first when the upstream reasoned, then the assistant message (an
// output_text part, or a refusal part), then one function_call item per tool call, or a
// custom_tool_call item for a tool the client declared custom.
struct ResponsesAnswer {
    // The counts of a chat usage object that the Responses usage object reports.
    struct UsageCounts {
        qint64 input = 0, cached = 0, cacheWrite = 0, output = 0, reasoning = 0;
        qint64 total = -1; // -1: the upstream gave none, which is input + output
    };

    // A chat.completion object → a complete response object (status completed, or incomplete with
    // incomplete_details.reason "max_output_tokens" for finish_reason length / "content_filter").
    // Written as compact JSON, which is what the client gets; fromChatCompletion() is that object.
    static QByteArray write(const QJsonObject &completion, const ResponseFrame &frame);
    static QJsonObject fromChatCompletion(const QJsonObject &completion, const ResponseFrame &frame);
    // The usage object in Responses form from a chat usage object (missing details → 0).
    // input_tokens counts cached tokens too, as prompt_tokens does; they are also in
    // input_tokens_details.cached_tokens (prompt_tokens_details.cached_tokens, or DeepSeek's
    // prompt_cache_hit_tokens). Shared with ResponsesStreamWriter.
    static QJsonObject usage(const QJsonObject &chatUsage);
    static QByteArray usageJson(const QJsonObject &chatUsage); // the same as compact JSON
    static UsageCounts usageCounts(const QJsonObject &chatUsage);
    static QByteArray usageJson(const UsageCounts &counts);
};

} // namespace sb
