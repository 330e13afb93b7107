#pragma once

#include "store/DatabaseThread.h"

#include <QByteArray>
#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QString>

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

namespace sb {

class ReplyChannel;

// One answered Responses API request, as the client saw it: what a later previous_response_id
// continues and GET /v1/responses/{id} returns. Never holds a key: only the client's items and
// the response object.
struct StoredResponse {
    QString id;
    qint64 createdMs = 0;
    QString previousId;   // the response this one continued, or empty
    // This request's own input items (not the earlier turns'), as they were asked for, without the
    // ids input_items lists them with: as one of the array (`input`) or its compact JSON
    // (`inputJson`).
    QJsonArray input;
    QByteArray inputJson;
    // The response object, as one of: the object (`response`), or its compact JSON
    // (`responseJson`) as the client got it; when both are set they say the same.
    QJsonObject response;
    QByteArray responseJson;

    QJsonArray inputItems() const;
    QByteArray inputItemsJson() const;
    QJsonObject object() const;
    QByteArray json() const;
};

// The stored responses, every one in SQLite on a DatabaseThread, so that a conversation continues
// across a restart. They have a database file of their own beside the Switchboard database
// (fileBeside): rows of a kilobyte or more, written as fast as answers end and never updated, cost
// far fewer system calls in 64 KiB pages than in 4 KiB ones (which the history's small rows and
// indexes need), and in a write-ahead log of their own the history's thread does not copy them
// into place at its checkpoints. Deleted with the history's retention (deleteBefore).
// Thread-safe; lookups answer on the caller's thread through a ReplyChannel and never wait for the
// disk on it.
//
// Memory holds only what SQLite does not have yet: a saved response stays there until the
// transaction that writes it commits (some 20 ms), so the follow-up that comes at once still
// finds it, and is then dropped on the database thread. A request thread's save is an insert
// into a small hash; a lookup after that is one primary-key read on the database thread, which
// costs less than the model's answer it waits for. Without a database (tests, one that cannot
// be opened) memory is the only copy: the oldest go first past a byte bound.
class ResponseStore {
public:
    struct Options {
        qsizetype memoryBytes = 32 * 1024 * 1024; // without a database: serialised JSON kept, the oldest go first
        int maxChain = 1000;                      // previous_response_id links followed at most
    };
    struct Stats {
        qsizetype inMemory = 0;      // responses held in memory now
        qsizetype memoryBytes = 0;   // their serialised size
        std::uint64_t saved = 0;
        std::uint64_t written = 0;   // rows committed to SQLite
        std::uint64_t writeFailures = 0;
        std::uint64_t purged = 0;    // rows the retention deleted
    };

    ResponseStore();
    explicit ResponseStore(Options options);
    ~ResponseStore();

    // Keeps responses in SQLite from now on, in the file beside the Switchboard database at
    // `databasePath`; responses an older build stored in that database's own table are moved
    // over. Without it they live in memory only (tests, a database that cannot be opened).
    bool open(const QString &databasePath, QString *error);
    void close();

    // The stored responses' file for the Switchboard database at `databasePath`:
    // "switchboard.db" -> "switchboard-responses.db".
    static QString fileBeside(const QString &databasePath);
    // Their schema, and the page size their file is made with.
    static const DatabaseLayout &layout();

    void save(StoredResponse response);

    using Found = std::function<void(std::optional<StoredResponse>)>;
    using ChainFound = std::function<void(std::optional<std::vector<StoredResponse>>)>;
    using Removed = std::function<void(bool existed)>;
    void find(const QString &id, const std::shared_ptr<ReplyChannel> &reply, Found done);
    // The conversation `id` ends: its stored responses, oldest first. std::nullopt when `id` or a
    // response it continues is not stored (deleted, past the retention, or never stored).
    void findChain(const QString &id, const std::shared_ptr<ReplyChannel> &reply, ChainFound done);
    void remove(const QString &id, const std::shared_ptr<ReplyChannel> &reply, Removed done);

    // Deletes the responses made before `cutMs` (wall-clock ms): the history's retention, on the
    // database thread, after what was saved so far.
    void deleteBefore(qint64 cutMs);

    // Waits until what was saved or removed so far is in SQLite (tests, shutdown).
    void flush();

    Stats stats() const;

private:
    struct Entry {
        std::shared_ptr<const StoredResponse> response;
        qsizetype bytes = 0;
        std::uint64_t serial = 0; // which save made it (m_saved then)
    };

    struct PendingRow {
        std::shared_ptr<const StoredResponse> response;
        QByteArray input, object; // serialised
    };

    // Writes every row saved since the last call in one transaction (one fsync, not one a row),
    // then lets memory forget them.
    void writePending(Database &db);
    std::shared_ptr<const StoredResponse> fromMemory(const QString &id) const;
    void remember(const std::shared_ptr<const StoredResponse> &response, qsizetype bytes, bool onlyCopy);
    void forgetLocked(const QString &id);

    const Options m_options;
    DatabaseThread m_db;

    std::mutex m_pendingMutex;
    std::vector<PendingRow> m_pending; // saved, not yet written; a write job is queued while non-empty

    mutable std::mutex m_mutex; // guards the memory and the counts below
    QHash<QString, Entry> m_memory;
    // Without a database only: the order the byte bound evicts in, by id and save serial (an entry
    // forgets its id only while memory still holds that same save: one removed or saved again is
    // skipped).
    std::deque<std::pair<QString, std::uint64_t>> m_oldestFirst;
    qsizetype m_memoryBytes = 0;
    std::uint64_t m_saved = 0;
    std::uint64_t m_written = 0;
    std::uint64_t m_writeFailures = 0;
    std::uint64_t m_purged = 0;
};

} // namespace sb
