#pragma once

#include "frontends/openai_responses/ResponsesRequest.h"

#include <QByteArray>

#include <optional>

namespace sb {

// The usual Responses request — a string input or plain-text messages, instructions, a token limit,
// sampling, stream and store — checked on its bytes with the rules ResponsesRequest::parse applies,
// and its chat body written as bytes with the client's string literals copied in: parsing it into
// values, checking those and building the chat body as a QJsonObject was a third of what the door
// cost. It says yes, with the request as parse() reads it, its input items as `inputJson` and its
// chat body as `chatBodyJson`, or "not sure": tools, content parts, previous_response_id, metadata,
// anything unusual, all of which go to the full parse.
std::optional<ResponsesRequest> quickCheckResponsesRequest(const QByteArray &body);

} // namespace sb
