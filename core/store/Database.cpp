#include "store/Database.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSqlError>
#include <QSqlQuery>
#include <QStandardPaths>

#include <atomic>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace sb {

namespace {

std::atomic<int> g_connectionCounter{0};

QStringList schemaV1()
{
    return {
        // Configuration ----------------------------------------------------------------------------
        QStringLiteral("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)"),
        QStringLiteral("CREATE TABLE providers ("
                       " id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, dialect TEXT NOT NULL, base_url TEXT NOT NULL,"
                       " enabled INTEGER NOT NULL, connect_timeout_ms INTEGER NOT NULL, primary_timeout_ms INTEGER NOT NULL,"
                       " fallback_timeout_ms INTEGER NOT NULL, requests_per_minute INTEGER NOT NULL,"
                       " tokens_per_minute INTEGER NOT NULL, burst INTEGER NOT NULL, account TEXT NOT NULL,"
                       " region TEXT NOT NULL, egress_proxy TEXT NOT NULL, position INTEGER NOT NULL)"),
        // The secret is not here: secret_ref names it in the SecretStore; masked_preview is all the
        // console ever shows.
        QStringLiteral("CREATE TABLE api_keys ("
                       " id INTEGER PRIMARY KEY, provider_id INTEGER NOT NULL REFERENCES providers(id) ON DELETE CASCADE,"
                       " label TEXT NOT NULL, masked_preview TEXT NOT NULL, enabled INTEGER NOT NULL,"
                       " disabled_reason TEXT NOT NULL, secret_ref TEXT NOT NULL, position INTEGER NOT NULL)"),
        QStringLiteral("CREATE TABLE channels ("
                       " id INTEGER PRIMARY KEY, name TEXT NOT NULL, provider_id INTEGER NOT NULL REFERENCES providers(id),"
                       " upstream_model TEXT NOT NULL, weight REAL NOT NULL, enabled INTEGER NOT NULL,"
                       " account TEXT NOT NULL, region TEXT NOT NULL, egress_proxy TEXT NOT NULL, position INTEGER NOT NULL)"),
        QStringLiteral("CREATE TABLE routes ("
                       " id INTEGER PRIMARY KEY, logical_model TEXT NOT NULL UNIQUE, strategy TEXT NOT NULL,"
                       " cache_enabled INTEGER NOT NULL, position INTEGER NOT NULL)"),
        // Tier 0 of a route: its own channels in priority order.
        QStringLiteral("CREATE TABLE route_channels ("
                       " route_id INTEGER NOT NULL REFERENCES routes(id) ON DELETE CASCADE, position INTEGER NOT NULL,"
                       " channel_id INTEGER NOT NULL REFERENCES channels(id), PRIMARY KEY (route_id, position))"),
        // Further tiers: other logical models by priority (degradation).
        QStringLiteral("CREATE TABLE route_fallbacks ("
                       " route_id INTEGER NOT NULL REFERENCES routes(id) ON DELETE CASCADE, priority INTEGER NOT NULL,"
                       " model TEXT NOT NULL, PRIMARY KEY (route_id, priority))"),
        // Every EngineConfig threshold, "<section>.<name>" → JSON-encoded value (see ConfigJson.h).
        QStringLiteral("CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)"),
        QStringLiteral("CREATE TABLE prices (model TEXT PRIMARY KEY, input_usd_per_m REAL NOT NULL, output_usd_per_m REAL NOT NULL)"),
        // Only used when no keyring answers (DatabaseSecretStore); the file is 0600 then.
        QStringLiteral("CREATE TABLE secrets (key_id TEXT PRIMARY KEY, secret TEXT NOT NULL)"),

        // History ----------------------------------------------------------------------------------
        QStringLiteral("CREATE TABLE requests ("
                       " id INTEGER PRIMARY KEY, time_ms INTEGER NOT NULL, request_id TEXT NOT NULL, logical_model TEXT NOT NULL,"
                       " channel_id INTEGER NOT NULL, channel_name TEXT NOT NULL, status TEXT NOT NULL, outcome TEXT NOT NULL,"
                       " http_status INTEGER NOT NULL, ttft_ms INTEGER NOT NULL, latency_ms INTEGER NOT NULL,"
                       " input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL, cost_usd REAL NOT NULL,"
                       " failover INTEGER NOT NULL, cache_hit INTEGER NOT NULL, streamed INTEGER NOT NULL,"
                       " error TEXT NOT NULL, attempts TEXT NOT NULL)"),
        QStringLiteral("CREATE INDEX requests_time ON requests (time_ms)"),
        QStringLiteral("CREATE TABLE events ("
                       " id INTEGER PRIMARY KEY, time_ms INTEGER NOT NULL, kind TEXT NOT NULL, channel_id INTEGER NOT NULL,"
                       " provider_id INTEGER NOT NULL, key_id INTEGER NOT NULL, from_state TEXT NOT NULL,"
                       " to_state TEXT NOT NULL, message TEXT NOT NULL)"),
        QStringLiteral("CREATE INDEX events_time ON events (time_ms)"),
        QStringLiteral("CREATE TABLE health_samples ("
                       " time_ms INTEGER NOT NULL, channel_id INTEGER NOT NULL, score REAL NOT NULL, error_rate REAL NOT NULL,"
                       " fast_error_rate REAL NOT NULL, p95_ms REAL NOT NULL, state TEXT NOT NULL)"),
        QStringLiteral("CREATE INDEX health_samples_time ON health_samples (time_ms, channel_id)"),
        QStringLiteral("CREATE TABLE health_minutes ("
                       " minute_ms INTEGER NOT NULL, channel_id INTEGER NOT NULL, samples INTEGER NOT NULL,"
                       " score_avg REAL NOT NULL, score_min REAL NOT NULL, error_rate_avg REAL NOT NULL,"
                       " fast_error_rate_max REAL NOT NULL, p95_max_ms REAL NOT NULL, state TEXT NOT NULL,"
                       " PRIMARY KEY (channel_id, minute_ms))"),
        QStringLiteral("CREATE INDEX health_minutes_time ON health_minutes (minute_ms)"),
    };
}

// Caching: a route's cache settings beside the route (the exact cache's switch stays in
// routes.cache_enabled), and the semantic cache's entries so they survive a restart. The scope is
// the route and a digest of the system prompt and parameters; the embedding is float32, normalised.
QStringList schemaCache()
{
    return {
        QStringLiteral("CREATE TABLE route_cache ("
                       " route_id INTEGER PRIMARY KEY REFERENCES routes(id) ON DELETE CASCADE, ttl_s INTEGER NOT NULL,"
                       " semantic INTEGER NOT NULL, preset TEXT NOT NULL, embeddings_channel_id INTEGER NOT NULL,"
                       " embeddings_model TEXT NOT NULL)"),
        QStringLiteral("CREATE TABLE semantic_cache ("
                       " id INTEGER PRIMARY KEY, scope BLOB NOT NULL, created_ms INTEGER NOT NULL, expires_ms INTEGER NOT NULL,"
                       " embedding BLOB NOT NULL, answer BLOB NOT NULL)"),
        QStringLiteral("CREATE INDEX semantic_cache_expires ON semantic_cache (expires_ms)"),
    };
}

// Cost tracking, budgets and task-based model choice.
QStringList schemaV2()
{
    return {
        // A request whose provider reported no usage, or whose model has no price, has cost_known 0
        // and cost_usd 0: unknown, not free.
        QStringLiteral("ALTER TABLE requests ADD COLUMN cost_known INTEGER NOT NULL DEFAULT 1"),
        QStringLiteral("ALTER TABLE requests ADD COLUMN auto_tier TEXT NOT NULL DEFAULT ''"),
        // Spend per route and period was read back from requests at start through this index
        // (migration 14 replaces both with spend_minutes).
        QStringLiteral("CREATE INDEX requests_model_time ON requests (logical_model, time_ms)"),
        QStringLiteral("CREATE TABLE route_budgets ("
                       " model TEXT PRIMARY KEY, period TEXT NOT NULL, soft_limit_usd REAL NOT NULL,"
                       " hard_limit_usd REAL NOT NULL, position INTEGER NOT NULL)"),
        QStringLiteral("CREATE TABLE auto_tiers (position INTEGER PRIMARY KEY, name TEXT NOT NULL, model TEXT NOT NULL)"),
        // tools / code_blocks: "any", "yes" or "no"; keywords: a JSON array of strings.
        QStringLiteral("CREATE TABLE auto_rules ("
                       " position INTEGER PRIMARY KEY, tier TEXT NOT NULL, min_prompt_tokens INTEGER NOT NULL,"
                       " max_prompt_tokens INTEGER NOT NULL, tools TEXT NOT NULL, code_blocks TEXT NOT NULL, keywords TEXT NOT NULL)"),
    };
}

// Prompt caching: the part of a request's input_tokens (the whole prompt) read from and written to
// the provider's cache, and what those tokens cost. A price of -1 is unset, which bills them at the
// model's input price, as every request was billed before.
QStringList schemaPromptCache()
{
    return {
        QStringLiteral("ALTER TABLE requests ADD COLUMN cache_read_tokens INTEGER NOT NULL DEFAULT 0"),
        QStringLiteral("ALTER TABLE requests ADD COLUMN cache_write_tokens INTEGER NOT NULL DEFAULT 0"),
        QStringLiteral("ALTER TABLE prices ADD COLUMN cached_input_usd_per_m REAL NOT NULL DEFAULT -1"),
        QStringLiteral("ALTER TABLE prices ADD COLUMN cache_write_usd_per_m REAL NOT NULL DEFAULT -1"),
    };
}

QString sqlError(const QSqlError &e)
{
    return e.text().trimmed();
}

} // namespace

