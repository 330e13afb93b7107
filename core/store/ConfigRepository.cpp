#include "store/ConfigRepository.h"

#include "common/Clock.h"
#include "common/SecretMask.h"
#include "model/ConfigJson.h"
#include "store/CostConfigTables.h"
#include "store/DemoConfig.h"
#include "store/SecretStore.h"
#include "telemetry/HistoryRecords.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <QSqlError>
#include <QSqlQuery>

#include <spdlog/spdlog.h>

namespace sb {

namespace {

// Settings are stored as one-element JSON arrays so every JSON type (string, number, bool)
// round-trips through one TEXT column without guessing.
QString encodeValue(const QJsonValue &v)
{
    return QString::fromUtf8(QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact));
}

QJsonValue decodeValue(const QString &text)
{
    return QJsonDocument::fromJson(text.toUtf8()).array().at(0);
}

QStringList names(QSqlDatabase db, const QString &sql)
{
    QStringList out;
    QSqlQuery q(db);
    if (q.exec(sql))
        while (q.next())
            out << q.value(0).toString();
    return out;
}

QString describeChange(const QString &what, const QStringList &before, const QStringList &after)
{
    const QSet<QString> b(before.begin(), before.end());
    const QSet<QString> a(after.begin(), after.end());
    QStringList parts;
    QStringList added, removed;
    for (const auto &n : after)
        if (!b.contains(n))
            added << n;
    for (const auto &n : before)
        if (!a.contains(n))
            removed << n;
    if (!added.isEmpty())
        parts << QStringLiteral("added %1 %2").arg(what, added.join(QStringLiteral(", ")));
    if (!removed.isEmpty())
        parts << QStringLiteral("removed %1 %2").arg(what, removed.join(QStringLiteral(", ")));
    return parts.join(QStringLiteral("; "));
}

class Transaction {
public:
    // Writers take the write lock up front (IMMEDIATE) so they wait for the history writer at BEGIN
    // rather than failing half-way; readers use a plain BEGIN for a consistent snapshot.
    Transaction(Database &db, bool write)
        : m_db(db)
    {
        m_active = m_db.exec(write ? QStringLiteral("BEGIN IMMEDIATE") : QStringLiteral("BEGIN"), &m_error);
    }
    ~Transaction()
    {
        if (m_active)
            m_db.exec(QStringLiteral("ROLLBACK"));
    }
    bool active() const { return m_active; }
    const QString &error() const { return m_error; }
    bool commit()
    {
        if (!m_db.exec(QStringLiteral("COMMIT"), &m_error))
            return false;
        m_active = false;
        return true;
    }

private:
    Database &m_db;
    bool m_active = false;
    QString m_error;
};

// Runs a prepared statement with the values in order; collects the first error.
bool run(QSqlQuery &q, const QVariantList &values, QString *error)
{
    for (int i = 0; i < values.size(); ++i)
        q.bindValue(i, values[i].typeId() == QMetaType::QString ? Database::text(values[i].toString()) : values[i]);
    if (q.exec())
        return true;
    if (error && error->isEmpty())
        *error = q.lastError().text();
    return false;
}

} // namespace

ConfigRepository::ConfigRepository(QString dbPath, SecretStore &secrets, Clock &clock)
    : m_db(std::move(dbPath), QStringLiteral("config"))
    , m_secrets(&secrets)
    , m_clock(clock)
{
}

bool ConfigRepository::open(QString *error)
{
    return m_db.open(error);
}

QString ConfigRepository::secretRefOf(int keyId) const
{
    QSqlQuery q(m_db.connection());
    q.prepare(QStringLiteral("SELECT secret_ref FROM api_keys WHERE id = ?"));
    q.addBindValue(keyId);
    if (q.exec() && q.next())
        return q.value(0).toString();
    return {};
}

QString ConfigRepository::meta(const QString &key, const QString &fallback) const
{
    QSqlQuery q(m_db.connection());
    q.prepare(QStringLiteral("SELECT value FROM meta WHERE key = ?"));
    q.addBindValue(key);
    if (q.exec() && q.next())
        return q.value(0).toString();
    return fallback;
}

