#include "model/ConfigJson.h"

#include "common/SecretMask.h"
#include "model/CostConfigJson.h"

#include <QFile>
#include <QHash>
#include <QUrl>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>

#include <cmath>
#include <functional>
#include <limits>

namespace sb {

namespace {

// ---- typed conversions between JSON values and config fields -------------------------------------

QJsonValue toJson(double v) { return v; }
QJsonValue toJson(int v) { return v; }
QJsonValue toJson(qint64 v) { return v; }
QJsonValue toJson(bool v) { return v; }
QJsonValue toJson(const QString &v) { return v; }
QJsonValue toJson(std::chrono::seconds v) { return static_cast<qint64>(v.count()); }
QJsonValue toJson(std::chrono::milliseconds v) { return static_cast<qint64>(v.count()); }
QJsonValue toJson(HalfOpenMode v) { return v == HalfOpenMode::TrafficShare ? QStringLiteral("traffic_share") : QStringLiteral("trial_calls"); }

bool integral(const QJsonValue &v, qint64 *out)
{
    if (!v.isDouble())
        return false;
    const double d = v.toDouble();
    // Beyond 2^53 a double no longer holds every integer; no setting needs that much.
    if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 9007199254740992.0)
        return false;
    *out = static_cast<qint64>(d);
    return true;
}

bool fromJson(const QJsonValue &v, double *out)
{
    if (!v.isDouble() || !std::isfinite(v.toDouble()))
        return false;
    *out = v.toDouble();
    return true;
}
bool fromJson(const QJsonValue &v, int *out)
{
    qint64 i = 0;
    if (!integral(v, &i) || i < std::numeric_limits<int>::min() || i > std::numeric_limits<int>::max())
        return false;
    *out = static_cast<int>(i);
    return true;
}
bool fromJson(const QJsonValue &v, qint64 *out) { return integral(v, out); }
bool fromJson(const QJsonValue &v, bool *out)
{
    if (!v.isBool())
        return false;
    *out = v.toBool();
    return true;
}
bool fromJson(const QJsonValue &v, QString *out)
{
    if (!v.isString())
        return false;
    *out = v.toString();
    return true;
}
bool fromJson(const QJsonValue &v, std::chrono::seconds *out)
{
    qint64 i = 0;
    if (!integral(v, &i) || i < 0)
        return false;
    *out = std::chrono::seconds(i);
    return true;
}
bool fromJson(const QJsonValue &v, std::chrono::milliseconds *out)
{
    qint64 i = 0;
    if (!integral(v, &i) || i < 0)
        return false;
    *out = std::chrono::milliseconds(i);
    return true;
}
bool fromJson(const QJsonValue &v, HalfOpenMode *out)
{
    if (v.toString() == u"trial_calls")
        *out = HalfOpenMode::TrialCalls;
    else if (v.toString() == u"traffic_share")
        *out = HalfOpenMode::TrafficShare;
    else
        return false;
    return true;
}

const char *typeName(double *) { return "a number"; }
const char *typeName(int *) { return "a whole number"; }
const char *typeName(qint64 *) { return "a whole number"; }
const char *typeName(bool *) { return "true or false"; }
const char *typeName(QString *) { return "a string"; }
const char *typeName(std::chrono::seconds *) { return "a whole number of seconds, 0 or more"; }
const char *typeName(std::chrono::milliseconds *) { return "a whole number of milliseconds, 0 or more"; }
const char *typeName(HalfOpenMode *) { return "\"trial_calls\" or \"traffic_share\""; }

// ---- the settings table ---------------------------------------------------------------------------

struct Setting {
    QString key;
    std::function<QJsonValue(const EngineConfig &)> get;
    std::function<QString(EngineConfig &, const QJsonValue &)> set;
};

template <class Access>
Setting field(const char *key, Access access)
{
    using T = std::remove_reference_t<decltype(access(std::declval<EngineConfig &>()))>;
    Setting s;
    s.key = QString::fromLatin1(key);
    s.get = [access](const EngineConfig &c) { return toJson(access(const_cast<EngineConfig &>(c))); };
    s.set = [access, key](EngineConfig &c, const QJsonValue &v) -> QString {
        T value{};
        if (!fromJson(v, &value))
            return QStringLiteral("Setting \"%1\" must be %2.").arg(QLatin1String(key), QLatin1String(typeName(static_cast<T *>(nullptr))));
        access(c) = value;
        return {};
    };
    return s;
}

#define SB_SETTING(key, path) field(key, [](EngineConfig &c) -> auto & { return c.path; })

const std::vector<Setting> &settingsTable()
{
    static const std::vector<Setting> table = {
        SB_SETTING("health.window_s", health.window),
        SB_SETTING("health.fast_window_s", health.fastWindow),
        SB_SETTING("health.error_weight", health.errorWeight),
        SB_SETTING("health.latency_weight", health.latencyWeight),
        SB_SETTING("health.min_volume", health.minVolume),
        SB_SETTING("health.degrade_below", health.degradeBelow),
        SB_SETTING("health.eject_below", health.ejectBelow),
        SB_SETTING("health.eject_after_s", health.ejectAfter),
        SB_SETTING("health.degraded_weight_factor", health.degradedWeightFactor),
        SB_SETTING("health.slow_wait_factor", health.slowWaitFactor),
        SB_SETTING("health.slow_wait_floor_ms", health.slowWaitFloor),

        SB_SETTING("breaker.preset", breaker.preset),
        SB_SETTING("breaker.consecutive_failures", breaker.consecutiveFailures),
        SB_SETTING("breaker.failure_rate_threshold", breaker.failureRateThreshold),
        SB_SETTING("breaker.rate_window_s", breaker.rateWindow),
        SB_SETTING("breaker.min_calls_in_window", breaker.minCallsInWindow),
        SB_SETTING("breaker.open_duration_s", breaker.openDuration),
        SB_SETTING("breaker.open_growth_factor", breaker.openGrowthFactor),
        SB_SETTING("breaker.max_open_duration_s", breaker.maxOpenDuration),
        SB_SETTING("breaker.half_open_mode", breaker.halfOpenMode),
        SB_SETTING("breaker.half_open_max_trials", breaker.halfOpenMaxTrials),
        SB_SETTING("breaker.half_open_traffic_share", breaker.halfOpenTrafficShare),
        SB_SETTING("breaker.successes_to_close", breaker.successesToClose),

        SB_SETTING("probe.interval_s", probe.interval),
        SB_SETTING("probe.timeout_s", probe.timeout),
        SB_SETTING("probe.successes_to_readmit", probe.successesToReadmit),

        SB_SETTING("pool.panic_mode", pool.panicMode),

        SB_SETTING("retry.base_delay_ms", retry.baseDelay),
        SB_SETTING("retry.max_delay_ms", retry.maxDelay),
        SB_SETTING("retry.jitter_ms", retry.jitter),
        SB_SETTING("retry.max_attempts", retry.maxAttempts),
        SB_SETTING("retry.budget_ratio", retry.budgetRatio),
        SB_SETTING("retry.budget_minimum", retry.budgetMinimum),
        SB_SETTING("retry.overall_deadline_ms", retry.overallDeadline),
        SB_SETTING("retry.stream_idle_timeout_ms", retry.streamIdleTimeout),
        SB_SETTING("retry.continue_streams", retry.continueStreams),
        SB_SETTING("retry.first_content_timeout_ms", retry.firstContentTimeout),
        SB_SETTING("retry.key_cool_down_ms", retry.keyCoolDown),
        SB_SETTING("retry.max_client_wait_ms", retry.maxClientWait),

        SB_SETTING("proxy.listen_host", proxy.listenHost),
        SB_SETTING("proxy.listen_port", proxy.listenPort),
        SB_SETTING("proxy.max_body_bytes", proxy.maxBodyBytes),
        SB_SETTING("proxy.max_header_bytes", proxy.maxHeaderBytes),
        SB_SETTING("proxy.idle_timeout_s", proxy.idleTimeout),
        SB_SETTING("proxy.drain_timeout_s", proxy.drainTimeout),
        SB_SETTING("proxy.tls_cert_file", proxy.tlsCertFile),
        SB_SETTING("proxy.tls_key_file", proxy.tlsKeyFile),

        SB_SETTING("fleet.redis_url", fleet.redisUrl),
        SB_SETTING("fleet.name", fleet.name),
        SB_SETTING("fleet.instance_id", fleet.instanceId),

        SB_SETTING("cache.max_entries", cache.maxEntries),
        SB_SETTING("cache.max_bytes", cache.maxBytes),
        SB_SETTING("cache.semantic_max_entries", cache.semanticMaxEntries),
        SB_SETTING("cache.max_answer_bytes", cache.maxAnswerBytes),
    };
    return table;
}

#undef SB_SETTING

const Setting *findSetting(const QString &key)
{
    for (const auto &s : settingsTable())
        if (s.key == key)
            return &s;
    return nullptr;
}

// ---- small readers that collect sentences instead of throwing -----------------------------------

class Reader {
public:
    Reader(const QJsonObject &object, QString where, QStringList *errors, QStringList *warnings)
        : m_object(object), m_where(std::move(where)), m_errors(errors), m_warnings(warnings) {}

