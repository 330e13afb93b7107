#pragma once

#include "model/Outcome.h"

#include <QString>

namespace sb {

// The sentence a misconfigured channel is shown with in the console, the admin API, the log and a
// client's error: what the upstream said, in its own words and status (never a key), and what to
// change, e.g. "Check the base URL of provider openai-main: POST https://api.example.com/v1/chat/completions
// answered HTTP 404 'Not Found' (no such endpoint)". `keyCount` is the provider's configured keys,
// for the sentence of a refusal (0: the provider asked for a key it was never given).
QString misconfigurationReason(const Outcome &outcome, Misconfiguration cause, const QString &providerName, int keyCount);

} // namespace sb