bool ConfigRepository::isEmpty() const
{
    return meta(QStringLiteral("config.saved_ms")).isEmpty();
}

bool ConfigRepository::seedDemoIfEmpty(QString *error)
{
    if (!isEmpty())
        return false;
    const SaveResult r = save(DemoConfig::build(), QStringLiteral("first start: demo configuration seeded"));
    if (!r.ok()) {
        if (error)
            *error = r.errors.join(QLatin1Char(' '));
        return false;
    }
    return true;
}

EngineConfigPtr ConfigRepository::load(QString *error)
{
    auto config = std::make_shared<EngineConfig>();
    const QSqlDatabase db = m_db.connection();
    QSqlQuery q(db);
    auto fail = [&](const QString &what) -> EngineConfigPtr {
        if (error)
            *error = QStringLiteral("Cannot read the %1 from the database: %2.").arg(what, q.lastError().text());
        return nullptr;
    };

    // One read transaction, so a save committing meanwhile cannot hand us half of each.
    Transaction tx(m_db, false);
    if (!tx.active()) {
        if (error)
            *error = tx.error();
        return nullptr;
    }

    if (!q.exec(QStringLiteral("SELECT key, value FROM settings")))
        return fail(QStringLiteral("settings"));
    while (q.next()) {
        const QString problem = applyEngineSetting(config.get(), q.value(0).toString(), decodeValue(q.value(1).toString()));
        if (!problem.isEmpty()) // a setting this build no longer knows: keep the default, say so
            spdlog::warn("config: {}", problem.toStdString());
    }

    if (!q.exec(QStringLiteral("SELECT id, name, dialect, base_url, enabled, connect_timeout_ms, primary_timeout_ms, fallback_timeout_ms,"
                               " requests_per_minute, tokens_per_minute, burst, account, region, egress_proxy, responses_api,"
                               " ca_bundle, tls_skip_verify, http2 FROM providers ORDER BY position")))
        return fail(QStringLiteral("providers"));
    while (q.next()) {
        ProviderConfig p;
        p.id = q.value(0).toInt();
        p.name = q.value(1).toString();
        p.dialect = q.value(2).toString();
        p.baseUrl = q.value(3).toString();
        p.enabled = q.value(4).toBool();
        p.connectTimeout = std::chrono::milliseconds(q.value(5).toLongLong());
        p.primaryTimeout = std::chrono::milliseconds(q.value(6).toLongLong());
        p.fallbackTimeout = std::chrono::milliseconds(q.value(7).toLongLong());
        p.requestsPerMinute = q.value(8).toInt();
        p.tokensPerMinute = q.value(9).toInt();
        p.burst = q.value(10).toInt();
        p.domain.account = q.value(11).toString();
        p.domain.region = q.value(12).toString();
        p.domain.egressProxy = q.value(13).toString();
        p.responsesApi = q.value(14).toBool();
        p.caBundle = q.value(15).toString();
        p.tlsSkipVerify = q.value(16).toBool();
        p.http2 = q.value(17).toBool();
        config->providers.push_back(p);
    }

    QHash<int, std::size_t> providerIndex;
    for (std::size_t i = 0; i < config->providers.size(); ++i)
        providerIndex.insert(config->providers[i].id, i);
    QHash<int, QString> refById; // secrets are read after the transaction
    if (!q.exec(QStringLiteral("SELECT id, provider_id, label, enabled, disabled_reason, secret_ref FROM api_keys ORDER BY provider_id, position")))
        return fail(QStringLiteral("API keys"));
    while (q.next()) {
        ApiKeyConfig k;
        k.id = q.value(0).toInt();
        k.label = q.value(2).toString();
        k.enabled = q.value(3).toBool();
        k.disabledReason = q.value(4).toString();
        const auto it = providerIndex.find(q.value(1).toInt());
        if (it == providerIndex.end())
            continue;
        config->providers[*it].keys.push_back(k);
    }
    {
        QSqlQuery refs(db);
        refs.exec(QStringLiteral("SELECT id, secret_ref FROM api_keys"));
        while (refs.next())
            refById.insert(refs.value(0).toInt(), refs.value(1).toString());
    }
    // A refusal holds for the secret that got it: a key given a new secret since is not refused.
    if (!q.exec(QStringLiteral("SELECT r.key_id, r.reason, r.refused_ms FROM key_refusals r JOIN api_keys k"
                               " ON k.id = r.key_id AND k.secret_ref = r.secret_ref")))
        return fail(QStringLiteral("refused API keys"));
    while (q.next()) {
        const int keyId = q.value(0).toInt();
        for (auto &p : config->providers)
            for (auto &k : p.keys)
                if (k.id == keyId) {
                    k.refusedReason = q.value(1).toString();
                    k.refusedAtMs = std::max<qint64>(1, q.value(2).toLongLong());
                }
    }

    if (!q.exec(QStringLiteral("SELECT id, name, provider_id, upstream_model, weight, enabled, account, region, egress_proxy FROM channels ORDER BY position")))
        return fail(QStringLiteral("channels"));
    while (q.next()) {
        ChannelConfig c;
        c.id = q.value(0).toInt();
        c.name = q.value(1).toString();
        c.providerId = q.value(2).toInt();
        c.upstreamModel = q.value(3).toString();
        c.weight = q.value(4).toDouble();
        c.enabled = q.value(5).toBool();
        c.account = q.value(6).toString();
        c.region = q.value(7).toString();
        c.egressProxy = q.value(8).toString();
        config->channels.push_back(c);
    }

    if (!q.exec(QStringLiteral("SELECT id, logical_model, strategy, cache_enabled, retry_client_errors_elsewhere, continue_streams, stream_tool_calls FROM routes ORDER BY position")))
        return fail(QStringLiteral("routes"));
    while (q.next()) {
        RouteConfig r;
        r.id = q.value(0).toInt();
        r.logicalModel = q.value(1).toString();
        routingStrategyFromString(q.value(2).toString(), &r.strategy);
        r.cacheEnabled = q.value(3).toBool();
        r.retryClientErrorsElsewhere = q.value(4).toBool();
        r.continueStreams = q.value(5).toBool();
        r.streamToolCalls = q.value(6).toBool();
        config->routes.push_back(r);
    }
    for (auto &r : config->routes) {
        q.prepare(QStringLiteral("SELECT ttl_s, semantic, preset, embeddings_channel_id, embeddings_model FROM route_cache WHERE route_id = ?"));
        q.addBindValue(r.id);
        if (!q.exec())
            return fail(QStringLiteral("route cache settings"));
        if (q.next()) {
            r.cache.ttl = std::chrono::seconds(q.value(0).toLongLong());
            r.cache.semantic = q.value(1).toBool();
            semanticPresetFromString(q.value(2).toString(), &r.cache.preset);
            r.cache.embeddingsChannelId = q.value(3).toInt();
            r.cache.embeddingsModel = q.value(4).toString();
        }
        q.prepare(QStringLiteral("SELECT channel_id FROM route_channels WHERE route_id = ? ORDER BY position"));
        q.addBindValue(r.id);
        if (!q.exec())
            return fail(QStringLiteral("route channels"));
        while (q.next())
            r.channelIds.push_back(q.value(0).toInt());
        q.prepare(QStringLiteral("SELECT model FROM route_fallbacks WHERE route_id = ? ORDER BY priority"));
        q.addBindValue(r.id);
        if (!q.exec())
            return fail(QStringLiteral("route fallbacks"));
        while (q.next())
            r.fallbackModels << q.value(0).toString();
    }

    if (!q.exec(QStringLiteral("SELECT model, input_usd_per_m, output_usd_per_m, cached_input_usd_per_m, cache_write_usd_per_m"
                               " FROM prices ORDER BY model")))
        return fail(QStringLiteral("prices"));
    while (q.next())
        config->prices.push_back(ModelPrice{q.value(0).toString(), q.value(1).toDouble(), q.value(2).toDouble(),
                                            q.value(3).toDouble(), q.value(4).toDouble()});
    if (QString costError; !CostConfigTables::load(db, config.get(), &costError)) {
        if (error)
            *error = costError;
        return nullptr;
    }

    config->demo = meta(QStringLiteral("config.demo")) == u"1";
    q.finish();
    tx.commit();

    // Secrets last and outside the transaction: a keyring may take its time.
    for (auto &p : config->providers) {
        for (auto &k : p.keys) {
            QString secretError;
            const QString ref = refById.value(k.id);
            if (ref.isEmpty())
                continue;
            const auto secret = m_secrets->load(ref, &secretError);
            if (secret) {
                k.secret = *secret;
                continue;
            }
            // A key the configuration has and the store cannot give is out of rotation, said by
            // name: sending the provider requests without it would only earn 401s.
            k.unreadableReason = secretError.isEmpty() ? QStringLiteral("its secret is missing from the %1").arg(m_secrets->backendName())
                                                       : secretError;
            spdlog::warn("config: provider \"{}\" key \"{}\" cannot be used: {}", p.name.toStdString(), k.label.toStdString(),
                         k.unreadableReason.toStdString());
        }
    }
    const QString tokenRef = meta(QStringLiteral("proxy.local_token_ref"));
    if (!tokenRef.isEmpty()) {
        QString tokenError;
        if (const auto token = m_secrets->load(tokenRef, &tokenError)) {
            config->proxy.localToken = *token;
        } else {
            config->proxy.localTokenUnreadable = tokenError.isEmpty()
                ? QStringLiteral("it is missing from the %1").arg(m_secrets->backendName()) : tokenError;
            spdlog::warn("config: the local token cannot be read, so every request is refused until it can: {}",
                         config->proxy.localTokenUnreadable.toStdString());
        }
    }
    return config;
}