    template <class T>
    void read(const char *name, T *out, bool required = false)
    {
        const QString key = QString::fromLatin1(name);
        m_seen.insert(key);
        const QJsonValue v = m_object.value(key);
        if (v.isUndefined() || v.isNull()) {
            if (required)
                *m_errors << QStringLiteral("%1: \"%2\" is missing.").arg(m_where, key);
            return;
        }
        if (!fromJson(v, out))
            *m_errors << QStringLiteral("%1: \"%2\" must be %3.").arg(m_where, key, QLatin1String(typeName(static_cast<T *>(nullptr))));
    }

    QJsonArray array(const char *name)
    {
        const QString key = QString::fromLatin1(name);
        m_seen.insert(key);
        const QJsonValue v = m_object.value(key);
        if (!v.isUndefined() && !v.isNull() && !v.isArray())
            *m_errors << QStringLiteral("%1: \"%2\" must be a list.").arg(m_where, key);
        return v.toArray();
    }

    void markSeen(const char *name) { m_seen.insert(QString::fromLatin1(name)); }

    void warnUnknown()
    {
        for (auto it = m_object.begin(); it != m_object.end(); ++it)
            if (!m_seen.contains(it.key()))
                *m_warnings << QStringLiteral("%1: unknown field \"%2\" was ignored.").arg(m_where, it.key());
    }

private:
    QJsonObject m_object;
    QString m_where;
    QStringList *m_errors;
    QStringList *m_warnings;
    QSet<QString> m_seen;
};

// A field holding a key under a name the format does not have: ignored with a warning, as other
// unknown fields are, it would leave the provider without its key and fail later with a 401. The
// value is never repeated: it is a secret.
void refuseMisplacedSecrets(const QJsonObject &object, const QString &where, bool provider, QStringList *errors)
{
    static const char *const Names[] = {"api_key", "apiKey", "key", "token", "value", "api_keys", "apiKeys", "secret"};
    for (const char *name : Names) {
        if (!object.contains(QLatin1String(name)) || (!provider && qstrcmp(name, "secret") == 0))
            continue;
        *errors << QStringLiteral("%1: \"%2\" is not a field of the format; an API key goes in the provider's \"keys\" list, "
                                  "as \"keys\": [\"<the key>\"] or [{\"secret\": \"<the key>\"}].").arg(where, QLatin1String(name));
    }
}

QJsonObject nestedSettings(const EngineConfig &config)
{
    QJsonObject sections;
    for (const auto &[key, value] : engineSettings(config)) {
        const qsizetype dot = key.indexOf(QLatin1Char('.'));
        QJsonObject section = sections.value(key.left(dot)).toObject();
        section.insert(key.mid(dot + 1), value);
        sections.insert(key.left(dot), section);
    }
    return sections;
}

void readSettings(const QJsonObject &sections, EngineConfig *config, QStringList *errors, QStringList *warnings)
{
    for (auto s = sections.begin(); s != sections.end(); ++s) {
        if (!s.value().isObject()) {
            *errors << QStringLiteral("settings: \"%1\" must be an object.").arg(s.key());
            continue;
        }
        const QJsonObject section = s.value().toObject();
        for (auto it = section.begin(); it != section.end(); ++it) {
            const QString key = s.key() + QLatin1Char('.') + it.key();
            if (key == u"proxy.local_token") {
                QString token;
                if (fromJson(it.value(), &token))
                    config->proxy.localToken = token;
                else
                    *errors << QStringLiteral("Setting \"proxy.local_token\" must be a string.");
                continue;
            }
            if (!findSetting(key)) {
                *warnings << QStringLiteral("settings: unknown setting \"%1\" was ignored.").arg(key);
                continue;
            }
            const QString error = applyEngineSetting(config, key, it.value());
            if (!error.isEmpty())
                *errors << error;
        }
    }
}

} // namespace

