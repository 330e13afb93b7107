#pragma once

#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>

namespace sb {

// What every front door reads out of the engine's OpenAI chat messages and stream deltas, and the
// content it writes into them.

// A message's content as text: a string as it is, a list of parts as its text parts joined.
QString chatText(const QJsonValue &content);
// A message's or a delta's reasoning: DeepSeek and others name it "reasoning_content", OpenRouter
// "reasoning"; empty when there is none.
QString chatReasoning(const QJsonObject &messageOrDelta);

// Chat content parts as a message's content: one string when every part is text (the smallest body,
// and the form every dialect's adapter reads; several parts joined by a newline, as the adapters
// join them), the parts as they are otherwise.
QJsonValue chatContent(const QJsonArray &parts);

} // namespace sb
