#include "sim/Scenario.h"

#include "model/ConfigJson.h"
#include "model/EngineConfig.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>
#include <cmath>

namespace sb::sim {

namespace {

constexpr const char *kErrorNames[SimErrorCount] = {
    "none",           "http_500",          "http_503",         "http_429",   "http_429_retry_after",
    "body_rate_limit", "first_event_error", "mid_stream_error", "stream_cut", "connection_reset",
    "connect_refused", "hang",              "slow_tokens",
    "malformed_answer", "empty_object",     "not_json",         "truncated_answer", "sse_answer",
    "empty_stream",    "disagreeing_error", "body_invalid_request", "http_429_hint", "wrong_path",
    "unknown_model",   "provider_param_error", "stream_stall", "error_after_start",
};

const char *const kDialects[] = {"openai_compat", "anthropic", "gemini", "dashscope", "ernie"};

double normal(Random &random)
{
    // Box–Muller; one of the pair is enough here.
    const double u1 = std::max(random.uniform01(), 1e-12);
    const double u2 = random.uniform01();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

class Parser {
public:
    explicit Parser(QStringList *errors) : m_errors(errors) {}

    void error(const QString &sentence) { m_errors->append(sentence); }
    bool ok() const { return m_errors->isEmpty(); }

    double number(const QJsonObject &o, const char *key, double fallback, const QString &where, double min = -1e300)
    {
        const QJsonValue v = o.value(QLatin1String(key));
        if (v.isUndefined() || v.isNull())
            return fallback;
        if (!v.isDouble()) {
            error(QStringLiteral("%1: \"%2\" must be a number.").arg(where, QLatin1String(key)));
            return fallback;
        }
        if (v.toDouble() < min) {
            error(QStringLiteral("%1: \"%2\" must be at least %3.").arg(where, QLatin1String(key)).arg(min));
            return fallback;
        }
        return v.toDouble();
    }

    Distribution distribution(const QJsonValue &v, const Distribution &fallback, const QString &where)
    {
        if (v.isUndefined() || v.isNull())
            return fallback;
        if (v.isDouble()) {
            if (v.toDouble() < 0)
                error(QStringLiteral("%1 must not be negative.").arg(where));
            return Distribution::constant(v.toDouble());
        }
        if (!v.isObject()) {
            error(QStringLiteral("%1 must be a number or an object with \"dist\".").arg(where));
            return fallback;
        }
        const QJsonObject o = v.toObject();
        const QString dist = o.value(QLatin1String("dist")).toString(QStringLiteral("constant"));
        Distribution d;
        d.min = number(o, "min_clamp", 0.0, where);
        d.max = number(o, "max_clamp", std::numeric_limits<double>::infinity(), where);
        if (dist == QLatin1String("constant")) {
            d.kind = Distribution::Kind::Constant;
            d.a = number(o, "value", 0.0, where, 0.0);
        } else if (dist == QLatin1String("uniform")) {
            d.kind = Distribution::Kind::Uniform;
            d.a = number(o, "min", 0.0, where, 0.0);
            d.b = number(o, "max", d.a, where, 0.0);
            if (d.b < d.a)
                error(QStringLiteral("%1: \"max\" must not be below \"min\".").arg(where));
        } else if (dist == QLatin1String("normal")) {
            d.kind = Distribution::Kind::Normal;
            d.a = number(o, "mean", 0.0, where, 0.0);
            d.b = number(o, "stddev", 0.0, where, 0.0);
        } else if (dist == QLatin1String("lognormal")) {
            d.kind = Distribution::Kind::LogNormal;
            d.a = number(o, "median", 0.0, where, 0.0);
            d.b = number(o, "sigma", 0.5, where, 0.0);
        } else if (dist == QLatin1String("exponential")) {
            d.kind = Distribution::Kind::Exponential;
            d.a = number(o, "mean", 0.0, where, 0.0);
        } else {
            error(QStringLiteral("%1: unknown \"dist\" \"%2\"; use constant, uniform, normal, lognormal or exponential.")
                      .arg(where, dist));
        }
        return d;
    }

    std::vector<ErrorMixEntry> mix(const QJsonValue &v, const QString &where)
    {
        std::vector<ErrorMixEntry> out;
        if (v.isUndefined() || v.isNull())
            return out;
        auto add = [&](const QString &name, double weight) {
            // "500", "503", "429" are accepted as shorthand for the plain HTTP errors.
            QString key = name;
            if (key == QLatin1String("500") || key == QLatin1String("503") || key == QLatin1String("429"))
                key.prepend(QLatin1String("http_"));
            const auto e = simErrorFromString(key);
            if (!e || *e == SimError::None) {
                error(QStringLiteral("%1: unknown error kind \"%2\" (see SCENARIO_FORMAT.md for the list).").arg(where, name));
                return;
            }
            if (weight <= 0) {
                error(QStringLiteral("%1: the weight of \"%2\" must be positive.").arg(where, name));
                return;
            }
            out.push_back({*e, weight});
        };
        if (v.isString()) {
            add(v.toString(), 1.0);
        } else if (v.isArray()) {
            for (const QJsonValue &e : v.toArray())
                add(e.toString(), 1.0);
        } else if (v.isObject()) {
            const QJsonObject o = v.toObject();
            for (auto it = o.begin(); it != o.end(); ++it)
                add(it.key(), it.value().toDouble(0.0));
        } else {
            error(QStringLiteral("%1: \"mix\" must be a string, a list or an object of weights.").arg(where));
        }
        return out;
    }

    FaultSpec fault(const QJsonObject &o, const QString &where)
    {
        FaultSpec f;
        const QString type = o.value(QLatin1String("kind")).toString(o.value(QLatin1String("type")).toString());
        if (type == QLatin1String("errors"))
            f.type = FaultSpec::Type::Errors;
        else if (type == QLatin1String("blackout"))
            f.type = FaultSpec::Type::Blackout;
        else if (type == QLatin1String("flapping"))
            f.type = FaultSpec::Type::Flapping;
        else if (type == QLatin1String("latency_spike"))
            f.type = FaultSpec::Type::LatencySpike;
        else if (type == QLatin1String("slow_tokens"))
            f.type = FaultSpec::Type::SlowTokens;
        else
            error(QStringLiteral("%1: unknown fault kind \"%2\"; use errors, blackout, flapping, latency_spike or slow_tokens.")
                      .arg(where, type));
        f.from = number(o, "from", 0.0, where, 0.0);
        f.to = number(o, "to", std::numeric_limits<double>::infinity(), where, 0.0);
        if (f.to <= f.from)
            error(QStringLiteral("%1: \"to\" must be after \"from\".").arg(where));
        f.probability = number(o, "probability", f.type == FaultSpec::Type::Errors ? 0.1 : 1.0, where, 0.0);
        if (f.probability > 1.0)
            error(QStringLiteral("%1: \"probability\" must be between 0 and 1.").arg(where));
        f.mix = mix(o.value(QLatin1String("mix")), where);
        if (f.mix.empty()) {
            if (f.type == FaultSpec::Type::Blackout || f.type == FaultSpec::Type::Flapping)
                f.mix = {{SimError::Http503, 1.0}};
            else if (f.type == FaultSpec::Type::Errors)
                f.mix = {{SimError::Http500, 1.0}};
        }
        const double period = number(o, "period", 10.0, where, 0.001);
        f.downSeconds = number(o, "down", period, where, 0.001);
        f.upSeconds = number(o, "up", period, where, 0.001);
        f.extraMs = distribution(o.value(QLatin1String("extra_ms")), Distribution::constant(1000), where + QStringLiteral(" extra_ms"));
        f.factor = number(o, "factor", 10.0, where, 1.0);
        f.retryAfterSeconds = static_cast<int>(number(o, "retry_after", 2.0, where, 0.0));
        f.afterChars = static_cast<int>(number(o, "after_chars", -1.0, where, -1.0));
        const QString inside = o.value(QLatin1String("inside")).toString();
        if (inside == QLatin1String("tool_call"))
            f.inside = FaultSpec::Inside::ToolCall;
        else if (inside == QLatin1String("reasoning"))
            f.inside = FaultSpec::Inside::Reasoning;
        else if (!inside.isEmpty())
            error(QStringLiteral("%1: unknown \"inside\" \"%2\"; use tool_call or reasoning.").arg(where, inside));
        if (!inside.isEmpty() && f.afterChars >= 0)
            error(QStringLiteral("%1: \"inside\" and \"after_chars\" each say where the stream breaks; give one.").arg(where));
        return f;
    }

    ProviderSpec provider(const QJsonObject &o, const QString &where0)
    {
        ProviderSpec p;
        p.name = o.value(QLatin1String("name")).toString();
        const QString where = p.name.isEmpty() ? where0 : QStringLiteral("provider \"%1\"").arg(p.name);
        if (p.name.isEmpty())
            error(QStringLiteral("%1 needs a \"name\".").arg(where));
        p.dialect = o.value(QLatin1String("dialect")).toString(QStringLiteral("openai_compat"));
        if (std::none_of(std::begin(kDialects), std::end(kDialects), [&](const char *d) { return p.dialect == QLatin1String(d); }))
            error(QStringLiteral("%1: unknown dialect \"%2\"; use openai_compat, anthropic, gemini, dashscope or ernie.")
                      .arg(where, p.dialect));
        const double port = number(o, "port", 0.0, where, 0.0);
        if (port > 65535)
            error(QStringLiteral("%1: \"port\" must be at most 65535.").arg(where));
        p.port = static_cast<quint16>(port);
        for (const QJsonValue &m : o.value(QLatin1String("models")).toArray())
            p.models.append(m.toString());
        if (p.models.isEmpty())
            p.models.append(QStringLiteral("sim-model"));
        for (const QJsonValue &k : o.value(QLatin1String("keys")).toArray()) {
            KeySpec key;
            if (k.isString()) {
                key.secret = k.toString().toUtf8();
            } else {
                key.secret = k.toObject().value(QLatin1String("key")).toString().toUtf8();
                key.rpm = static_cast<int>(number(k.toObject(), "rpm", 0.0, where, 0.0));
                key.clientSecret = k.toObject().value(QLatin1String("client_secret")).toString().toUtf8();
            }
            if (key.secret.isEmpty())
                error(QStringLiteral("%1: every key needs a non-empty \"key\".").arg(where));
            p.keys.push_back(key);
        }
        p.tokenLifetimeSeconds = static_cast<int>(number(o, "token_expires_in", p.tokenLifetimeSeconds, where, 1.0));
        p.ttftMs = distribution(o.value(QLatin1String("ttft_ms")), p.ttftMs, where + QStringLiteral(" ttft_ms"));
        p.tokensPerSecond = distribution(o.value(QLatin1String("tokens_per_second")), p.tokensPerSecond,
                                         where + QStringLiteral(" tokens_per_second"));
        p.completionTokens = static_cast<int>(number(o, "completion_tokens", p.completionTokens, where, 1.0));
        p.continuationOverlap = static_cast<int>(number(o, "continuation_overlap", 0.0, where, 0.0));
        p.reasoningTokens = static_cast<int>(number(o, "reasoning_tokens", 0.0, where, 0.0));
        p.toolCalls = o.value(QLatin1String("tool_calls")).toBool(false);
        if ((p.reasoningTokens > 0 || p.toolCalls) && p.dialect != QLatin1String("openai_compat") && p.dialect != QLatin1String("anthropic"))
            error(QStringLiteral("%1: \"reasoning_tokens\" and \"tool_calls\" are simulated for openai_compat and anthropic providers only.")
                      .arg(where));
        const QString lang = o.value(QLatin1String("language")).toString(QStringLiteral("en"));
        if (lang == QLatin1String("en"))
            p.language = Language::English;
        else if (lang == QLatin1String("zh"))
            p.language = Language::Chinese;
        else if (lang == QLatin1String("vi"))
            p.language = Language::Vietnamese;
        else if (lang == QLatin1String("mixed"))
            p.language = Language::Mixed;
        else
            error(QStringLiteral("%1: unknown language \"%2\"; use en, zh, vi or mixed.").arg(where, lang));
        const QJsonValue chunking = o.value(QLatin1String("chunking"));
        if (chunking.isString() && chunking.toString() == QLatin1String("event")) {
            p.chunking.mode = ChunkingSpec::Mode::Event;
        } else if (chunking.isObject()) {
            const QJsonObject c = chunking.toObject();
            p.chunking.mode = c.value(QLatin1String("mode")).toString() == QLatin1String("bytes") ? ChunkingSpec::Mode::Bytes
                                                                                                  : ChunkingSpec::Mode::Event;
            p.chunking.minBytes = static_cast<int>(number(c, "min", 1.0, where + QStringLiteral(" chunking"), 1.0));
            p.chunking.maxBytes = static_cast<int>(number(c, "max", 16.0, where + QStringLiteral(" chunking"), 1.0));
            if (p.chunking.maxBytes < p.chunking.minBytes)
                error(QStringLiteral("%1: chunking \"max\" must not be below \"min\".").arg(where));
        } else if (!chunking.isUndefined()) {
            error(QStringLiteral("%1: \"chunking\" must be \"event\" or {\"mode\":\"bytes\",\"min\":…,\"max\":…}.").arg(where));
        }
        const QJsonValue tls = o.value(QLatin1String("tls"));
        if (tls.isObject()) {
            p.tlsCertFile = tls.toObject().value(QLatin1String("cert_file")).toString();
            p.tlsKeyFile = tls.toObject().value(QLatin1String("key_file")).toString();
        }
        if (!tls.isUndefined() && (!tls.isObject() || p.tlsCertFile.isEmpty() || p.tlsKeyFile.isEmpty()))
            error(QStringLiteral("%1: \"tls\" must be {\"cert_file\": \"…\", \"key_file\": \"…\"}, both PEM files.").arg(where));
        int i = 0;
        for (const QJsonValue &f : o.value(QLatin1String("faults")).toArray())
            p.faults.push_back(fault(f.toObject(), QStringLiteral("%1 fault %2").arg(where).arg(++i)));
        return p;
    }

    LoadSpec load(const QJsonObject &o)
    {
        const QString where = QStringLiteral("load");
        LoadSpec l;
        l.rate = number(o, "rate", 1.0, where, 0.0);
        const QString process = o.value(QLatin1String("process")).toString(QStringLiteral("constant"));
        if (process == QLatin1String("constant"))
            l.process = LoadSpec::Process::Constant;
        else if (process == QLatin1String("poisson"))
            l.process = LoadSpec::Process::Poisson;
        else
            error(QStringLiteral("load: unknown \"process\" \"%1\"; use constant or poisson.").arg(process));
        l.duration = number(o, "duration", 60.0, where, 0.0);
        l.concurrency = static_cast<int>(number(o, "concurrency", 64.0, where, 1.0));
        l.streamRatio = number(o, "stream_ratio", 1.0, where, 0.0);
        l.tools = o.value(QLatin1String("tools")).toBool(false);
        if (l.streamRatio > 1.0)
            error(QStringLiteral("load: \"stream_ratio\" must be between 0 and 1."));
        const QJsonValue models = o.value(QLatin1String("models"));
        if (models.isObject()) {
            const QJsonObject m = models.toObject();
            for (auto it = m.begin(); it != m.end(); ++it)
                l.models.push_back({it.key(), it.value().toDouble(1.0)});
        } else {
            for (const QJsonValue &m : models.toArray())
                l.models.push_back({m.toString(), 1.0});
        }
        const QString target = o.value(QLatin1String("target")).toString(QStringLiteral("proxy"));
        if (target == QLatin1String("proxy"))
            l.target = LoadSpec::Target::Proxy;
        else if (target == QLatin1String("direct"))
            l.target = LoadSpec::Target::Direct;
        else
            error(QStringLiteral("load: unknown \"target\" \"%1\"; use proxy or direct.").arg(target));
        l.directProvider = o.value(QLatin1String("direct_provider")).toString();
        l.timeoutSeconds = number(o, "timeout", 60.0, where, 0.001);
        return l;
    }

private:
    QStringList *m_errors;
};

} // namespace

double Distribution::sample(Random &random) const
{
    double v = a;
    switch (kind) {
    case Kind::Constant:
        break;
    case Kind::Uniform:
        v = random.uniform(a, b);
        break;
    case Kind::Normal:
        v = a + b * normal(random);
        break;
    case Kind::LogNormal:
        v = a * std::exp(b * normal(random));
        break;
    case Kind::Exponential:
        v = -a * std::log(1.0 - random.uniform01());
        break;
    }
    return std::clamp(v, min, max);
}

double Distribution::mean() const
{
    switch (kind) {
    case Kind::Uniform:
        return (a + b) / 2.0;
    case Kind::LogNormal:
        return a * std::exp(b * b / 2.0);
    default:
        return a;
    }
}

const char *toString(SimError error)
{
    return kErrorNames[static_cast<int>(error)];
}

std::optional<SimError> simErrorFromString(QStringView text)
{
    for (int i = 0; i < SimErrorCount; ++i) {
        if (text == QLatin1String(kErrorNames[i]))
            return static_cast<SimError>(i);
    }
    return std::nullopt;
}

const char *toString(Language language)
{
    switch (language) {
    case Language::English:
        return "en";
    case Language::Chinese:
        return "zh";
    case Language::Vietnamese:
        return "vi";
    case Language::Mixed:
        return "mixed";
    }
    return "en";
}

namespace {

ProxySpec parseProxy(const QJsonObject &json, const Scenario &s, Parser &parser)
{
    ProxySpec proxy;
    proxy.breakerPreset = json.value(QLatin1String("breaker")).toString(proxy.breakerPreset);
    BreakerConfig preset;
    if (!BreakerConfig::fromPreset(proxy.breakerPreset, &preset))
        parser.error(QStringLiteral("proxy: \"breaker\" must be \"relay\" or \"launch-day\", not \"%1\".").arg(proxy.breakerPreset));
    int i = 0;
    for (const QJsonValue &v : json.value(QLatin1String("routes")).toArray()) {
        const QJsonObject o = v.toObject();
        const QString where = QStringLiteral("proxy route %1").arg(++i);
        ProxyRouteSpec route;
        route.model = o.value(QLatin1String("model")).toString();
        route.strategy = o.value(QLatin1String("strategy")).toString(route.strategy);
        for (const QJsonValue &c : o.value(QLatin1String("channels")).toArray())
            route.channels.append(c.toString());
        if (route.model.isEmpty())
            parser.error(QStringLiteral("%1: \"model\" is required.").arg(where));
        RoutingStrategy strategy;
        if (!routingStrategyFromString(route.strategy, &strategy))
            parser.error(QStringLiteral("%1: \"strategy\" \"%2\" is not one of health, weighted, latency, priority, round-robin.")
                             .arg(where, route.strategy));
        if (route.channels.isEmpty())
            parser.error(QStringLiteral("%1: \"channels\" must list at least one provider.").arg(where));
        for (const QString &c : route.channels)
            if (!s.provider(c))
                parser.error(QStringLiteral("%1: \"%2\" is not a provider of this scenario.").arg(where, c));
        proxy.routes.push_back(route);
    }
    if (proxy.routes.empty()) {
        for (const ModelWeight &m : s.load.models) {
            ProxyRouteSpec route;
            route.model = m.model;
            for (const ProviderSpec &p : s.providers)
                if (p.models.contains(m.model))
                    route.channels.append(p.name);
            // A scenario only ever run with --direct may name models no provider lists; the drill
            // config refuses such a route when a proxy is set up for it.
            proxy.routes.push_back(route);
        }
    }
    proxy.settings = json.value(QLatin1String("settings")).toObject();
    EngineConfig scratch;
    for (auto it = proxy.settings.constBegin(); it != proxy.settings.constEnd(); ++it)
        if (const QString problem = applyEngineSetting(&scratch, it.key(), it.value()); !problem.isEmpty())
            parser.error(QStringLiteral("proxy settings: %1").arg(problem));
    return proxy;
}

} // namespace

const ProviderSpec *Scenario::provider(const QString &name) const
{
    for (const ProviderSpec &p : providers) {
        if (p.name == name)
            return &p;
    }
    return nullptr;
}

std::optional<Scenario> Scenario::fromJson(const QJsonObject &json, QStringList *errors)
{
    QStringList local;
    if (!errors)
        errors = &local;
    errors->clear();
    Parser parser(errors);
    Scenario s;
    s.name = json.value(QLatin1String("name")).toString(QStringLiteral("unnamed"));
    s.description = json.value(QLatin1String("description")).toString();
    s.summary = json.value(QLatin1String("summary")).toString(s.description.section(QLatin1Char('.'), 0, 0));
    s.rehearses = json.value(QLatin1String("rehearses")).toString();
    s.timeScale = parser.number(json, "time_scale", 1.0, QStringLiteral("scenario"), 0.001);
    s.seed = static_cast<quint64>(parser.number(json, "seed", 1.0, QStringLiteral("scenario"), 0.0));
    const QJsonArray providers = json.value(QLatin1String("providers")).toArray();
    if (providers.isEmpty())
        parser.error(QStringLiteral("The scenario needs at least one provider in \"providers\"."));
    int i = 0;
    for (const QJsonValue &p : providers)
        s.providers.push_back(parser.provider(p.toObject(), QStringLiteral("provider %1").arg(++i)));
    for (std::size_t a = 0; a < s.providers.size(); ++a) {
        for (std::size_t b = a + 1; b < s.providers.size(); ++b) {
            if (s.providers[a].name == s.providers[b].name)
                parser.error(QStringLiteral("Two providers are named \"%1\"; names must be unique.").arg(s.providers[a].name));
            if (s.providers[a].port != 0 && s.providers[a].port == s.providers[b].port)
                parser.error(QStringLiteral("Providers \"%1\" and \"%2\" both use port %3.")
                                 .arg(s.providers[a].name, s.providers[b].name)
                                 .arg(s.providers[a].port));
        }
    }
    s.load = parser.load(json.value(QLatin1String("load")).toObject());
    if (s.load.models.empty() && !s.providers.empty())
        s.load.models.push_back({s.providers.front().models.value(0), 1.0});
    if (s.load.target == LoadSpec::Target::Direct) {
        if (s.load.directProvider.isEmpty() && !s.providers.empty())
            s.load.directProvider = s.providers.front().name;
        if (!s.load.directProvider.isEmpty() && !s.provider(s.load.directProvider))
            parser.error(QStringLiteral("load: \"direct_provider\" names \"%1\", which is not a provider of this scenario.")
                             .arg(s.load.directProvider));
    }

    const QJsonObject report = json.value(QLatin1String("report")).toObject();
    for (const QJsonValue &c : report.value(QLatin1String("primary_channels")).toArray())
        s.report.primaryChannels.append(c.toString());
    if (report.contains(QLatin1String("outage_from")))
        s.report.outageFrom = parser.number(report, "outage_from", 0.0, QStringLiteral("report"), 0.0);
    if (report.contains(QLatin1String("outage_to")))
        s.report.outageTo = parser.number(report, "outage_to", 0.0, QStringLiteral("report"), 0.0);
    s.report.settleRequests = static_cast<int>(parser.number(report, "settle_requests", 5.0, QStringLiteral("report"), 1.0));
    if (!s.report.outageFrom) {
        for (const ProviderSpec &p : s.providers) {
            const auto it = std::find_if(p.faults.begin(), p.faults.end(),
                                         [](const FaultSpec &f) { return f.type == FaultSpec::Type::Blackout; });
            if (it != p.faults.end()) {
                s.report.outageFrom = it->from;
                s.report.outageTo = it->to;
                break;
            }
        }
    }
    s.proxy = parseProxy(json.value(QLatin1String("proxy")).toObject(), s, parser);
    if (!parser.ok())
        return std::nullopt;
    return s;
}

std::optional<Scenario> Scenario::fromFile(const QString &path, QStringList *errors)
{
    QStringList local;
    if (!errors)
        errors = &local;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *errors = QStringList{QStringLiteral("Cannot read the scenario file %1: %2.").arg(path, file.errorString())};
        return std::nullopt;
    }
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &parseError);
    if (!doc.isObject()) {
        *errors = QStringList{QStringLiteral("The scenario file %1 is not a JSON object (%2 at offset %3).")
                                  .arg(path, parseError.errorString())
                                  .arg(parseError.offset)};
        return std::nullopt;
    }
    return fromJson(doc.object(), errors);
}

} // namespace sb::sim