// ---- public -----------------------------------------------------------------------------------------

std::vector<std::pair<QString, QJsonValue>> engineSettings(const EngineConfig &config)
{
    std::vector<std::pair<QString, QJsonValue>> out;
    out.reserve(settingsTable().size());
    for (const auto &s : settingsTable())
        out.emplace_back(s.key, s.get(config));
    return out;
}

QString applyEngineSetting(EngineConfig *config, const QString &key, const QJsonValue &value)
{
    const Setting *s = findSetting(key);
    if (!s)
        return QStringLiteral("There is no setting \"%1\".").arg(key);
    return s->set(*config, value);
}

QStringList engineSettingKeys()
{
    QStringList keys;
    for (const auto &s : settingsTable())
        keys << s.key;
    return keys;
}

QByteArray ConfigExport::toBytes() const
{
    return QJsonDocument(json).toJson(QJsonDocument::Indented);
}

ConfigExport exportConfigJson(const EngineConfig &config, const ConfigExportOptions &options)
{
    ConfigExport out;
    QJsonObject root;
    root.insert(QStringLiteral("format"), QStringLiteral("switchboard-config"));
    root.insert(QStringLiteral("version"), ConfigJsonVersion);
    if (config.demo)
        root.insert(QStringLiteral("demo"), true);

    QJsonObject settings = nestedSettings(config);
    if (!config.proxy.localToken.isEmpty()) {
        if (options.includeSecrets) {
            QJsonObject proxy = settings.value(QStringLiteral("proxy")).toObject();
            proxy.insert(QStringLiteral("local_token"), config.proxy.localToken);
            settings.insert(QStringLiteral("proxy"), proxy);
        } else {
            out.warnings << QStringLiteral("The local proxy token was left out; set it again after importing, or export with secrets.");
        }
    }
    const QUrl redisUrl(config.fleet.redisUrl);
    if (!options.includeSecrets && !redisUrl.password().isEmpty()) {
        QUrl withoutPassword = redisUrl;
        withoutPassword.setPassword(QString());
        QJsonObject fleet = settings.value(QStringLiteral("fleet")).toObject();
        fleet.insert(QStringLiteral("redis_url"), withoutPassword.toString());
        settings.insert(QStringLiteral("fleet"), fleet);
        out.warnings << QStringLiteral("The Redis password was left out of the fleet's URL; add it again after importing, or export with secrets.");
    }
    root.insert(QStringLiteral("settings"), settings);

    QHash<int, QString> providerNames;
    int keysLeftOut = 0;
    QJsonArray providers;
    for (const auto &p : config.providers) {
        providerNames.insert(p.id, p.name);
        QJsonObject o;
        o.insert(QStringLiteral("id"), p.id);
        o.insert(QStringLiteral("name"), p.name);
        o.insert(QStringLiteral("dialect"), p.dialect);
        o.insert(QStringLiteral("base_url"), p.baseUrl);
        o.insert(QStringLiteral("enabled"), p.enabled);
        if (p.responsesApi) // written only when set: most providers have no Responses API
            o.insert(QStringLiteral("responses_api"), true);
        if (!p.caBundle.isEmpty()) // like the next one, written only when set
            o.insert(QStringLiteral("ca_bundle"), p.caBundle);
        if (p.tlsSkipVerify)
            o.insert(QStringLiteral("tls_skip_verify"), true);
        if (p.http2)
            o.insert(QStringLiteral("http2"), true);
        o.insert(QStringLiteral("connect_timeout_ms"), toJson(p.connectTimeout));
        o.insert(QStringLiteral("primary_timeout_ms"), toJson(p.primaryTimeout));
        o.insert(QStringLiteral("fallback_timeout_ms"), toJson(p.fallbackTimeout));
        o.insert(QStringLiteral("requests_per_minute"), p.requestsPerMinute);
        o.insert(QStringLiteral("tokens_per_minute"), p.tokensPerMinute);
        o.insert(QStringLiteral("burst"), p.burst);
        o.insert(QStringLiteral("account"), p.domain.account);
        o.insert(QStringLiteral("region"), p.domain.region);
        o.insert(QStringLiteral("egress_proxy"), p.domain.egressProxy);
        QJsonArray keys;
        for (const auto &k : p.keys) {
            QJsonObject ko;
            ko.insert(QStringLiteral("id"), k.id);
            ko.insert(QStringLiteral("label"), k.label);
            ko.insert(QStringLiteral("enabled"), k.enabled);
            ko.insert(QStringLiteral("disabled_reason"), k.disabledReason);
            ko.insert(QStringLiteral("preview"), maskSecret(k.secret));
            if (options.includeSecrets)
                ko.insert(QStringLiteral("secret"), k.secret);
            else if (!k.secret.isEmpty())
                ++keysLeftOut;
            keys.append(ko);
        }
        o.insert(QStringLiteral("keys"), keys);
        providers.append(o);
    }
    root.insert(QStringLiteral("providers"), providers);
    if (keysLeftOut > 0)
        out.warnings << QStringLiteral("%1 API key(s) were left out of the export (only their masked previews are in it); "
                                       "enter them again after importing, or export with secrets.").arg(keysLeftOut);

    QHash<int, QString> channelNames;
    QJsonArray channels;
    for (const auto &c : config.channels) {
        channelNames.insert(c.id, c.name);
        QJsonObject o;
        o.insert(QStringLiteral("id"), c.id);
        o.insert(QStringLiteral("name"), c.name);
        o.insert(QStringLiteral("provider"), providerNames.value(c.providerId));
        o.insert(QStringLiteral("upstream_model"), c.upstreamModel);
        o.insert(QStringLiteral("weight"), c.weight);
        o.insert(QStringLiteral("enabled"), c.enabled);
        o.insert(QStringLiteral("account"), c.account);
        o.insert(QStringLiteral("region"), c.region);
        o.insert(QStringLiteral("egress_proxy"), c.egressProxy);
        channels.append(o);
    }
    root.insert(QStringLiteral("channels"), channels);

    QJsonArray routes;
    for (const auto &r : config.routes) {
        QJsonObject o;
        o.insert(QStringLiteral("id"), r.id);
        o.insert(QStringLiteral("model"), r.logicalModel);
        o.insert(QStringLiteral("strategy"), QLatin1String(toString(r.strategy)));
        QJsonArray ch;
        for (int id : r.channelIds)
            ch.append(channelNames.value(id));
        o.insert(QStringLiteral("channels"), ch);
        o.insert(QStringLiteral("fallback_models"), QJsonArray::fromStringList(r.fallbackModels));
        o.insert(QStringLiteral("cache"), r.cacheEnabled);
        o.insert(QStringLiteral("cache_ttl_s"), toJson(r.cache.ttl));
        o.insert(QStringLiteral("semantic_cache"), r.cache.semantic);
        o.insert(QStringLiteral("semantic_preset"), QLatin1String(toString(r.cache.preset)));
        o.insert(QStringLiteral("embeddings_channel"), channelNames.value(r.cache.embeddingsChannelId));
        o.insert(QStringLiteral("embeddings_model"), r.cache.embeddingsModel);
        o.insert(QStringLiteral("retry_client_errors_elsewhere"), r.retryClientErrorsElsewhere);
        o.insert(QStringLiteral("continue_streams"), r.continueStreams);
        o.insert(QStringLiteral("stream_tool_calls"), r.streamToolCalls);
        routes.append(o);
    }
    root.insert(QStringLiteral("routes"), routes);

    QJsonArray prices;
    for (const auto &p : config.prices) {
        QJsonObject o;
        o.insert(QStringLiteral("model"), p.model);
        o.insert(QStringLiteral("input_usd_per_1m"), p.inputUsdPerM);
        o.insert(QStringLiteral("output_usd_per_1m"), p.outputUsdPerM);
        if (ModelPrice::isSet(p.cachedInputUsdPerM)) // unset ones stay out: they mean the input price
            o.insert(QStringLiteral("cached_input_usd_per_1m"), p.cachedInputUsdPerM);
        if (ModelPrice::isSet(p.cacheWriteUsdPerM))
            o.insert(QStringLiteral("cache_write_usd_per_1m"), p.cacheWriteUsdPerM);
        prices.append(o);
    }
    root.insert(QStringLiteral("prices"), prices);
    root.insert(QStringLiteral("budgets"), budgetsToJson(config.budgets));
    root.insert(QStringLiteral("auto_model"), autoModelToJson(config.autoModel));

    out.json = root;
    return out;
}