const std::vector<Migration> &Database::migrations()
{
    static const std::vector<Migration> list = {
        {1, QStringLiteral("configuration, secrets and history"), schemaV1()},
        {2, QStringLiteral("cost tracking, budgets and task-based model choice"), schemaV2()},
        {3, QStringLiteral("route cache settings and the semantic cache"), schemaCache()},
        {4, QStringLiteral("the client API of each request"),
         {QStringLiteral("ALTER TABLE requests ADD COLUMN client_api TEXT NOT NULL DEFAULT 'openai_chat'")}},
        // input: the request's own items (JSON array); response: the response object (JSON). Stored
        // responses are kept in a file of their own (ResponseStore::layout); what an older build
        // kept here is moved there when the store opens, and the table stays empty.
        {5, QStringLiteral("stored Responses API responses"),
         {QStringLiteral("CREATE TABLE responses (id TEXT PRIMARY KEY, created_ms INTEGER NOT NULL, previous_id TEXT NOT NULL,"
                         " input BLOB NOT NULL, response BLOB NOT NULL)"),
          QStringLiteral("CREATE INDEX responses_created ON responses (created_ms)")}},
        {6, QStringLiteral("prompt-cache tokens and their prices"), schemaPromptCache()},
        {7, QStringLiteral("providers that serve the Responses API"),
         {QStringLiteral("ALTER TABLE providers ADD COLUMN responses_api INTEGER NOT NULL DEFAULT 0")}},
        // Whether a client error from one provider is tried once on another's channel (RouteConfig);
        // routes stored before it get the default, on.
        {8, QStringLiteral("routes that try a client error on another provider"),
         {QStringLiteral("ALTER TABLE routes ADD COLUMN retry_client_errors_elsewhere INTEGER NOT NULL DEFAULT 1")}},
        // Keys the provider refused (401/403, a spent quota), for the secret that got it (api_keys.secret_ref
        // then): kept beside api_keys, which every save rewrites, so a restart or an unrelated edit
        // keeps the key out of rotation; a new secret or re-enabling the key deletes the row.
        {9, QStringLiteral("API keys the provider refused"),
         {QStringLiteral("CREATE TABLE key_refusals (key_id INTEGER PRIMARY KEY, secret_ref TEXT NOT NULL, reason TEXT NOT NULL,"
                         " refused_ms INTEGER NOT NULL)")}},
        // A provider's own CA bundle, and its explicit choice not to verify TLS (ProviderConfig);
        // providers stored before them trust the system's CAs and verify.
        {10, QStringLiteral("per-provider TLS trust: a CA bundle, or no verification"),
         {QStringLiteral("ALTER TABLE providers ADD COLUMN ca_bundle TEXT NOT NULL DEFAULT ''"),
          QStringLiteral("ALTER TABLE providers ADD COLUMN tls_skip_verify INTEGER NOT NULL DEFAULT 0")}},
        // Whether a stream broken after text reached the client is continued on another channel
        // (RouteConfig); routes stored before it get the default, on.
        {11, QStringLiteral("routes that continue a broken stream"),
         {QStringLiteral("ALTER TABLE routes ADD COLUMN continue_streams INTEGER NOT NULL DEFAULT 1")}},
        // Whether a route sends a tool call's argument deltas as they arrive (RouteConfig); routes
        // stored before it hold each call until it is whole.
        {12, QStringLiteral("routes that stream tool-call arguments as they arrive"),
         {QStringLiteral("ALTER TABLE routes ADD COLUMN stream_tool_calls INTEGER NOT NULL DEFAULT 0")}},
        // Stored responses are written in the order they were made, so their rowids run with
        // created_ms and the retention finds its cut by walking the table from its oldest end
        // (ResponseStore::deleteBefore). The index on created_ms was a third B-tree to update on every stored
        // response, the Responses door's busiest write, for a delete that runs every ten minutes.
        {13, QStringLiteral("stored responses without the created_ms index"),
         {QStringLiteral("DROP INDEX responses_created")}},
        // Each route's spend by minute, added to with every history batch: budgets read their day
        // and month back from it at start. The requests index on (logical_model, time_ms) served
        // that read and cost every request row a third B-tree insert (~3,000 instructions, some 4 %
        // of a proxied request); the history page's model filter reads the time index.
        {14, QStringLiteral("spend per route and minute, without the requests' model index"),
         {QStringLiteral("CREATE TABLE spend_minutes (logical_model TEXT NOT NULL, minute_ms INTEGER NOT NULL, cost_usd REAL NOT NULL,"
                         " PRIMARY KEY (logical_model, minute_ms)) WITHOUT ROWID"),
          QStringLiteral("INSERT INTO spend_minutes SELECT logical_model, (time_ms / 60000) * 60000 AS m, SUM(cost_usd) FROM requests"
                         " WHERE cost_usd != 0 GROUP BY logical_model, m"),
          QStringLiteral("DROP INDEX requests_model_time")}},
        // Whether a provider is offered HTTP/2 (ProviderConfig::http2); providers stored before it
        // speak HTTP/1.1 to their upstream, as new ones do unless asked.
        {15, QStringLiteral("providers that multiplex over HTTP/2"),
         {QStringLiteral("ALTER TABLE providers ADD COLUMN http2 INTEGER NOT NULL DEFAULT 0")}},
        // The key a request's last attempt used, so that a request served by its first attempt
        // stores no attempts array: the row's own columns and this one say all of it
        // (HistoryCodec::storedAttempts). Rows from before keep their arrays.
        {16, QStringLiteral("the key of each request's last attempt"),
         {QStringLiteral("ALTER TABLE requests ADD COLUMN key_id INTEGER NOT NULL DEFAULT 0")}},
    };
    return list;
}

