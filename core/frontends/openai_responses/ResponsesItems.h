#pragma once

#include "frontends/openai_responses/ResponsesCheck.h"

#include <QJsonArray>
#include <QJsonValue>
#include <QSet>
#include <QString>
#include <QStringList>

namespace sb::responses {

// The client's `input` as a list of items: a string becomes one user message of one input_text
// part, and an item with a "role" but no "type" is a message (OpenAI's "easy input message").
// Checks only the list's shape; the items themselves are checked by itemsToChat.
bool normalizedInput(const QJsonValue &input, Check &check, QJsonArray *items);

// Responses items → OpenAI chat.completions messages (the table in TRANSLATION.md beside this
// file). With `check`, the first item that is not a valid Responses item fails it, naming the field
// under `path` (a client's input). Without, such an item is left out and the rest still translate
// (items of earlier turns the proxy kept itself). `dropped` (may be null) names what was left out.
QJsonArray itemsToChat(const QJsonArray &items, const QSet<QString> &customTools, Check *check, QStringList *dropped,
                       const QString &path = QStringLiteral("input"));

} // namespace sb::responses
