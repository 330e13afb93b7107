#pragma once

#include "sim/DialectWire.h"
#include "sim/Scenario.h"

#include <QByteArray>

#include <map>
#include <mutex>
#include <vector>

namespace sb::sim {

// ERNIE's OAuth endpoint as Baidu runs it (POST or GET /oauth/2.0/token?grant_type=client_credentials
// &client_id=<API key>&client_secret=<secret key>): the pair the provider was configured with gets an
// access token and its lifetime, anything else Baidu's {"error", "error_description"} with a 401;
// and the chat endpoint's check of a token it issued. With no keys configured every pair is granted,
// as every key is admitted then. Thread-safe: the fake provider's workers share one.
class TokenIssuer {
public:
    TokenIssuer(const std::vector<KeySpec> &keys, int lifetimeSeconds);

    // The token endpoint's answer to one request (its query and, for a form POST, its body), at
    // scenario time `now`.
    SimReply exchange(const QByteArray &query, const QByteArray &body, double now);

    enum class Check { NotIssued, Valid, Expired, Revoked };
    // What a chat call's access_token is: a token this issuer granted (still valid: *apiKey is the
    // API key it was granted to, which the per-key limits count), one that has expired or been
    // revoked, or not one of its tokens (a raw token, checked against the keys as given).
    Check check(const QByteArray &token, double now, QByteArray *apiKey) const;

    // An API key that has a secret key: good only for the exchange, never as a token itself.
    bool isApiKey(const QByteArray &key) const { return m_secrets.count(key) != 0; }

    // Every token granted so far becomes invalid (ERNIE's 110) or expired (111) at once: what a
    // provider that rotated its tokens, or a clock that ran past their lifetime, looks like.
    void revokeAll();
    void expireAll();

    struct Stats {
        quint64 exchanges = 0; // requests to the token endpoint
        quint64 granted = 0;
        quint64 refused = 0;
    };
    Stats stats() const;

private:
    struct Issued {
        QByteArray apiKey;
        double expiresAt = 0;
        bool revoked = false;
    };
    std::map<QByteArray, QByteArray> m_secrets; // API key → secret key, for keys that have one
    const bool m_anyPair;
    const int m_lifetime;
    mutable std::mutex m_mutex;
    std::map<QByteArray, Issued> m_issued;
    Stats m_stats;
};

} // namespace sb::sim
