#pragma once

#include "common/json/JsonObjectScan.h"

#include <QByteArray>
#include <QString>

#include <optional>

namespace sb {

// The usual chat request — text turns of system, developer, user and assistant with string
// content; model, max_tokens or max_completion_tokens, stream, temperature, top_p — written
// straight into the Messages API body AnthropicAdapter::translateRequest makes of it (system
// turns joined, consecutive turns of one role merged). std::nullopt for anything else (tools,
// tool results, images, stop sequences, a user id, …), which the object path translates.
// `chat` must be the bytes `scan` accepted; `model` the upstream model (empty: the client's).
struct AnthropicQuickRequest {
    QByteArray body;
    bool stream = false;
};
std::optional<AnthropicQuickRequest> quickAnthropicRequest(const QByteArray &chat, const JsonObjectScan &scan, const QString &model);

} // namespace sb
