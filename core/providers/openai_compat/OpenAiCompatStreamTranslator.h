#pragma once

#include "providers/ProviderAdapter.h"

#include <QString>

namespace sb {

// OpenAI-compatible streams are already chat.completion.chunk events: each is forwarded as soon as
// it arrives with only "model" rewritten to what the client asked for. What this adds is judgement:
// an {"error":…} event is an error, not a chunk; a stream that stops before "data: [DONE]" (or at
// least a finish_reason) is cut, and one that ends with neither content nor a finish reason is no
// answer; chunks before the first content are a preamble (StreamStep::preamble); and the usage
// chunk we asked for on the client's behalf is stripped again when the client did not ask for it.
class OpenAiCompatStreamTranslator final : public StreamTranslator {
public:
    OpenAiCompatStreamTranslator(QString clientModel, bool clientWantsUsage);

    StreamStep onEvent(const SseEvent &event) override;
    StreamStep onEnd() override;

private:
    // Text, a refusal, reasoning or a tool call: something of the answer, not only its role.
    static bool deltaCarriesSomething(const QJsonObject &delta);
    static Outcome emptyStream();

    QString m_clientModel;
    bool m_clientWantsUsage;
    bool m_done = false;        // [DONE] seen
    bool m_sawFinish = false;   // some choice carried a finish_reason
    bool m_sawContent = false;  // some delta carried something of the answer
    bool m_failed = false;      // an error was reported; nothing after it counts
};

} // namespace sb