int Database::currentVersion()
{
    return migrations().back().version;
}

QString Database::defaultPath(QString *error)
{
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    if (dir.isEmpty() || !QDir().mkpath(dir)) {
        if (error)
            *error = QStringLiteral("Cannot create the data directory \"%1\"; choose a database with --db PATH.").arg(dir);
        return {};
    }
    return QDir(dir).filePath(QStringLiteral("switchboard.db"));
}

bool Database::restrictPermissions(const QString &path, QString *error)
{
    for (const QString &suffix : {QString(), QStringLiteral("-wal"), QStringLiteral("-shm")}) {
        const QByteArray file = QFile::encodeName(path + suffix);
        if (::chmod(file.constData(), S_IRUSR | S_IWUSR) != 0 && errno != ENOENT) {
            if (error)
                *error = QStringLiteral("Cannot restrict the permissions of \"%1\" to the owner: %2.")
                             .arg(path + suffix, QString::fromLocal8Bit(strerror(errno)));
            return false;
        }
    }
    return true;
}

Database::Database(QString path, QString purpose)
    : m_path(std::move(path))
    , m_connectionName(QStringLiteral("sb-%1-%2").arg(purpose).arg(g_connectionCounter.fetch_add(1)))
{
}

Database::~Database()
{
    close();
}

