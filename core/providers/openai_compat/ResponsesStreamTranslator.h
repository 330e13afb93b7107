#pragma once

#include "providers/ProviderAdapter.h"

#include <QHash>
#include <QSet>
#include <QString>

namespace sb {

// OpenAI's Responses streaming events (an upstream that serves /responses itself) → OpenAI
// chat.completion.chunk payloads, one event at a time. The client gets the upstream's events as
// they came (ResponsesPassThrough); these chunks are what the engine keeps: the cache's copy, the
// history's text, the token counts.
//   response.created                       → a chunk with the assistant role (the response's id)
//   response.output_item.added             → for a function_call or custom_tool_call, a tool_calls
//                                            delta with call_id and name (index numbered per call)
//   response.output_text.delta, refusal.delta → content
//   response.reasoning_summary_text.delta, reasoning_text.delta → reasoning_content
//   response.function_call_arguments.delta → tool_calls[].function.arguments
//   response.output_item.done of a custom_tool_call → its arguments whole, {"input": …}
//   response.completed / response.incomplete → the finish chunk (stop, tool_calls, length,
//                                            content_filter), the usage; finished
//   response.failed, error                 → StreamStep::error (classified by its code)
//   anything else (in_progress, part and done events, keep-alives) → nothing
// A stream that ends without a terminal event is cut.
class ResponsesStreamTranslator final : public StreamTranslator {
public:
    ResponsesStreamTranslator(QString clientModel, bool clientWantsUsage);

    StreamStep onEvent(const SseEvent &event) override;
    StreamStep onEnd() override;

private:
    QByteArray chunk(const QJsonObject &delta, const QJsonValue &finishReason = QJsonValue(QJsonValue::Null));
    QJsonObject toolDelta(int toolIndex, const QJsonObject &fields) const;
    StreamStep fail(Outcome outcome);

    QString m_clientModel;
    bool m_clientWantsUsage;
    QString m_id;
    bool m_sentRole = false;
    QHash<int, int> m_toolIndexByOutput; // Responses output_index → OpenAI tool_calls index
    QSet<int> m_customTools;             // output indices of custom_tool_call items
    bool m_finished = false;
    bool m_failed = false;
    TokenUsage m_usage;
};

} // namespace sb
