#pragma once

#include "common/Random.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <limits>
#include <optional>
#include <utility>
#include <vector>

namespace sb::sim {

// A random quantity of a scenario (TTFT in ms, tokens per second, a latency spike). Written in JSON
// either as a plain number (constant) or as {"dist": "...", ...}; see SCENARIO_FORMAT.md.
struct Distribution {
    enum class Kind { Constant, Uniform, Normal, LogNormal, Exponential };
    Kind kind = Kind::Constant;
    double a = 0.0; // constant value / min / mean / median / mean
    double b = 0.0; // - / max / stddev / sigma / -
    double min = 0.0;
    double max = std::numeric_limits<double>::infinity();

    static Distribution constant(double value) { return Distribution{Kind::Constant, value, 0.0}; }
    double sample(Random &random) const;
    double mean() const;
};

// What a fault makes one request see. Names are the JSON spellings (SCENARIO_FORMAT.md).
enum class SimError {
    None,
    Http500,
    Http503,
    Http429,
    Http429RetryAfter,
    BodyRateLimit,   // HTTP 200 whose body (or first SSE event) is a rate-limit error
    FirstEventError, // HTTP 200 SSE whose first event is an error
    MidStreamError,  // an error event after half the answer
    StreamCut,       // the connection ends after half the answer, without the end marker
    ConnectionReset, // the connection is closed without any response
    ConnectRefused,  // nothing listens (whole windows only; per request it degrades to a reset)
    Hang,            // never answers; the client's timeout has to end it
    SlowTokens,      // answers, with tokens/s cut by the fault's factor
    // 2xx that are not answers, and errors inside a 200 (MalformedWire), sent at once.
    MalformedAnswer,    // the dialect's answer object without the answer in it (stream: that JSON under an SSE header)
    EmptyObject,        // HTTP 200 whose body is {}
    NotJson,            // HTTP 200 whose body is an HTML page
    TruncatedAnswer,    // HTTP 200, cleanly framed, whose body stops halfway (a stream: its events, no end marker)
    SseAnswer,          // a request for a whole answer gets an event stream (a stream request its usual one)
    EmptyStream,        // a stream with neither content nor a finish reason, ended cleanly (whole: an empty answer)
    DisagreeingError,   // HTTP 200 whose error says "invalid request" in one field, "overloaded" in another
    BodyInvalidRequest, // HTTP 200 whose error is the caller's: the prompt is too long
    Http429Hint,        // 429 with the wait in the dialect's own form (reset header, RFC 3339 instant, retryDelay)
    // 404s: the endpoint that is not there, and the model that is not there.
    WrongPath,          // every request (chat and probe) gets a web server's 404 page for an unknown path
    UnknownModel,       // the dialect's own 404 for a model it does not serve
    // A 400 for a parameter or limit of this provider's own (an unsupported parameter, its
    // max_tokens, a DashScope `parameters.*`, an ERNIE field), which another provider may accept.
    ProviderParamError,
    // Streams that break once part of the answer is out (the fault's after_chars says where).
    StreamStall,     // the answer stops, the connection stays open: only a stall deadline ends it
    ErrorAfterStart, // the stream's start (role chunk, message_start…), then an error event before any text
};
inline constexpr int SimErrorCount = 27;

const char *toString(SimError error);
std::optional<SimError> simErrorFromString(QStringView text);

struct ErrorMixEntry {
    SimError error = SimError::Http500;
    double weight = 1.0;
};

struct FaultSpec {
    enum class Type { Errors, Blackout, Flapping, LatencySpike, SlowTokens };
    Type type = Type::Errors;
    double from = 0.0; // scenario seconds since the start
    double to = std::numeric_limits<double>::infinity();
    double probability = 1.0;       // errors, latency_spike
    std::vector<ErrorMixEntry> mix; // errors, blackout, flapping: which error a failing request gets
    double downSeconds = 10.0;      // flapping: down this long …
    double upSeconds = 10.0;        // … then up this long, repeating from `from`
    Distribution extraMs;           // latency_spike: added to TTFT
    double factor = 10.0;           // slow_tokens: tokens/s divided by this
    int retryAfterSeconds = 2;      // http_429_retry_after and http_429_hint (scenario seconds)
    // mid_stream_error, stream_cut, stream_stall: the answer's characters sent before the break;
    // -1: half the answer. A cut with it set also sends the first half of the next event's bytes.
    int afterChars = -1;
    // mid_stream_error, stream_cut, stream_stall: the break comes halfway through the answer's tool
    // call or its reasoning instead (an answer without one breaks as if this were not set).
    enum class Inside { Anywhere, ToolCall, Reasoning };
    Inside inside = Inside::Anywhere;

    bool activeAt(double t) const { return t >= from && t < to; }
};

struct KeySpec {
    KeySpec() = default;
    // So that {secret, rpm} reads as before the client secret, with no member left to warn about.
    KeySpec(QByteArray secret, int rpm = 0, QByteArray clientSecret = {})
        : secret(std::move(secret)), rpm(rpm), clientSecret(std::move(clientSecret))
    {
    }

