#include "store/ResponseStore.h"

#include "common/ReplyChannel.h"
#include "store/Database.h"
#include "store/SqliteStatement.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QSqlError>
#include <QSqlQuery>

#include <spdlog/spdlog.h>

#include <deque>

namespace sb {

namespace {

// How long saved responses wait to share a transaction: a commit for each one was most of the
// database thread's work under load. The memory answers every lookup meanwhile, and what a crash
// can lose is the last few milliseconds' responses (their answers went out already).
constexpr std::chrono::milliseconds kGatherWrites(20);

// Each page written costs two system calls in the write-ahead log and two more when it is copied
// into place; the kilobyte rows of a 64 KiB page share them (a third of the database thread's time
// per stored response, measured).
constexpr int kPageSize = 64 * 1024;

QByteArray compact(const QJsonArray &array)
{
    return QJsonDocument(array).toJson(QJsonDocument::Compact);
}

QByteArray compact(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

std::optional<StoredResponse> readOne(Database &db, const QString &id)
{
    QSqlQuery q(db.connection());
    q.prepare(QStringLiteral("SELECT created_ms, previous_id, input, response FROM responses WHERE id = ?"));
    q.addBindValue(Database::text(id));
    if (!q.exec()) {
        spdlog::warn("responses: cannot read a stored response: {}", q.lastError().text().toStdString());
        return std::nullopt;
    }
    if (!q.next())
        return std::nullopt;
    StoredResponse row;
    row.id = id;
    row.createdMs = q.value(0).toLongLong();
    row.previousId = q.value(1).toString();
    row.inputJson = q.value(2).toByteArray();
    row.responseJson = q.value(3).toByteArray(); // parsed only where a conversation needs its output
    return row;
}

// Responses stored by a build that kept them in the Switchboard database's own table go to their
// file, oldest first, and leave that table. Each file commits on its own (write-ahead logs are
// atomic per file), so a crash in between leaves rows in both: the next open copies what is
// missing and deletes the rest.
void moveFromDatabase(Database &db, const QString &databasePath)
{
    if (!QFileInfo::exists(databasePath))
        return;
    bool hasRows = false;
    {
        QSqlQuery q(db.connection());
        q.prepare(QStringLiteral("ATTACH DATABASE ? AS switchboard"));
        q.addBindValue(databasePath);
        if (!q.exec()) {
            spdlog::warn("responses: cannot look for responses stored in {}: {}", databasePath.toStdString(),
                         q.lastError().text().toStdString());
            return;
        }
        hasRows = q.exec(QStringLiteral("SELECT 1 FROM switchboard.sqlite_master WHERE type = 'table' AND name = 'responses'")) && q.next()
            && q.exec(QStringLiteral("SELECT 1 FROM switchboard.responses LIMIT 1")) && q.next();
    }
    if (hasRows) {
        QString error;
        const bool moved = db.exec(QStringLiteral("BEGIN IMMEDIATE"), &error)
            && db.exec(QStringLiteral("INSERT OR IGNORE INTO main.responses (id, created_ms, previous_id, input, response)"
                                      " SELECT id, created_ms, previous_id, input, response FROM switchboard.responses ORDER BY rowid"),
                       &error)
            && db.exec(QStringLiteral("DELETE FROM switchboard.responses"), &error) && db.exec(QStringLiteral("COMMIT"), &error);
        if (!moved) {
            db.exec(QStringLiteral("ROLLBACK"));
            spdlog::warn("responses: cannot move the responses stored in {} to their own file: {}", databasePath.toStdString(),
                         error.toStdString());
        }
    }
    db.exec(QStringLiteral("DETACH DATABASE switchboard"));
}

} // namespace

QJsonArray StoredResponse::inputItems() const
{
    return inputJson.isEmpty() ? input : QJsonDocument::fromJson(inputJson).array();
}

QByteArray StoredResponse::inputItemsJson() const
{
    return inputJson.isEmpty() ? compact(input) : inputJson;
}

QJsonObject StoredResponse::object() const
{
    return response.isEmpty() ? QJsonDocument::fromJson(responseJson).object() : response;
}

QByteArray StoredResponse::json() const
{
    return responseJson.isEmpty() ? compact(response) : responseJson;
}

ResponseStore::ResponseStore() : ResponseStore(Options{}) {}

ResponseStore::ResponseStore(Options options) : m_options(options) {}

ResponseStore::~ResponseStore()
{
    m_db.close(); // its last jobs write m_pending, which goes before m_db does
}

bool ResponseStore::open(const QString &databasePath, QString *error)
{
    return m_db.open(fileBeside(databasePath), QStringLiteral("responses"), layout(),
                     [databasePath](Database &db) { moveFromDatabase(db, databasePath); }, error);
}

QString ResponseStore::fileBeside(const QString &databasePath)
{
    const QFileInfo database(databasePath);
    const QString name = database.suffix() == QLatin1String("db") ? database.completeBaseName() : database.fileName();
    return database.dir().filePath(name + QStringLiteral("-responses.db"));
}

const DatabaseLayout &ResponseStore::layout()
{
    // input: the request's own items (JSON array); response: the response object (JSON). No index
    // on created_ms: rows go in as their answers end, so the retention walks them by rowid.
    static const DatabaseLayout layout{
        {{1, QStringLiteral("stored Responses API responses"),
          {QStringLiteral("CREATE TABLE responses (id TEXT PRIMARY KEY, created_ms INTEGER NOT NULL, previous_id TEXT NOT NULL,"
                          " input BLOB NOT NULL, response BLOB NOT NULL)")}}},
        kPageSize};
    return layout;
}

void ResponseStore::close()
{
    m_db.close();
}

void ResponseStore::save(StoredResponse response)
{
    auto row = std::make_shared<const StoredResponse>(std::move(response));
    PendingRow pending{row, row->inputItemsJson(), row->json()};
    const bool onlyCopy = !m_db.isOpen();
    remember(row, pending.input.size() + pending.object.size(), onlyCopy);
    if (onlyCopy)
        return;
    bool first = false;
    {
        std::lock_guard lock(m_pendingMutex);
        first = m_pending.empty();
        m_pending.push_back(std::move(pending));
    }
    if (first)
        m_db.postGathering(kGatherWrites, [this](Database &db) { writePending(db); });
}

void ResponseStore::writePending(Database &db)
{
    std::vector<PendingRow> rows;
    {
        std::lock_guard lock(m_pendingMutex);
        rows.swap(m_pending);
    }
    // Straight to SQLite, a statement a batch: Qt's QSqlQuery bound each row's values through
    // QVariants, and was most of what a stored response cost the database thread.
    QString error;
    SqliteStatement insert;
    if (!insert.prepare(db.connection(),
                        "INSERT OR REPLACE INTO responses (id, created_ms, previous_id, input, response) VALUES (?,?,?,?,?)", &error)) {
        spdlog::error("responses: cannot store {} responses: {}", rows.size(), error.toStdString());
        return;
    }
    db.connection().transaction();
    for (const PendingRow &row : rows) {
        insert.bind(0, row.response->id);
        insert.bind(1, row.response->createdMs);
        insert.bind(2, row.response->previousId);
        insert.bind(3, row.input);
        insert.bind(4, row.object);
        if (!insert.exec(&error))
            spdlog::error("responses: cannot store response {}: {}", row.response->id.toStdString(), error.toStdString());
    }
    const bool committed = db.connection().commit();
    if (!committed)
        spdlog::error("responses: cannot store {} responses: {}", rows.size(), db.connection().lastError().text().toStdString());
    // SQLite answers for them now. Dropped here, where their memory is still warm, rather than
    // evicted cold by a later save on a request thread. When the commit failed they are dropped
    // too: a disk that keeps failing must not make memory grow without bound; the error is logged.
    std::lock_guard lock(m_mutex);
    for (const PendingRow &row : rows) {
        const auto it = m_memory.find(row.response->id);
        if (it != m_memory.end() && it->response == row.response) // not saved again meanwhile
            forgetLocked(row.response->id);
    }
    (committed ? m_written : m_writeFailures) += rows.size();
}

void ResponseStore::find(const QString &id, const std::shared_ptr<ReplyChannel> &reply, Found done)
{
    if (auto hit = fromMemory(id); hit || !m_db.isOpen()) {
        std::optional<StoredResponse> found;
        if (hit)
            found = *hit;
        reply->post([done = std::move(done), found = std::move(found)]() mutable { done(std::move(found)); });
        return;
    }
    m_db.post([id, reply, done = std::move(done)](Database &db) mutable {
        reply->post([done = std::move(done), found = readOne(db, id)]() mutable { done(std::move(found)); });
    });
}

void ResponseStore::findChain(const QString &id, const std::shared_ptr<ReplyChannel> &reply, ChainFound done)
{
    // The recent end of a conversation is usually in memory; the rest, if any, comes from SQLite.
    std::deque<StoredResponse> chain;
    QString next = id;
    while (!next.isEmpty() && int(chain.size()) < m_options.maxChain) {
        const auto hit = fromMemory(next);
        if (!hit)
            break;
        chain.push_front(*hit);
        next = hit->previousId;
    }
    const auto deliver = [reply](ChainFound done, std::optional<std::vector<StoredResponse>> found) {
        reply->post([done = std::move(done), found = std::move(found)]() mutable { done(std::move(found)); });
    };
    if (next.isEmpty() || int(chain.size()) >= m_options.maxChain) {
        deliver(std::move(done), std::vector<StoredResponse>(chain.begin(), chain.end()));
        return;
    }
    if (!m_db.isOpen()) {
        deliver(std::move(done), std::nullopt);
        return;
    }
    const int maxChain = m_options.maxChain;
    m_db.post([next, chain = std::move(chain), deliver, done = std::move(done), maxChain](Database &db) mutable {
        QString link = next;
        std::deque<StoredResponse> older;
        while (!link.isEmpty() && int(chain.size() + older.size()) < maxChain) {
            std::optional<StoredResponse> row = readOne(db, link);
            if (!row) {
                deliver(std::move(done), std::nullopt);
                return;
            }
            link = row->previousId;
            older.push_front(std::move(*row));
        }
        std::vector<StoredResponse> whole(older.begin(), older.end());
        whole.insert(whole.end(), chain.begin(), chain.end());
        deliver(std::move(done), std::move(whole));
    });
}

void ResponseStore::remove(const QString &id, const std::shared_ptr<ReplyChannel> &reply, Removed done)
{
    bool inMemory = false;
    {
        std::lock_guard lock(m_mutex);
        inMemory = m_memory.contains(id);
        forgetLocked(id);
    }
    if (!m_db.isOpen()) {
        reply->post([done = std::move(done), inMemory] { done(inMemory); });
        return;
    }
    // After any save of the same id still queued: the thread runs jobs in order.
    m_db.post([id, reply, inMemory, done = std::move(done)](Database &db) mutable {
        QSqlQuery q(db.connection());
        q.prepare(QStringLiteral("DELETE FROM responses WHERE id = ?"));
        q.addBindValue(Database::text(id));
        bool deleted = false;
        if (q.exec())
            deleted = q.numRowsAffected() > 0;
        else
            spdlog::warn("responses: cannot delete response {}: {}", id.toStdString(), q.lastError().text().toStdString());
        reply->post([done = std::move(done), existed = inMemory || deleted] { done(existed); });
    });
}

void ResponseStore::deleteBefore(qint64 cutMs)
{
    m_db.post([this, cutMs](Database &db) {
        // Every row before the first one inside the retention is outside it, and finding that row
        // reads only the rows about to be deleted. One that began before the cut but ended after a
        // newer one (a long stream) waits for a later run.
        QSqlQuery q(db.connection());
        q.prepare(QStringLiteral("DELETE FROM responses WHERE rowid < COALESCE("
                                 " (SELECT rowid FROM responses WHERE created_ms >= ?1 ORDER BY rowid LIMIT 1),"
                                 " (SELECT max(rowid) + 1 FROM responses))"));
        q.addBindValue(cutMs);
        if (!q.exec()) {
            spdlog::error("responses: the retention could not delete old responses: {}", q.lastError().text().toStdString());
            return;
        }
        std::lock_guard lock(m_mutex);
        m_purged += std::uint64_t(std::max(0, q.numRowsAffected()));
    });
}

void ResponseStore::flush()
{
    m_db.flush();
}

ResponseStore::Stats ResponseStore::stats() const
{
    std::lock_guard lock(m_mutex);
    return Stats{m_memory.size(), m_memoryBytes, m_saved, m_written, m_writeFailures, m_purged};
}

std::shared_ptr<const StoredResponse> ResponseStore::fromMemory(const QString &id) const
{
    std::lock_guard lock(m_mutex);
    const auto it = m_memory.constFind(id);
    return it == m_memory.cend() ? nullptr : it->response;
}

void ResponseStore::remember(const std::shared_ptr<const StoredResponse> &response, qsizetype bytes, bool onlyCopy)
{
    std::lock_guard lock(m_mutex);
    const std::uint64_t serial = ++m_saved;
    forgetLocked(response->id);
    m_memory.insert(response->id, Entry{response, bytes, serial});
    m_memoryBytes += bytes;
    if (!onlyCopy)
        return; // dropped once written
    m_oldestFirst.emplace_back(response->id, serial);
    while (m_memoryBytes > m_options.memoryBytes && m_memory.size() > 1 && !m_oldestFirst.empty()) {
        const auto &[id, which] = m_oldestFirst.front();
        const auto it = m_memory.constFind(id);
        if (it != m_memory.cend() && it->serial == which)
            forgetLocked(id);
        m_oldestFirst.pop_front();
    }
}

void ResponseStore::forgetLocked(const QString &id)
{
    const auto it = m_memory.find(id);
    if (it == m_memory.end())
        return;
    m_memoryBytes -= it->bytes;
    m_memory.erase(it);
}

} // namespace sb
