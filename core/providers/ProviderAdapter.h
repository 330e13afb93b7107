#pragma once

#include "common/HttpHeaders.h"
#include "model/EngineConfig.h"
#include "model/Outcome.h"
#include "model/TokenUsage.h"
#include "common/json/ClientBody.h"
#include "net/UpstreamRequest.h"
#include "providers/common/AccessTokens.h"
#include "providers/common/OpenAiAnswer.h"
#include "providers/common/UpstreamOutcome.h"
#include "stream/SseEvent.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <QUrl>

#include <memory>
#include <optional>
#include <vector>

namespace sb {

// What an adapter needs to address one attempt: the provider, the channel and the key chosen.
struct AdapterContext {
    const ProviderConfig *provider = nullptr;
    const ChannelConfig *channel = nullptr;
    QString apiKey; // plaintext, only ever placed in a header; never logged
    // The client's bytes the OpenAI body was parsed from, while the body is still exactly what they
    // say (empty otherwise): a pass-through dialect may forward them instead of serialising again.
    QByteArray clientBody = {}; // (a default, so that contexts built without it draw no warning)
};

// What translating one upstream stream event produced.
struct StreamStep {
    // OpenAI `chat.completion.chunk` JSON payloads, each to be sent as "data: <json>\n\n".
    std::vector<QByteArray> chunks;
    // Set when the event is an error (first event of a 200 stream, or mid-stream). The caller decides
    // the phase: before any chunk reached the client it fails over, after it ends the stream.
    std::optional<Outcome> error;
    bool finished = false;          // the upstream said the answer is complete
    std::optional<TokenUsage> usage; // usage carried by this event, if any
    // The chunks carry nothing of the answer yet (the assistant's role, an empty delta). Until the
    // client's stream has started they wait for the first chunk that does: a stream that fails or
    // ends before any content can still fail over.
    bool preamble = false;
};

// Per-attempt, stateful translation of one upstream SSE stream into OpenAI chunks.
class StreamTranslator {
public:
    virtual ~StreamTranslator() = default;
    virtual StreamStep onEvent(const SseEvent &event) = 0;
    // The upstream connection ended. A stream that ends without its dialect's end marker is a
    // PROVIDER_DOWN error (a cut stream), never a clean finish; so is one that ended, marker or
    // not, with neither content nor a finish reason (an empty answer is not an answer).
    virtual StreamStep onEnd() = 0;

    // Unix seconds for the "created" field of chunks a translator builds itself (dialects whose
    // events carry no timestamp). core has no wall clock of its own, so the caller sets this from
    // Clock::wallMillis() before the first event; pass-through dialects keep the upstream's value.
    void setCreated(qint64 unixSeconds) { m_created = unixSeconds; }
    qint64 created() const { return m_created; }

protected:
    qint64 m_created = 0;
};

// One provider dialect: request translation, error normalisation and stream translation. Adding a
// dialect = one folder under core/providers/ + one line in ProviderRegistry.cpp + wire fixtures.
class ProviderAdapter {
public:
    virtual ~ProviderAdapter() = default;

    virtual QString dialect() const = 0;        // "openai_compat", "anthropic", …
    virtual QString displayName() const = 0;    // "OpenAI-compatible", "Anthropic Messages", …
    virtual QString defaultBaseUrl() const = 0; // what the provider dialog fills in

    // Translates an OpenAI chat.completions request body (already parsed and validated for shape)
    // into this dialect. `upstreamModel` replaces the caller's logical model name.
    virtual UpstreamRequest chatRequest(const QJsonObject &openAiBody, const AdapterContext &context) const = 0;
    // What the proxy calls to build a chat attempt. The default parses the client's body (if no one
    // has yet) and calls chatRequest(); a pass-through dialect overrides it and forwards the
    // client's bytes without their ever being parsed into values (the proxy's hot path).
    virtual UpstreamRequest chatRequestFor(const ClientBody &body, const AdapterContext &context) const
    {
        return chatRequest(body.object(), context);
    }
    // A request that came in this dialect's own client API (`clientApi`, e.g. "anthropic_messages"),
    // forwarded nearly as sent: the client's bytes with only the model set to the channel's, and the
    // client's protocol headers (never its key) in `clientHeaders`. std::nullopt when the dialect
    // has no such API, which sends the request through chatRequestFor() instead.
    virtual std::optional<UpstreamRequest> nativeRequest(QStringView clientApi, const QByteArray &clientBytes,
                                                         const HttpHeaders &clientHeaders, const AdapterContext &context) const
    {
        Q_UNUSED(clientApi);
        Q_UNUSED(clientBytes);
        Q_UNUSED(clientHeaders);
        Q_UNUSED(context);
        return std::nullopt;
    }
    // The answer to a nativeRequest() of `clientApi`, read for the engine: the stream's events as
    // OpenAI chunks (for the cache, the history and the token counts; the client gets the events
    // themselves), a whole answer classified and read into *answer and *usage. The defaults are the
    // dialect's own chat readers, right when the client's API is the dialect's (Anthropic's).
    virtual std::unique_ptr<StreamTranslator> nativeStreamTranslator(QStringView clientApi, const QJsonObject &openAiBody) const
    {
        Q_UNUSED(clientApi);
        return streamTranslator(openAiBody);
    }
    // `answer` is null when only the verdict and the usage are wanted (nothing caches the answer,
    // which goes to the client as it came): a dialect whose translation costs something then
    // reads no more than that.
    virtual Outcome classifyNativeAnswer(QStringView clientApi, int httpStatus, const HttpHeaders &headers, const QByteArray &body,
                                         OpenAiAnswer *answer, TokenUsage *usage) const
    {
        Q_UNUSED(clientApi);
        OpenAiAnswer unused;
        return classifyAnswer(httpStatus, headers, body, false, answer ? answer : &unused, usage);
    }
    // OpenAI /v1/embeddings; std::nullopt when the dialect has no embeddings endpoint.
    virtual std::optional<UpstreamRequest> embeddingsRequest(const QJsonObject &openAiBody,
                                                            const AdapterContext &context) const = 0;
    // A light request for heartbeats and "Test connection" (e.g. list models).
    virtual UpstreamRequest probeRequest(const AdapterContext &context) const = 0;

