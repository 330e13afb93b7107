#pragma once

#include "store/DatabaseThread.h"

#include <QByteArray>
#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QString>

#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace sb {

class Clock;
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

// The stored responses (table `responses`, deleted with the history's retention): the recent ones
// in memory, for the follow-up that comes a moment after an answer, and every one in SQLite on a
// DatabaseThread, so that a conversation continues across a restart. Thread-safe; lookups answer
// on the caller's thread through a ReplyChannel and never wait for the disk on it.
class ResponseStore {
public:
    struct Options {
        qsizetype memoryBytes = 32 * 1024 * 1024; // of serialised JSON, the least recently used go first
        qint64 memoryAgeMs = 60 * 60 * 1000;      // older ones are read from SQLite, the only truth then
        int maxChain = 1000;                      // previous_response_id links followed at most
    };

    explicit ResponseStore(const Clock &clock);
    ResponseStore(const Clock &clock, Options options);
    ~ResponseStore();

    // Keeps responses in SQLite from now on; without it they live in memory only (tests, a
    // database that cannot be opened).
    bool open(const QString &path, QString *error);
    void close();

    void save(StoredResponse response);

    using Found = std::function<void(std::optional<StoredResponse>)>;
    using ChainFound = std::function<void(std::optional<std::vector<StoredResponse>>)>;
    using Removed = std::function<void(bool existed)>;
    void find(const QString &id, const std::shared_ptr<ReplyChannel> &reply, Found done);
    // The conversation `id` ends: its stored responses, oldest first. std::nullopt when `id` or a
    // response it continues is not stored (deleted, past the retention, or never stored).
    void findChain(const QString &id, const std::shared_ptr<ReplyChannel> &reply, ChainFound done);
    void remove(const QString &id, const std::shared_ptr<ReplyChannel> &reply, Removed done);

    // Waits until what was saved or removed so far is in SQLite (tests, shutdown).
    void flush();

private:
    struct Entry {
        std::shared_ptr<const StoredResponse> response;
        qsizetype bytes = 0;
        std::list<QString>::iterator recency;
    };

    struct PendingRow {
        std::shared_ptr<const StoredResponse> response;
        QByteArray input, object; // serialised
    };

    // Writes every row saved since the last call in one transaction (one fsync, not one a row).
    void writePending(Database &db);
    std::shared_ptr<const StoredResponse> fromMemory(const QString &id);
    void remember(std::shared_ptr<const StoredResponse> response, qsizetype bytes);
    void forgetLocked(const QString &id);

    const Clock &m_clock;
    const Options m_options;
    DatabaseThread m_db;

    std::mutex m_pendingMutex;
    std::vector<PendingRow> m_pending; // saved, not yet written; a write job is queued while non-empty

    std::mutex m_mutex; // guards the memory below
    QHash<QString, Entry> m_memory;
    std::list<QString> m_recency; // most recent first
    qsizetype m_memoryBytes = 0;
};

} // namespace sb