ConfigRepository::SaveResult ConfigRepository::save(const EngineConfig &input, const QString &reason)
{
    SaveResult result;
    EngineConfig config = input;
    result.errors = config.validate();
    for (const auto &p : config.providers)
        if (p.id <= 0)
            result.errors << QStringLiteral("Provider \"%1\" has no id.").arg(p.name);
    for (const auto &c : config.channels)
        if (c.id <= 0)
            result.errors << QStringLiteral("Channel \"%1\" has no id.").arg(c.name);
    if (!result.errors.isEmpty())
        return result;

    const QSqlDatabase db = m_db.connection();

    // Existing keys: their previews stay when a key arrives without its secret.
    QHash<int, QString> oldPreview;
    QHash<int, QString> oldRef;
    QSet<int> oldKeyIds;
    {
        QSqlQuery q(db);
        q.exec(QStringLiteral("SELECT id, masked_preview, secret_ref FROM api_keys"));
        while (q.next()) {
            oldKeyIds.insert(q.value(0).toInt());
            oldPreview.insert(q.value(0).toInt(), q.value(1).toString());
            oldRef.insert(q.value(0).toInt(), q.value(2).toString());
        }
    }
    const QString oldTokenRef = meta(QStringLiteral("proxy.local_token_ref"));
    const qint64 revision = meta(QStringLiteral("config.revision"), QStringLiteral("0")).toLongLong() + 1;

    // New ids for keys and routes that have none.
    int nextKeyId = 1;
    for (int id : oldKeyIds)
        nextKeyId = std::max(nextKeyId, id + 1);
    QSet<int> keyIds;
    for (const auto &p : config.providers)
        for (const auto &k : p.keys)
            nextKeyId = std::max(nextKeyId, k.id + 1);
    for (auto &p : config.providers) {
        for (auto &k : p.keys) {
            if (k.id <= 0 || keyIds.contains(k.id))
                k.id = nextKeyId++;
            keyIds.insert(k.id);
        }
    }
    int nextRouteId = 1;
    for (const auto &r : config.routes)
        nextRouteId = std::max(nextRouteId, r.id + 1);
    QSet<int> routeIds;
    for (auto &r : config.routes) {
        if (r.id <= 0 || routeIds.contains(r.id))
            r.id = nextRouteId++;
        routeIds.insert(r.id);
    }

    // Secrets cannot share the table transaction (the keyring is another store), so a changed
    // secret goes under a new name, tagged with this save's revision, before the commit; the rows
    // switch to the new name in the commit; the old secret is removed after it. A crash at any point
    // leaves the stored rows pointing at a secret that exists and belongs to them (and at worst an
    // unused secret behind) — never rows of one save with the secret of another.
    QHash<int, QString> newRef;
    QStringList written;
    auto storeVersioned = [&](const QString &base, const QString &previousRef, const QString &secret, QString *ref) -> bool {
        if (!previousRef.isEmpty()) {
            const auto current = m_secrets->load(previousRef);
            if (current && *current == secret) { // unchanged: keep it where it is
                *ref = previousRef;
                return true;
            }
        }
        *ref = QStringLiteral("%1/r%2").arg(base).arg(revision);
        QString error;
        if (!m_secrets->store(*ref, secret, &error)) {
            result.errors << error;
            return false;
        }
        written << *ref;
        return true;
    };
    auto forgetWritten = [&] {
        for (const QString &ref : written)
            m_secrets->remove(ref);
    };
    for (const auto &p : config.providers) {
        for (const auto &k : p.keys) {
            QString ref = oldRef.value(k.id);
            if (!k.secret.isEmpty() && !storeVersioned(QStringLiteral("api-key/%1").arg(k.id), ref, k.secret, &ref)) {
                forgetWritten();
                return result;
            }
            newRef.insert(k.id, ref);
        }
    }
    // A token that could not be read stays where it is: the save did not mean to remove it.
    QString tokenRef = config.proxy.localToken.isEmpty() && !config.proxy.localTokenUnreadable.isEmpty() ? oldTokenRef : QString();
    if (!config.proxy.localToken.isEmpty() && !storeVersioned(QStringLiteral("proxy/local-token"), oldTokenRef, config.proxy.localToken, &tokenRef)) {
        forgetWritten();
        return result;
    }

    const QStringList oldProviders = names(db, QStringLiteral("SELECT name FROM providers ORDER BY position"));
    const QStringList oldChannels = names(db, QStringLiteral("SELECT name FROM channels ORDER BY position"));
    const QStringList oldRoutes = names(db, QStringLiteral("SELECT logical_model FROM routes ORDER BY position"));

    QString error;
    {
        Transaction tx(m_db, true);
        if (!tx.active()) {
            result.errors << QStringLiteral("Cannot save the configuration: %1").arg(tx.error());
            forgetWritten();
            return result;
        }
        for (const char *table : {"route_cache", "route_fallbacks", "route_channels", "routes", "channels", "api_keys", "providers", "settings", "prices"}) {
            if (!m_db.exec(QStringLiteral("DELETE FROM %1").arg(QLatin1String(table)), &error)) {
                result.errors << QStringLiteral("Cannot save the configuration: %1").arg(error);
                forgetWritten();
                return result;
            }
        }

        QSqlQuery insProvider(db), insKey(db), insChannel(db), insRoute(db), insRouteChannel(db), insFallback(db), insSetting(db),
            insPrice(db), insMeta(db), insEvent(db), insRouteCache(db);
        insProvider.prepare(QStringLiteral("INSERT INTO providers (id, name, dialect, base_url, enabled, connect_timeout_ms, primary_timeout_ms,"
                                           " fallback_timeout_ms, requests_per_minute, tokens_per_minute, burst, account, region, egress_proxy,"
                                           " position, responses_api, ca_bundle, tls_skip_verify, http2)"
                                           " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"));
        insKey.prepare(QStringLiteral("INSERT INTO api_keys (id, provider_id, label, masked_preview, enabled, disabled_reason, secret_ref, position)"
                                      " VALUES (?,?,?,?,?,?,?,?)"));
        insChannel.prepare(QStringLiteral("INSERT INTO channels (id, name, provider_id, upstream_model, weight, enabled, account, region,"
                                          " egress_proxy, position) VALUES (?,?,?,?,?,?,?,?,?,?)"));
        insRoute.prepare(QStringLiteral("INSERT INTO routes (id, logical_model, strategy, cache_enabled, position, retry_client_errors_elsewhere,"
                                        " continue_streams, stream_tool_calls) VALUES (?,?,?,?,?,?,?,?)"));
        insRouteChannel.prepare(QStringLiteral("INSERT INTO route_channels (route_id, position, channel_id) VALUES (?,?,?)"));
        insFallback.prepare(QStringLiteral("INSERT INTO route_fallbacks (route_id, priority, model) VALUES (?,?,?)"));
        insRouteCache.prepare(QStringLiteral("INSERT INTO route_cache (route_id, ttl_s, semantic, preset, embeddings_channel_id, embeddings_model)"
                                             " VALUES (?,?,?,?,?,?)"));
        insSetting.prepare(QStringLiteral("INSERT INTO settings (key, value) VALUES (?,?)"));
        insPrice.prepare(QStringLiteral("INSERT OR REPLACE INTO prices (model, input_usd_per_m, output_usd_per_m,"
                                        " cached_input_usd_per_m, cache_write_usd_per_m) VALUES (?,?,?,?,?)"));
        insMeta.prepare(QStringLiteral("INSERT OR REPLACE INTO meta (key, value) VALUES (?,?)"));
        insEvent.prepare(QStringLiteral("INSERT INTO events (time_ms, kind, channel_id, provider_id, key_id, from_state, to_state, message)"
                                        " VALUES (?,?,0,0,0,'','',?)"));

        bool ok = true;
        int position = 0;
        for (const auto &p : config.providers) {
            ok = ok && run(insProvider, {p.id, p.name, p.dialect, p.baseUrl, p.enabled, qint64(p.connectTimeout.count()),
                                         qint64(p.primaryTimeout.count()), qint64(p.fallbackTimeout.count()), p.requestsPerMinute,
                                         p.tokensPerMinute, p.burst, p.domain.account, p.domain.region, p.domain.egressProxy, position++, p.responsesApi,
                                         p.caBundle, p.tlsSkipVerify, p.http2},
                             &error);
            int keyPosition = 0;
            for (const auto &k : p.keys) {
                const QString preview = k.secret.isEmpty() ? oldPreview.value(k.id) : maskSecret(k.secret);
                ok = ok && run(insKey, {k.id, p.id, k.label, preview, k.enabled, k.disabledReason, newRef.value(k.id), keyPosition++}, &error);
            }
        }
        position = 0;
        for (const auto &c : config.channels)
            ok = ok && run(insChannel, {c.id, c.name, c.providerId, c.upstreamModel, c.weight, c.enabled, c.account, c.region,
                                        c.egressProxy, position++}, &error);
        position = 0;
        for (const auto &r : config.routes) {
            ok = ok && run(insRoute, {r.id, r.logicalModel, QString::fromLatin1(toString(r.strategy)), r.cacheEnabled, position++, r.retryClientErrorsElsewhere,
                                     r.continueStreams, r.streamToolCalls}, &error);
            for (std::size_t i = 0; i < r.channelIds.size(); ++i)
                ok = ok && run(insRouteChannel, {r.id, int(i), r.channelIds[i]}, &error);
            for (int i = 0; i < r.fallbackModels.size(); ++i)
                ok = ok && run(insFallback, {r.id, i, r.fallbackModels[i]}, &error);
            ok = ok && run(insRouteCache, {r.id, qint64(r.cache.ttl.count()), r.cache.semantic, QString::fromLatin1(toString(r.cache.preset)),
                                           r.cache.embeddingsChannelId, r.cache.embeddingsModel}, &error);
        }
        for (const auto &[key, value] : engineSettings(config))
            ok = ok && run(insSetting, {key, encodeValue(value)}, &error);
        for (const auto &price : config.prices)
            ok = ok
                && run(insPrice,
                       {price.model, price.inputUsdPerM, price.outputUsdPerM,
                        ModelPrice::isSet(price.cachedInputUsdPerM) ? price.cachedInputUsdPerM : ModelPrice::kUnsetPrice,
                        ModelPrice::isSet(price.cacheWriteUsdPerM) ? price.cacheWriteUsdPerM : ModelPrice::kUnsetPrice},
                       &error);
        ok = ok && CostConfigTables::save(db, config, &error);
        // Refusals of keys that are gone or have a new secret are over; the others stay as they were.
        ok = ok && m_db.exec(QStringLiteral("DELETE FROM key_refusals WHERE NOT EXISTS (SELECT 1 FROM api_keys k"
                                            " WHERE k.id = key_refusals.key_id AND k.secret_ref = key_refusals.secret_ref)"), &error);

        const qint64 now = m_clock.wallMillis();
        ok = ok && run(insMeta, {QStringLiteral("config.saved_ms"), QString::number(now)}, &error);
        ok = ok && run(insMeta, {QStringLiteral("config.demo"), config.demo ? QStringLiteral("1") : QStringLiteral("0")}, &error);
        ok = ok && run(insMeta, {QStringLiteral("config.revision"), QString::number(revision)}, &error);
        ok = ok && run(insMeta, {QStringLiteral("proxy.local_token_ref"), tokenRef}, &error);

        QStringList changes;
        for (const QString &c : {describeChange(QStringLiteral("provider"), oldProviders, [&] {
                                     QStringList l;
                                     for (const auto &p : config.providers)
                                         l << p.name;
                                     return l;
                                 }()),
                                 describeChange(QStringLiteral("channel"), oldChannels, [&] {
                                     QStringList l;
                                     for (const auto &ch : config.channels)
                                         l << ch.name;
                                     return l;
                                 }()),
                                 describeChange(QStringLiteral("route"), oldRoutes, [&] {
                                     QStringList l;
                                     for (const auto &r : config.routes)
                                         l << r.logicalModel;
                                     return l;
                                 }())})
            if (!c.isEmpty())
                changes << c;
        QString message = reason.isEmpty() ? QStringLiteral("Configuration saved") : QStringLiteral("Configuration saved (%1)").arg(reason);
        message += QStringLiteral(": %1 providers, %2 channels, %3 routes").arg(config.providers.size()).arg(config.channels.size()).arg(config.routes.size());
        if (!changes.isEmpty())
            message += QStringLiteral("; ") + changes.join(QStringLiteral("; "));
        ok = ok && run(insEvent, {now, QString::fromLatin1(toString(EventKind::ConfigChange)), message}, &error);

        if (!ok || !tx.commit()) {
            result.errors << QStringLiteral("Cannot save the configuration; nothing was changed: %1").arg(ok ? tx.error() : error);
            forgetWritten();
            return result;
        }
    }

    // Secrets of keys that are gone, after the commit: a crash before this leaves an orphan secret,
    // never a key without one.
    QSet<QString> inUse(newRef.begin(), newRef.end());
    inUse.insert(tokenRef);
    QStringList stale = oldRef.values();
    stale << oldTokenRef;
    for (const QString &ref : stale) {
        if (ref.isEmpty() || inUse.contains(ref))
            continue;
        QString removeError;
        if (!m_secrets->remove(ref, &removeError))
            spdlog::warn("config: {}", removeError.toStdString());
    }

    QString loadError;
    result.config = load(&loadError);
    if (!result.config)
        result.errors << loadError;
    return result;
}

