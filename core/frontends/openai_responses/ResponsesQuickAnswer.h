#pragma once

#include "frontends/openai_responses/ResponseFrame.h"

#include <QByteArray>
#include <QByteArrayView>

#include <optional>

namespace sb {

class JsonObjectScan;

// The usual chat completion — one choice, a text answer, a finish reason and usage — written as
// the Responses API's response object straight from its bytes, the answer's string literal copied
// in, with what ResponsesAnswer::write makes of the parsed completion: parsing the completion into
// a QJsonObject and building the output as QJsonArrays was half of what answering cost. "Not sure"
// (std::nullopt) for tool calls, reasoning, a refusal, content parts, several choices or anything
// unusual, which ResponsesAnswer::write answers.
std::optional<QByteArray> quickWriteResponse(QByteArrayView completion, const ResponseFrame &frame);
// The same for a completion already scanned (`scan` of `completion`). Only its choices and usage are
// read, so a provider's answer serves before its "model" and "created" are rewritten.
std::optional<QByteArray> quickWriteResponse(QByteArrayView completion, const JsonObjectScan &scan, const ResponseFrame &frame);

} // namespace sb
