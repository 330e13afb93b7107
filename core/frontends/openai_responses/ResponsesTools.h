#pragma once

#include "frontends/openai_responses/ResponsesCheck.h"

#include <QJsonArray>
#include <QJsonValue>
#include <QSet>
#include <QStringList>

namespace sb::responses {

// The Responses `tools` → chat function tools. Function tools carry over; a custom tool becomes a
// function of one string parameter "input" and its name joins `customTools`; the tools of a
// namespace are declared under their own names; a built-in tool
// (web search, file search, …) runs on OpenAI's own servers and is refused with a 400 naming it.
bool chatTools(const QJsonValue &tools, Check &check, QJsonArray *out, QSet<QString> *customTools, QStringList *dropped);

// `tool_choice` → the chat tool_choice (undefined when there is nothing to send). An allowed_tools
// choice narrows `chatTools` itself to the allowed ones and sends its mode, which every dialect
// understands.
bool chatToolChoice(const QJsonValue &choice, const QSet<QString> &customTools, Check &check, QJsonArray *chatTools,
                    QJsonValue *out);

// `text` → the chat response_format (undefined for plain text). text.verbosity has no chat
// counterpart and is named in `dropped`.
bool chatResponseFormat(const QJsonValue &text, Check &check, QJsonValue *out, QStringList *dropped);

} // namespace sb::responses
