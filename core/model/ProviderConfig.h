#pragma once

#include <QString>

#include <chrono>
#include <vector>

namespace sb {

using namespace std::chrono_literals;

// Labels of the failure domains a channel lives in (isolation beyond one provider: egress, account, region):
// failover prefers a channel that shares none of them with the one that just failed.
struct FailureDomain {
    QString account;     // billing account / organisation
    QString region;      // e.g. "us-east"
    QString egressProxy; // optional HTTP(S) proxy URL the upstream client sends this channel through

    bool sharesAnyWith(const FailureDomain &other) const;
};

struct ApiKeyConfig {
    int id = 0;
    QString label;          // "team key", "backup"
    QString secret;         // never logged, never shown whole (see common/SecretMask.h)
    bool enabled = true;
    QString disabledReason; // set when disabled, e.g. "401 from provider at 12:04"
    // Set by the engine, not the user: the provider refused this key (401/403, a spent quota). The
    // database keeps it (table key_refusals) for this secret, so a restart or an edit elsewhere does
    // not send the key out again; a new secret for the key, or re-enabling it, clears it. Saving a
    // configuration never writes these two (ConfigRepository::recordKeyRefused does).
    QString refusedReason{}; // (braced so the {id, label, secret, enabled, reason} initialisers stay warning-free)
    qint64 refusedAtMs = 0; // wall-clock ms of the refusal; 0 = not refused
    bool refused() const { return refusedAtMs > 0; }
    // Set when the configuration is loaded, never saved: the store that holds this key's secret
    // could not give it (a keyring that does not answer). The key is then out of rotation and the
    // provider gets no request that would go out without it.
    QString unreadableReason{};
    bool secretUnreadable() const { return !unreadableReason.isEmpty(); }
};

struct ProviderConfig {
    int id = 0;
    QString name;    // unique, e.g. "openai-main"
    // "openai_compat", "anthropic", "gemini", "dashscope", "ernie" (model/DialectRules.h); the
    // default is the JSON format's, so a provider built in code means the same as one left unsaid.
    QString dialect = QStringLiteral("openai_compat");
    // e.g. "https://api.openai.com/v1"; with or without the dialect's version path (CONFIG_FORMAT.md, "Base URLs")
    QString baseUrl;
    bool enabled = true;
    // openai_compat only: the upstream also serves OpenAI's Responses API at <baseUrl>/responses, so
    // a Responses request goes to it nearly as sent instead of translated into chat completions.
    // Off by default: most OpenAI-compatible servers have only /chat/completions.
    bool responsesApi = false;

    // TLS to the provider (https base URLs, and an https egress proxy): a PEM file of the CAs to
    // trust instead of the system's (a local server with its own CA, a TLS-inspecting corporate
    // egress); empty = the system's. An absolute path; parsed once, shared by every connection.
    QString caBundle;
    // The provider's certificate and host name are not checked at all: anyone on the path could
    // read the keys and the answers. Only ever this provider's explicit choice (a lab server with a
    // throwaway certificate), warned about in the dialog and in the log whenever it is applied.
    bool tlsSkipVerify = false;
    // Offer HTTP/2 to an https provider (ALPN) and, if it takes it, multiplex requests over few
    // connections through libcurl. Off by default: HTTP/1.1 connections kept alive in the engine's
    // own client cost less per request and a broken connection takes one request with it, not
    // every stream on it; the way nginx, Envoy and the other gateways talk to their upstreams.
    bool http2 = false;

    // Split budgets: equal 30 s budgets doubled the wait during incidents.
    std::chrono::milliseconds connectTimeout = 5s;
    std::chrono::milliseconds primaryTimeout = 30s;
    std::chrono::milliseconds fallbackTimeout = 20s;

    // Token bucket per provider (second tier of defence: one provider's overflow stays its own). 0 = unlimited.
    int requestsPerMinute = 0;
    int tokensPerMinute = 0;
    int burst = 0; // extra requests allowed at once above the steady rate; 0 = rpm/6

    FailureDomain domain;
    std::vector<ApiKeyConfig> keys;
};

} // namespace sb