ConfigImport importConfigJson(const QByteArray &json)
{
    QJsonParseError parseError{};
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        ConfigImport out;
        out.errors << QStringLiteral("The configuration is not valid JSON (%1 at offset %2).")
                          .arg(parseError.errorString()).arg(parseError.offset);
        return out;
    }
    if (!doc.isObject()) {
        ConfigImport out;
        out.errors << QStringLiteral("The configuration must be a JSON object.");
        return out;
    }
    return importConfigJson(doc.object());
}

ConfigImport importConfigFile(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        ConfigImport out;
        out.errors << QStringLiteral("Cannot read the configuration file \"%1\": %2.").arg(path, file.errorString());
        return out;
    }
    return importConfigJson(file.readAll());
}

ConfigImport importConfigJson(const QJsonObject &root)
{
    ConfigImport out;
    EngineConfig &config = out.config;
    QStringList &errors = out.errors;
    QStringList &warnings = out.warnings;

    Reader top(root, QStringLiteral("configuration"), &errors, &warnings);
    QString format;
    top.read("format", &format);
    if (!format.isEmpty() && format != u"switchboard-config")
        errors << QStringLiteral("This is not a Switchboard configuration (format \"%1\").").arg(format);
    int version = ConfigJsonVersion;
    top.read("version", &version);
    if (version > ConfigJsonVersion) {
        errors << QStringLiteral("This configuration was written by a newer Switchboard (format version %1, this build reads up to %2); "
                                 "update Switchboard to import it.").arg(version).arg(ConfigJsonVersion);
        return out;
    }
    top.read("demo", &config.demo);

    const QJsonValue settings = root.value(QStringLiteral("settings"));
    if (settings.isObject())
        readSettings(settings.toObject(), &config, &errors, &warnings);
    else if (!settings.isUndefined())
        errors << QStringLiteral("configuration: \"settings\" must be an object.");

    // Ids are optional in a hand-written file: the ones given are kept, the rest numbered after them.
    auto assignIds = [](const QJsonArray &items, std::vector<int> *ids) {
        int next = 1;
        for (const auto &v : items)
            next = std::max(next, v.toObject().value(QStringLiteral("id")).toInt() + 1);
        for (const auto &v : items) {
            const int id = v.toObject().value(QStringLiteral("id")).toInt();
            ids->push_back(id > 0 ? id : next++);
        }
    };

    const QJsonArray providers = top.array("providers");
    std::vector<int> providerIds;
    assignIds(providers, &providerIds);
    QHash<QString, int> providerByName;
    int nextKeyId = 1;
    for (const auto &pv : providers)
        for (const auto &kv : pv.toObject().value(QStringLiteral("keys")).toArray())
            nextKeyId = std::max(nextKeyId, kv.toObject().value(QStringLiteral("id")).toInt() + 1);
    int keysWithoutSecret = 0;
    for (qsizetype i = 0; i < providers.size(); ++i) {
        if (!providers[i].isObject()) {
            errors << QStringLiteral("providers[%1] must be an object.").arg(i);
            continue;
        }
        const QJsonObject o = providers[i].toObject();
        ProviderConfig p;
        p.id = providerIds[static_cast<std::size_t>(i)];
        Reader r(o, QStringLiteral("providers[%1]").arg(i), &errors, &warnings);
        int ignoredId = 0;
        r.read("id", &ignoredId);
        r.read("name", &p.name, true);
        r.read("dialect", &p.dialect); // left out, the default; unknown, validate() names the near one
        if (p.dialect.isEmpty())
            p.dialect = QStringLiteral("openai_compat");
        r.read("base_url", &p.baseUrl, true);
        r.read("enabled", &p.enabled);
        r.read("responses_api", &p.responsesApi);
        r.read("ca_bundle", &p.caBundle);
        r.read("tls_skip_verify", &p.tlsSkipVerify);
        r.read("http2", &p.http2);
        if (p.tlsSkipVerify)
            warnings << QStringLiteral("providers[%1] (\"%2\"): tls_skip_verify is on; its certificate is not checked, so anyone on "
                                       "the path could read its keys and answers.").arg(i).arg(p.name);
        r.read("connect_timeout_ms", &p.connectTimeout);
        r.read("primary_timeout_ms", &p.primaryTimeout);
        r.read("fallback_timeout_ms", &p.fallbackTimeout);
        r.read("requests_per_minute", &p.requestsPerMinute);
        r.read("tokens_per_minute", &p.tokensPerMinute);
        r.read("burst", &p.burst);
        r.read("account", &p.domain.account);
        r.read("region", &p.domain.region);
        r.read("egress_proxy", &p.domain.egressProxy);
        const QString where = QStringLiteral("providers[%1]").arg(i);
        refuseMisplacedSecrets(o, where, true, &errors);
        QJsonArray keys;
        if (o.value(QLatin1String("keys")).isString()) {
            r.markSeen("keys");
            errors << QStringLiteral("%1: \"keys\" must be a list, e.g. \"keys\": [\"<the key>\"].").arg(where);
        } else {
            keys = r.array("keys");
        }
        for (qsizetype k = 0; k < keys.size(); ++k) {
            const QString keyWhere = QStringLiteral("%1.keys[%2]").arg(where).arg(k);
            if (keys[k].isString()) {
                // A bare string can only be the key itself: a secret, with nothing else said about it.
                ApiKeyConfig key;
                key.id = nextKeyId++;
                key.secret = keys[k].toString().trimmed();
                if (key.secret.isEmpty())
                    errors << QStringLiteral("%1 is an empty string; give the key, or leave the entry out.").arg(keyWhere);
                p.keys.push_back(key);
                continue;
            }
            if (!keys[k].isObject()) {
                errors << QStringLiteral("%1 must be the key as a string or an object with a \"secret\".").arg(keyWhere);
                continue;
            }
            const QJsonObject ko = keys[k].toObject();
            refuseMisplacedSecrets(ko, keyWhere, false, &errors);
            ApiKeyConfig key;
            Reader kr(ko, keyWhere, &errors, &warnings);
            kr.read("id", &key.id);
            if (key.id <= 0)
                key.id = nextKeyId++;
            kr.read("label", &key.label);
            kr.read("enabled", &key.enabled);
            kr.read("disabled_reason", &key.disabledReason);
            QString preview;
            kr.read("preview", &preview); // informative only: the secret is what counts
            kr.read("secret", &key.secret);
            if (key.secret.isEmpty())
                ++keysWithoutSecret;
            kr.warnUnknown();
            p.keys.push_back(key);
        }
        r.warnUnknown();
        if (providerByName.contains(p.name))
            errors << QStringLiteral("Two providers are named \"%1\"; rename one of them.").arg(p.name);
        providerByName.insert(p.name, p.id);
        config.providers.push_back(p);
    }
    if (keysWithoutSecret > 0)
        warnings << QStringLiteral("%1 API key(s) have no secret in this file; keys already stored under the same id keep "
                                   "their secret, the others must be entered again.").arg(keysWithoutSecret);

    const QJsonArray channels = top.array("channels");
    std::vector<int> channelIds;
    assignIds(channels, &channelIds);
    QHash<QString, int> channelByName;
    for (qsizetype i = 0; i < channels.size(); ++i) {
        const QJsonObject o = channels[i].toObject();
        ChannelConfig c;
        c.id = channelIds[static_cast<std::size_t>(i)];
        Reader r(o, QStringLiteral("channels[%1]").arg(i), &errors, &warnings);
        int ignoredId = 0;
        r.read("id", &ignoredId);
        r.read("name", &c.name, true);
        QString provider;
        r.read("provider", &provider, true);
        if (!provider.isEmpty()) {
            if (providerByName.contains(provider))
                c.providerId = providerByName.value(provider);
            else
                errors << QStringLiteral("Channel \"%1\" names provider \"%2\", which is not in the file.").arg(c.name, provider);
        }
        r.read("upstream_model", &c.upstreamModel, true);
        r.read("weight", &c.weight);
        r.read("enabled", &c.enabled);
        r.read("account", &c.account);
        r.read("region", &c.region);
        r.read("egress_proxy", &c.egressProxy);
        r.warnUnknown();
        if (channelByName.contains(c.name))
            errors << QStringLiteral("Two channels are named \"%1\"; rename one of them.").arg(c.name);
        channelByName.insert(c.name, c.id);
        config.channels.push_back(c);
    }

    const QJsonArray routes = top.array("routes");
    std::vector<int> routeIds;
    assignIds(routes, &routeIds);
    for (qsizetype i = 0; i < routes.size(); ++i) {
        const QJsonObject o = routes[i].toObject();
        RouteConfig route;
        route.id = routeIds[static_cast<std::size_t>(i)];
        Reader r(o, QStringLiteral("routes[%1]").arg(i), &errors, &warnings);
        int ignoredId = 0;
        r.read("id", &ignoredId);
        r.read("model", &route.logicalModel, true);
        QString strategy;
        r.read("strategy", &strategy);
        if (!strategy.isEmpty() && !routingStrategyFromString(strategy, &route.strategy))
            errors << QStringLiteral("Route \"%1\": unknown strategy \"%2\" (use health, weighted, latency, priority or round-robin).")
                          .arg(route.logicalModel, strategy);
        for (const auto &v : r.array("channels")) {
            const QString name = v.toString();
            if (channelByName.contains(name))
                route.channelIds.push_back(channelByName.value(name));
            else
                errors << QStringLiteral("Route \"%1\" names channel \"%2\", which is not in the file.").arg(route.logicalModel, name);
        }
        for (const auto &v : r.array("fallback_models"))
            route.fallbackModels << v.toString();
        r.read("cache", &route.cacheEnabled);
        r.read("cache_ttl_s", &route.cache.ttl);
        r.read("semantic_cache", &route.cache.semantic);
        QString preset;
        r.read("semantic_preset", &preset);
        if (!preset.isEmpty() && !semanticPresetFromString(preset, &route.cache.preset))
            errors << QStringLiteral("Route \"%1\": unknown semantic cache preset \"%2\" (use strict, balanced or loose).")
                          .arg(route.logicalModel, preset);
        QString embeddingsChannel;
        r.read("embeddings_channel", &embeddingsChannel);
        if (!embeddingsChannel.isEmpty()) {
            if (channelByName.contains(embeddingsChannel))
                route.cache.embeddingsChannelId = channelByName.value(embeddingsChannel);
            else
                errors << QStringLiteral("Route \"%1\" names embeddings channel \"%2\", which is not in the file.")
                              .arg(route.logicalModel, embeddingsChannel);
        }
        r.read("embeddings_model", &route.cache.embeddingsModel);
        r.read("retry_client_errors_elsewhere", &route.retryClientErrorsElsewhere);
        r.read("continue_streams", &route.continueStreams);
        r.read("stream_tool_calls", &route.streamToolCalls);
        r.warnUnknown();
        config.routes.push_back(route);
    }

    const QJsonArray prices = top.array("prices");
    for (qsizetype i = 0; i < prices.size(); ++i) {
        const QJsonObject o = prices[i].toObject();
        ModelPrice price;
        Reader r(o, QStringLiteral("prices[%1]").arg(i), &errors, &warnings);
        r.read("model", &price.model, true);
        r.read("input_usd_per_1m", &price.inputUsdPerM);
        r.read("output_usd_per_1m", &price.outputUsdPerM);
        r.read("cached_input_usd_per_1m", &price.cachedInputUsdPerM);
        r.read("cache_write_usd_per_1m", &price.cacheWriteUsdPerM);
        r.warnUnknown();
        // Left out (or null), a cache price stays unset; written, it must not be negative.
        const bool cacheNegative = (o.value(QLatin1String("cached_input_usd_per_1m")).isDouble() && price.cachedInputUsdPerM < 0)
            || (o.value(QLatin1String("cache_write_usd_per_1m")).isDouble() && price.cacheWriteUsdPerM < 0);
        if (price.inputUsdPerM < 0 || price.outputUsdPerM < 0 || cacheNegative)
            errors << QStringLiteral("The price of \"%1\" cannot be negative.").arg(price.model);
        config.prices.push_back(price);
    }

    config.budgets = budgetsFromJson(top.array("budgets"), &errors, &warnings);
    top.markSeen("auto_model");
    const QJsonValue autoModel = root.value(QStringLiteral("auto_model"));
    if (autoModel.isObject())
        config.autoModel = autoModelFromJson(autoModel.toObject(), &errors, &warnings);
    else if (!autoModel.isUndefined() && !autoModel.isNull())
        errors << QStringLiteral("configuration: \"auto_model\" must be an object.");

    top.markSeen("settings");
    top.warnUnknown();

    if (errors.isEmpty())
        errors << config.validate();
    return out;
}

} // namespace sb