bool ConfigRepository::recordKeyRefused(int keyId, const QString &maskedPreview, const QString &reason, qint64 atMs, QString *error)
{
    // Only while the key still has the secret that was refused: its masked form is what the ring
    // knew, and a save that gave the key a new secret since has a new preview (and a new secret_ref).
    QSqlQuery q(m_db.connection());
    q.prepare(QStringLiteral("INSERT OR REPLACE INTO key_refusals (key_id, secret_ref, reason, refused_ms)"
                             " SELECT id, secret_ref, ?, ? FROM api_keys WHERE id = ? AND masked_preview = ? AND secret_ref != ''"));
    q.addBindValue(Database::text(reason));
    q.addBindValue(atMs);
    q.addBindValue(keyId);
    q.addBindValue(Database::text(maskedPreview));
    if (!q.exec()) {
        if (error)
            *error = QStringLiteral("Cannot keep the refusal of API key %1: %2").arg(keyId).arg(q.lastError().text());
        return false;
    }
    return q.numRowsAffected() > 0;
}

bool ConfigRepository::reenableKey(int keyId, QString *error)
{
    const QSqlDatabase db = m_db.connection();
    QString label, provider;
    {
        QSqlQuery q(db);
        q.prepare(QStringLiteral("SELECT k.label, p.name FROM key_refusals r JOIN api_keys k ON k.id = r.key_id"
                                 " JOIN providers p ON p.id = k.provider_id WHERE r.key_id = ?"));
        q.addBindValue(keyId);
        if (!q.exec() || !q.next()) {
            if (error)
                *error = QStringLiteral("API key %1 is not disabled by a refusal.").arg(keyId);
            return false;
        }
        label = q.value(0).toString();
        provider = q.value(1).toString();
    }
    Transaction tx(m_db, true);
    QSqlQuery del(db), event(db);
    del.prepare(QStringLiteral("DELETE FROM key_refusals WHERE key_id = ?"));
    event.prepare(QStringLiteral("INSERT INTO events (time_ms, kind, channel_id, provider_id, key_id, from_state, to_state, message)"
                                 " VALUES (?,?,0,0,?,'disabled','active',?)"));
    QString sqlError;
    const bool ok = tx.active() && run(del, {keyId}, &sqlError)
        && run(event, {qint64(m_clock.wallMillis()), QString::fromLatin1(toString(EventKind::ConfigChange)), keyId,
                       QStringLiteral("API key '%1' of %2 re-enabled by the user").arg(label, provider)},
               &sqlError)
        && tx.commit();
    if (!ok && error)
        *error = QStringLiteral("Cannot re-enable API key %1: %2").arg(keyId).arg(sqlError.isEmpty() ? tx.error() : sqlError);
    return ok;
}

