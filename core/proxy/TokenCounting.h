#pragma once

#include "model/EngineConfig.h"

#include <QByteArray>

#include <memory>

namespace sb {

class ResponseWriter;
class UpstreamTransport;
struct HttpRequest;

// POST /v1/messages/count_tokens: Anthropic's own count when the route has an enabled Anthropic
// channel with a key (its tokenizer is the one that bills), and the estimate made here otherwise or
// when that call fails. The response header x-switchboard-token-count says which ("anthropic" or
// "estimate").
void countTokens(const HttpRequest &request, const std::shared_ptr<ResponseWriter> &response, const EngineConfigPtr &config,
                 UpstreamTransport &upstream, int estimate);

} // namespace sb
