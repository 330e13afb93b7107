#pragma once

#include "sim/Scenario.h"
#include "sim/SimAnswer.h"
#include "common/Clock.h"
#include "common/HttpHeaders.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <vector>

namespace sb::sim {

enum class Dialect { OpenAiCompat, Anthropic, Gemini, DashScope, Ernie };
std::optional<Dialect> dialectFromString(QStringView text);

// What the fake provider makes of one incoming request.
struct SimRequest {
    enum class Kind { Chat, Probe, Token, Embeddings, Unknown };
    Kind kind = Kind::Unknown;
    bool stream = false;
    QString model;
    QByteArray apiKey;
    int promptTokens = 0;
    bool textResultFormat = false; // DashScope result_format "text"
    bool responses = false;        // OpenAI-compatible only: POST …/responses, OpenAI's Responses API (ResponsesApiWire)
    QStringList inputs;            // Embeddings: the texts to embed, in order
    QByteArray partial;            // Chat: the partial answer it asks to be continued (partialAnswerOf)
    QString tool;                  // Chat: the first tool it offers (firstToolOf)
    bool toolResult = false;       // Chat: its last turn carries a tool's result
};

// A complete HTTP answer.
struct SimReply {
    int status = 200;
    HttpHeaders headers;
    QByteArray body;
};

// The wire format of one dialect, both ways: recognising requests and producing the exact bytes a
// real provider sends (bodies, SSE events, errors in the forms each one uses — HTTP status, a 200
// body, the first event or a mid-stream event). Pure and stateless, so tests compare it with the
// proxy's fixtures byte for byte where they need to.
class DialectWire {
public:
    // `clock` dates the answers ("created"): the scenario's clock in a provider, the real one by default.
    explicit DialectWire(Dialect dialect, const Clock &clock = SystemClock::instance()) : m_dialect(dialect), m_clock(&clock) {}
    Dialect dialect() const { return m_dialect; }

    SimRequest parse(const QByteArray &method, const QByteArray &path, const QByteArray &query,
                     const HttpHeaders &headers, const QByteArray &body) const;

    // Non-stream success.
    SimReply complete(const SimRequest &request, const QByteArray &id, const QByteArray &text, int completionTokens) const;
    // Stream success: the response headers, then head() + one delta() per token + tail().
    HttpHeaders streamHeaders() const;
    QByteArray streamHead(const SimRequest &request, const QByteArray &id) const;
    QByteArray streamDelta(const SimRequest &request, const QByteArray &id, const QByteArray &piece, int index) const;
    // `text` is the whole answer, which the Responses API repeats in its done events.
    QByteArray streamTail(const SimRequest &request, const QByteArray &id, int completionTokens, const QByteArray &text = {}) const;

    // An answer with reasoning or a tool call (SimAnswer): the same, piece by piece. A text-only
    // answer goes out exactly as the token forms above send it.
    SimReply complete(const SimRequest &request, const QByteArray &id, const SimAnswer &answer) const;
    QByteArray streamHead(const SimRequest &request, const QByteArray &id, const SimAnswer &answer) const;
    QByteArray streamPiece(const SimRequest &request, const QByteArray &id, const SimAnswer &answer, int index) const;
    QByteArray streamTail(const SimRequest &request, const QByteArray &id, const SimAnswer &answer) const;

    // Errors at the HTTP level (500, 503, 429 with or without Retry-After, 401 for an unknown key).
    SimReply httpError(int status, int retryAfterSeconds = 0) const;
    // A 429 that says how long to wait the way the dialect's provider does: OpenAI's
    // x-ratelimit-reset-requests duration ("14s", "1m30s"), Anthropic's anthropic-ratelimit-requests-reset
    // instant beside a Date, Gemini's RetryInfo retryDelay in the body; DashScope and ERNIE document
    // no form of their own, so theirs is Retry-After. No Retry-After beside the others: the engine
    // must read their own form.
    SimReply rateLimitHint(int waitSeconds) const;
    SimReply unknownKey() const;
    // What a web server answers for a path it does not have (the base URL points at the wrong place):
    // 404 with its own HTML page, nothing of the dialect in it.
    static SimReply wrongPath();
    // The dialect's own 404 for a model it does not serve; every one of them names the model.
    SimReply unknownModel(const QString &model) const;
    // The dialect's own way of saying "this key is over its limit" (per-key rpm).
    SimReply keyRateLimited(int retryAfterSeconds) const;
    // A refusal of a parameter or limit of this provider's own, in the form it really comes in: an
    // HTTP 400 with the dialect's error body (ERNIE: inside a 200, as Qianfan reports its errors),
    // for a stream request too, before any event.
    SimReply providerParamError() const;
    // A rate limit inside an HTTP 200 body (non-stream) …
    SimReply bodyRateLimit() const;
    // … or as an SSE event (first event of a 200 stream).
    QByteArray rateLimitEvent(const QByteArray &id) const;
    // A provider-side failure as an SSE event (first event or mid-stream).
    QByteArray errorEvent(const QByteArray &id) const;
    // The same for one request, in the form its API uses: for a Responses request, a stream that
    // fails before its first content (response.created, response.in_progress, response.failed),
    // or an `error` event after `tokensSent` deltas; errorEvent() / rateLimitEvent() otherwise.
    QByteArray firstEventError(const SimRequest &request, const QByteArray &id) const;
    QByteArray firstEventRateLimit(const SimRequest &request, const QByteArray &id) const;
    QByteArray midStreamError(const SimRequest &request, const QByteArray &id, int tokensSent) const;

    // Heartbeat / probe endpoints (list models); `down` answers the way the provider fails.
    SimReply probe(const QStringList &models, bool down) const;
    // The embeddings endpoint of the dialect (OpenAI's /embeddings, Gemini's batchEmbedContents,
    // DashScope's text-embedding, ERNIE's embeddings/<model>), in its own answer shape: one vector per
    // input, a bag of words (the same words in any case, order or punctuation give the same vector,
    // cosine 1; others another), so a semantic cache in front of it can hit.
    SimReply embeddings(const SimRequest &request) const;
    static std::vector<double> bagOfWords(const QString &text);

private:
    QByteArray jsonBody(int status, const char *type, const char *message) const;
    qint64 created() const { return m_clock->wallMillis() / 1000; }

    Dialect m_dialect;
    const Clock *m_clock; // a pointer, so that a DialectWire can be assigned
};

} // namespace sb::sim