    // Whether a chat request whose last message is the assistant's own goes on from that text (an
    // assistant prefill), as Anthropic's Messages API does; otherwise a broken stream's continuation
    // asks for the rest in words (StreamContinuation::kInstruction).
    virtual bool takesAssistantPrefill() const { return false; }

    // Whether probeRequest() is billed: a dialect with no free endpoint to ask probes with the
    // smallest chat there is, and HeartbeatProber then probes its idle channels less often.
    virtual bool probeIsBilled(const AdapterContext &context) const
    {
        Q_UNUSED(context);
        return false;
    }

    // Keys exchanged for access tokens (ARCHITECTURE.md, "Keys exchanged for access tokens"): the
    // token endpoint's request for `context.apiKey`, or std::nullopt for a key that is sent as given
    // (every dialect but ERNIE, and an ERNIE key that is a token already). AccessTokens runs it and
    // caches the answer; the chat, embeddings and probe requests then get the token as their key.
    virtual std::optional<UpstreamRequest> tokenRequest(const AdapterContext &context) const
    {
        Q_UNUSED(context);
        return std::nullopt;
    }
    // False when tokenRequest() never asks for an exchange, so that a call skips setting one up.
    virtual bool exchangesKeys() const { return false; }
    // The token endpoint's answer: the token and its lifetime, or why not (AUTH_ERROR for
    // credentials the provider refused, so the key is disabled as a 401 would disable it).
    virtual AccessTokenGrant readTokenAnswer(int httpStatus, const HttpHeaders &headers, const QByteArray &body) const
    {
        Q_UNUSED(headers);
        Q_UNUSED(body);
        AccessTokenGrant grant;
        grant.failure = Outcome::local(OutcomeKind::ProviderDown, QStringLiteral("HTTP %1 from a dialect with no token endpoint").arg(httpStatus));
        return grant;
    }
    // The provider refused an exchanged token itself (ERNIE's 110, invalid, and 111, expired), not
    // the credentials behind it: a fresh exchange and one more try of the same attempt may answer.
    virtual bool refusesAccessToken(const Outcome &outcome) const
    {
        Q_UNUSED(outcome);
        return false;
    }

    // ErrorMap: a complete response (status + headers + body) → Outcome. A 200 whose body carries an
    // error is that error, never a success.
    virtual Outcome classify(int httpStatus, const HttpHeaders &headers, const QByteArray &body) const = 0;
    // The answer to probeRequest(). The same as classify() unless the probe's endpoint answers in
    // another shape than a completion (DashScope's probe lists models in its OpenAI-compatible mode).
    virtual Outcome classifyProbe(int httpStatus, const HttpHeaders &headers, const QByteArray &body) const
    {
        return classify(httpStatus, headers, body);
    }

    // A complete successful non-stream body → an OpenAI chat.completion object (model set to the
    // caller's logical model by the caller).
    virtual QJsonObject chatResponse(const QByteArray &body, TokenUsage *usage) const = 0;
    // A complete successful embeddings body → an OpenAI embeddings list object.
    virtual QJsonObject embeddingsResponse(const QByteArray &body, TokenUsage *usage) const = 0;

    // A 2xx that classify() found no error in, judged by its shape: what keeps it from being an
    // answer of this dialect (a chat completion, or an embeddings list when `embeddings`), as a
    // phrase for the attempt's message ("a chat answer without choices"), or std::nullopt when it
    // is one. Such a 2xx is PROVIDER_DOWN, never an empty success (ARCHITECTURE.md, "Errors and
    // outcomes"). classify() alone judges probes, whose endpoints answer in other shapes.
    virtual std::optional<QString> answerProblem(const HttpHeaders &headers, const QByteArray &body, bool embeddings) const = 0;

    // What the proxy calls on a complete buffered answer: classify(), answerProblem() and, for an
    // answer, chatResponse() (or embeddingsResponse() when `embeddings`) into *answer and *usage.
    // The default does exactly that and so parses the body more than once; a dialect that can do
    // better overrides it (the proxy's hot path): parse once, or pass the provider's bytes through.
    virtual Outcome classifyAnswer(int httpStatus, const HttpHeaders &headers, const QByteArray &body,
                                   bool embeddings, OpenAiAnswer *answer, TokenUsage *usage) const
    {
        Outcome outcome = classify(httpStatus, headers, body);
        if (!outcome.isSuccess())
            return outcome;
        if (std::optional<QString> problem = answerProblem(headers, body, embeddings))
            return malformedAnswerOutcome(httpStatus, *problem);
        *answer = OpenAiAnswer::fromObject(embeddings ? embeddingsResponse(body, usage) : chatResponse(body, usage));
        return outcome;
    }

    virtual std::unique_ptr<StreamTranslator> streamTranslator(const QJsonObject &openAiBody) const = 0;
};

} // namespace sb