void Database::close()
{
    if (!QSqlDatabase::contains(m_connectionName))
        return;
    {
        QSqlDatabase db = QSqlDatabase::database(m_connectionName, false);
        db.close();
    }
    QSqlDatabase::removeDatabase(m_connectionName);
}

bool Database::isOpen() const
{
    return QSqlDatabase::contains(m_connectionName) && QSqlDatabase::database(m_connectionName, false).isOpen();
}

QSqlDatabase Database::connection() const
{
    return QSqlDatabase::database(m_connectionName, false);
}

bool Database::open(QString *error)
{
    return open(migrations(), error);
}

bool Database::open(const std::vector<Migration> &list, QString *error)
{
    return open(DatabaseLayout{list, 0}, error);
}

bool Database::open(const DatabaseLayout &layout, QString *error)
{
    const std::vector<Migration> &list = layout.migrations;
    close();
    if (m_path.isEmpty()) {
        if (error)
            *error = QStringLiteral("No database path was given.");
        return false;
    }
    // Create the file ourselves at 0600 so there is no moment when another user could read it;
    // SQLite then gives the -wal and -shm files the same mode.
    if (!QFileInfo::exists(m_path)) {
        QDir().mkpath(QFileInfo(m_path).absolutePath());
        const int fd = ::open(QFile::encodeName(m_path).constData(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, S_IRUSR | S_IWUSR);
        if (fd < 0 && errno != EEXIST) {
            if (error)
                *error = QStringLiteral("Cannot create the database \"%1\": %2.").arg(m_path, QString::fromLocal8Bit(strerror(errno)));
            return false;
        }
        if (fd >= 0)
            ::close(fd);
    }

    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_connectionName);
        db.setDatabaseName(m_path);
        // Concurrent writers (config saves next to the history writer) wait instead of failing.
        db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=10000"));
        if (!db.open()) {
            if (error)
                *error = QStringLiteral("Cannot open the database \"%1\": %2.").arg(m_path, sqlError(db.lastError()));
            close();
            return false;
        }
    }

    // Read the version before anything writes: a newer database must stay exactly as it is.
    const int version = schemaVersion();
    if (version < 0) {
        if (error)
            *error = QStringLiteral("\"%1\" is not a Switchboard database (or is damaged); choose another file with --db PATH.").arg(m_path);
        close();
        return false;
    }
    const int newest = list.empty() ? 0 : list.back().version;
    if (version > newest) {
        if (error)
            *error = QStringLiteral("The database \"%1\" was written by a newer Switchboard (schema version %2; this build "
                                    "knows up to %3). It was left untouched: update Switchboard, or choose another file with --db PATH.")
                         .arg(m_path).arg(version).arg(newest);
        close();
        return false;
    }

    QString pragmaError;
    // Before anything is written: a new file takes its page size from its first write.
    if (version == 0 && layout.pageSize > 0 && !exec(QStringLiteral("PRAGMA page_size=%1").arg(layout.pageSize), &pragmaError)) {
        if (error)
            *error = pragmaError;
        close();
        return false;
    }
    if (!exec(QStringLiteral("PRAGMA journal_mode=WAL"), &pragmaError) || !exec(QStringLiteral("PRAGMA synchronous=NORMAL"), &pragmaError)
        || !exec(QStringLiteral("PRAGMA foreign_keys=ON"), &pragmaError)) {
        if (error)
            *error = pragmaError;
        close();
        return false;
    }
    restrictPermissions(m_path);
    if (!migrate(list, error)) {
        close();
        return false;
    }
    return true;
}

