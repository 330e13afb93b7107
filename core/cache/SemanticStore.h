#pragma once

#include "store/DatabaseThread.h"

#include <QByteArray>
#include <QString>

#include <vector>

namespace sb {

// The semantic cache's table (semantic_cache, schema migration 3) on a DatabaseThread: loading
// happens once at open; inserts and deletes are queued and written in order.
class SemanticStore {
public:
    struct Row {
        qint64 id = 0;
        QByteArray scope;
        qint64 createdMs = 0;
        qint64 expiresMs = 0;
        std::vector<float> embedding;
        QByteArray answer; // CachedAnswer::serialize()
    };


    // Opens (and migrates) the database, drops expired rows and returns the others, oldest first.
    bool open(const QString &path, qint64 nowMs, std::vector<Row> *rows, QString *error);
    bool isOpen() const { return m_thread.isOpen(); }

    void insert(Row row);
    void remove(std::vector<qint64> ids);
    // Waits until everything queued so far is written (tests, shutdown).
    void flush() { m_thread.flush(); }

private:
    DatabaseThread m_thread; // writes what is queued when the store is destroyed
};

} // namespace sb
