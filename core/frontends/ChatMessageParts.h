#pragma once

#include <QJsonObject>
#include <QJsonValue>
#include <QString>

namespace sb {

// What every front door reads out of the engine's OpenAI chat messages and stream deltas.

// A message's content as text: a string as it is, a list of parts as its text parts joined.
QString chatText(const QJsonValue &content);
// A message's or a delta's reasoning: DeepSeek and others name it "reasoning_content", OpenRouter
// "reasoning"; empty when there is none.
QString chatReasoning(const QJsonObject &messageOrDelta);

} // namespace sb