int Database::schemaVersion() const
{
    QSqlQuery q(connection());
    // A file that is not SQLite fails here ("file is not a database").
    if (!q.exec(QStringLiteral("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'")) || !q.next())
        return -1;
    if (q.value(0).toInt() == 0)
        return 0;
    if (!q.exec(QStringLiteral("SELECT COALESCE(MAX(version), 0) FROM schema_version")) || !q.next())
        return -1;
    return q.value(0).toInt();
}

bool Database::migrate(const std::vector<Migration> &list, QString *error)
{
    if (!exec(QStringLiteral("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_ms INTEGER NOT NULL, description TEXT NOT NULL)"), error))
        return false;
    for (const Migration &m : list) {
        if (schemaVersion() >= m.version)
            continue;
        // IMMEDIATE takes the write lock first, so two processes opening an old file at once
        // cannot both apply the same step: the second re-checks the version under the lock.
        if (!exec(QStringLiteral("BEGIN IMMEDIATE"), error))
            return false;
        if (schemaVersion() >= m.version) {
            exec(QStringLiteral("ROLLBACK"));
            continue;
        }
        QString stepError;
        bool ok = true;
        for (const QString &sql : m.statements) {
            if (!exec(sql, &stepError)) {
                ok = false;
                break;
            }
        }
        if (ok) {
            QSqlQuery q(connection());
            q.prepare(QStringLiteral("INSERT INTO schema_version (version, applied_ms, description) "
                                     "VALUES (?, CAST(strftime('%s','now') AS INTEGER) * 1000, ?)"));
            q.addBindValue(m.version);
            q.addBindValue(m.description);
            ok = q.exec();
            if (!ok)
                stepError = sqlError(q.lastError());
        }
        if (!ok || !exec(QStringLiteral("COMMIT"), &stepError)) {
            exec(QStringLiteral("ROLLBACK"));
            if (error)
                *error = QStringLiteral("Upgrading the database \"%1\" to schema version %2 (%3) failed and was rolled back: %4")
                             .arg(m_path).arg(m.version).arg(m.description, stepError);
            return false;
        }
    }
    return true;
}

bool Database::integrityOk(QString *details) const
{
    QSqlQuery q(connection());
    if (!q.exec(QStringLiteral("PRAGMA integrity_check"))) {
        if (details)
            *details = sqlError(q.lastError());
        return false;
    }
    QStringList lines;
    while (q.next())
        lines << q.value(0).toString();
    if (details)
        *details = lines.join(QLatin1Char('\n'));
    return lines == QStringList{QStringLiteral("ok")};
}

QVariant Database::text(const QString &value)
{
    if (!value.isNull())
        return value;
    static const QString empty = QStringLiteral("");
    return empty;
}

bool Database::exec(const QString &sql, QString *error) const
{
    QSqlQuery q(connection());
    if (q.exec(sql))
        return true;
    if (error)
        *error = QStringLiteral("%1 (in: %2)").arg(sqlError(q.lastError()), sql.left(80));
    return false;
}

} // namespace sb
