#pragma once

#include "providers/ProviderAdapter.h"

#include <QJsonObject>
#include <QString>
#include <QStringView>

namespace sb {

// Helpers shared by the dialects for the OpenAI-side formats they all produce.

// A provider's error message made safe to log and show: keys echoed back by the provider (some
// quote the rejected key) are masked with maskSecret, and the text is cut to a readable length.
QString cleanProviderMessage(const QString &raw);

// OpenAI "usage" object ↔ TokenUsage. Cache reads come from prompt_tokens_details.cached_tokens
// (or DeepSeek's top-level prompt_cache_hit_tokens), cache writes from
// prompt_tokens_details.cache_write_tokens: not OpenAI's (it charges nothing to write its cache)
// but OpenRouter's name, which the engine also uses to carry Anthropic's
// cache_creation_input_tokens through its OpenAI form to the front doors.
TokenUsage usageFromOpenAi(const QJsonObject &usage);
// The same from the usage object's bytes: plain integers are read straight from them (the proxy's
// hot path), anything else through Qt's parser and usageFromOpenAi.
TokenUsage usageFromOpenAiJson(QByteArrayView usage);
// The same again for usage bytes a JsonObjectScan has already accepted with the answer around
// them: walked without being checked a second time (that check was two thirds of the read).
TokenUsage usageFromScannedOpenAiJson(QByteArrayView usage);
QJsonObject usageToOpenAi(const TokenUsage &usage);
// That object's bytes as compactJson writes them, without building it: an answer translated on
// its bytes spent more on this object than on the rest of its translation.
QByteArray usageToOpenAiJson(const TokenUsage &usage);
// {"cached_tokens", "cache_write_tokens"} for "prompt_tokens_details", each only when known (a
// known write count alone still says cached_tokens 0); empty when the provider reported neither.
QJsonObject openAiPromptDetails(const TokenUsage &usage);

// A compact JSON serialisation of an object (what goes after "data: ").
QByteArray compactJson(const QJsonObject &object);

// An event payload with invalid UTF-8 inside (an upstream that cut a character between two deltas,
// which valid JSON cannot express) would fail JSON parsing and kill the whole stream; instead each
// broken sequence becomes U+FFFD (see Utf8Reassembler) and the stream goes on. Returns the input
// unchanged, without copying, in the normal case.
QByteArray sanitizeUtf8(const QByteArray &bytes, bool *replaced = nullptr);

// Parses a JSON object; false when the bytes are not one.
bool parseJsonObject(const QByteArray &bytes, QJsonObject *out);

} // namespace sb