    QByteArray secret;
    int rpm = 0; // requests per (scenario) minute for this key; 0 = unlimited
    // ERNIE only: with a client secret, `secret` is an API key that is exchanged for access tokens
    // (POST /oauth/2.0/token) and never sent to the chat endpoint itself; the engine's key for it is
    // "secret:clientSecret" (DrillEngineConfig).
    QByteArray clientSecret;
};

enum class Language { English, Chinese, Vietnamese, Mixed };
const char *toString(Language language);

struct ChunkingSpec {
    enum class Mode { Event, Bytes };
    Mode mode = Mode::Event;
    int minBytes = 1; // bytes: each write is between minBytes and maxBytes long, cut anywhere
    int maxBytes = 16;
};

struct ProviderSpec {
    QString name;
    QString dialect; // openai_compat, anthropic, gemini, dashscope, ernie
    quint16 port = 0; // 0 = any free port on 127.0.0.1
    QStringList models;
    std::vector<KeySpec> keys; // empty: any key is accepted
    int tokenLifetimeSeconds = 2592000; // ERNIE: what an issued access token's expires_in says (Baidu's 30 days)
    Distribution ttftMs = Distribution::constant(200);
    Distribution tokensPerSecond = Distribution::constant(50);
    int completionTokens = 24; // tokens per answer
    // Asked to continue an answer of its own passage (an assistant prefill, or the engine's
    // continuation instruction after it), the provider first repeats this many of its last
    // characters, as models told to continue often do.
    int continuationOverlap = 0;
    // openai_compat and anthropic: each answer begins with this many tokens of reasoning (OpenAI's
    // reasoning_content, Anthropic's thinking block).
    int reasoningTokens = 0;
    // openai_compat and anthropic: a request that offers tools, and whose last turn is not a tool's
    // result, is answered with its text and then a call of the first tool offered, the arguments
    // streamed a few characters an event.
    bool toolCalls = false;
    Language language = Language::English;
    ChunkingSpec chunking;
    std::vector<FaultSpec> faults;
    // Both set: the provider serves HTTPS with this certificate and key (PEM), as hosted providers
    // do, and is reached by name at https://localhost:PORT, so the certificate must name localhost.
    QString tlsCertFile;
    QString tlsKeyFile;
    bool servesTls() const { return !tlsCertFile.isEmpty(); }
};

struct ModelWeight {
    QString model;
    double weight = 1.0;
};

struct LoadSpec {
    enum class Process { Constant, Poisson };
    double rate = 1.0; // requests per scenario second
    Process process = Process::Constant;
    double duration = 60.0; // scenario seconds
    int concurrency = 64;   // requests in flight at most; arrivals beyond it are dropped and counted
    double streamRatio = 1.0;
    std::vector<ModelWeight> models;
    enum class Target { Proxy, Direct };
    Target target = Target::Proxy;
    QString directProvider;  // target direct: the provider the load goes to (default: the first)
    double timeoutSeconds = 60.0; // client-side, scenario seconds
    bool tools = false; // each request offers one function tool, which providers with tool_calls call
};

// What the report measures outages against (time to fallback, time to recovery).
struct ReportSpec {
    QStringList primaryChannels; // channel names as x-switchboard-channel reports them
    std::optional<double> outageFrom; // default: the first blackout of the first provider that has one
    std::optional<double> outageTo;
    int settleRequests = 5; // "fully on the fallback" = this many requests in a row never touching a primary
};

// How a proxy is set up for the drill when the drill sets it up itself (the console's Drills page,
// the tests): one channel per provider, named like the provider, serving its first model.
struct ProxyRouteSpec {
    QString model;                          // the logical model the load asks for
    QString strategy = QStringLiteral("priority");
    QStringList channels;                   // provider names, in priority order
};

struct ProxySpec {
    QString breakerPreset = QStringLiteral("launch-day"); // "relay" or "launch-day"
    std::vector<ProxyRouteSpec> routes; // default: each load model → the providers listing it, in order
    // Engine settings the drill runs with, by their configuration keys ("health.degrade_below": 0),
    // applied after the breaker preset.
    QJsonObject settings;
};

struct Scenario {
    QString name;
    QString summary;     // one line for a list of drills
    QString rehearses;   // what it rehearses, one line
    QString description;
    double timeScale = 1.0; // 10 = ten times faster than real time
    quint64 seed = 1;
    std::vector<ProviderSpec> providers;
    LoadSpec load;
    ReportSpec report;
    ProxySpec proxy;

    const ProviderSpec *provider(const QString &name) const;

    // Parses a scenario; on failure returns std::nullopt and fills `errors` with sentences that say
    // what to fix.
    static std::optional<Scenario> fromJson(const QJsonObject &json, QStringList *errors);
    static std::optional<Scenario> fromFile(const QString &path, QStringList *errors);
};

} // namespace sb::sim