std::vector<ConfigRepository::KeyPreview> ConfigRepository::keyPreviews() const
{
    std::vector<KeyPreview> out;
    QSqlQuery q(m_db.connection());
    if (!q.exec(QStringLiteral("SELECT id, provider_id, label, masked_preview, enabled, disabled_reason FROM api_keys ORDER BY provider_id, position")))
        return out;
    while (q.next())
        out.push_back(KeyPreview{q.value(0).toInt(), q.value(1).toInt(), q.value(2).toString(), q.value(3).toString(),
                                 q.value(4).toBool(), q.value(5).toString()});
    return out;
}

int ConfigRepository::historyRetentionDays() const
{
    bool ok = false;
    const int days = meta(QStringLiteral("history.retention_days")).toInt(&ok);
    return ok && days > 0 ? days : DefaultRetentionDays;
}

bool ConfigRepository::setHistoryRetentionDays(int days, QString *error)
{
    if (days < 1) {
        if (error)
            *error = QStringLiteral("History must be kept for at least one day.");
        return false;
    }
    QSqlQuery q(m_db.connection());
    q.prepare(QStringLiteral("INSERT OR REPLACE INTO meta (key, value) VALUES ('history.retention_days', ?)"));
    q.addBindValue(QString::number(days));
    if (!q.exec()) {
        if (error)
            *error = q.lastError().text();
        return false;
    }
    return true;
}

} // namespace sb
