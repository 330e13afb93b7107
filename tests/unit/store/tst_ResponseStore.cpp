// Stored Responses API responses: what previous_response_id continues and GET /v1/responses/{id}
// returns, in memory for the follow-up that comes a moment later and in a real SQLite file of their
// own so a conversation survives a restart, deleted with the history's retention.

#include "common/ReplyChannel.h"
#include "store/Database.h"
#include "store/HistoryWriter.h"
#include "store/ResponseStore.h"

#include "FakeClock.h"

#include <QFileInfo>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QtTest>

using namespace sb;

namespace {

constexpr qint64 DayMs = 24 * 3'600'000LL;

StoredResponse response(const QString &id, qint64 createdMs, const QString &previous = {}, const QString &text = QStringLiteral("hi"))
{
    StoredResponse row;
    row.id = id;
    row.createdMs = createdMs;
    row.previousId = previous;
    row.input = QJsonArray{QJsonObject{{QStringLiteral("type"), QStringLiteral("message")},
                                       {QStringLiteral("role"), QStringLiteral("user")},
                                       {QStringLiteral("content"), QStringLiteral("asked in ") + id}}};
    row.response = QJsonObject{{QStringLiteral("id"), id},
                               {QStringLiteral("object"), QStringLiteral("response")},
                               {QStringLiteral("output_text_for_test"), text}};
    return row;
}

// Waits on this thread's event loop for an answer delivered through a ReplyChannel.
template <typename T>
struct Answer {
    std::optional<T> value;
    bool arrived = false;
    auto sink()
    {
        return [this](T v) {
            value = std::move(v);
            arrived = true;
        };
    }
    bool wait() { return QTest::qWaitFor([this] { return arrived; }, 5000); }
};

QStringList idsOf(const std::vector<StoredResponse> &chain)
{
    QStringList ids;
    for (const StoredResponse &row : chain)
        ids << row.id;
    return ids;
}

} // namespace

class tst_ResponseStore : public QObject {
    Q_OBJECT
private slots:
    void init() { m_reply = ReplyChannel::to(this); }
    void cleanup() { m_reply->close(); }

    void aSavedResponseIsFoundAtOnceAndAfterARestart()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("switchboard.db"));
        test::FakeClock clock;
        const qint64 now = clock.wallMillis();
        {
            ResponseStore store;
            QString error;
            QVERIFY2(store.open(path, &error), qPrintable(error));
            store.save(response(QStringLiteral("resp_1"), now));
            // Asked for right after the answer: from memory, before SQLite has it.
            Answer<std::optional<StoredResponse>> found;
            store.find(QStringLiteral("resp_1"), m_reply, found.sink());
            QVERIFY(found.wait());
            QVERIFY(found.value && *found.value);
            QCOMPARE((*found.value)->inputItems().size(), 1);
        }
        ResponseStore reopened;
        QVERIFY(reopened.open(path, nullptr));
        Answer<std::optional<StoredResponse>> found;
        reopened.find(QStringLiteral("resp_1"), m_reply, found.sink());
        QVERIFY(found.wait());
        QVERIFY(*found.value);
        const StoredResponse &row = **found.value;
        QCOMPARE(row.createdMs, now);
        QCOMPARE(row.object().value(QStringLiteral("object")).toString(), QStringLiteral("response"));
        QCOMPARE(row.inputItems()[0].toObject().value(QStringLiteral("content")).toString(), QStringLiteral("asked in resp_1"));

        Answer<std::optional<StoredResponse>> unknown;
        reopened.find(QStringLiteral("resp_none"), m_reply, unknown.sink());
        QVERIFY(unknown.wait());
        QVERIFY(!*unknown.value);
    }

    void aChainIsReadOldestFirstPartlyFromMemoryPartlyFromSqlite()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("switchboard.db"));
        test::FakeClock clock;
        const qint64 now = clock.wallMillis();
        {
            ResponseStore store;
            QVERIFY(store.open(path, nullptr));
            store.save(response(QStringLiteral("resp_a"), now));
            store.save(response(QStringLiteral("resp_b"), now, QStringLiteral("resp_a")));
        }
        ResponseStore store;
        QVERIFY(store.open(path, nullptr));
        store.save(response(QStringLiteral("resp_c"), now, QStringLiteral("resp_b"))); // in memory; a, b only on disk
        Answer<std::optional<std::vector<StoredResponse>>> chain;
        store.findChain(QStringLiteral("resp_c"), m_reply, chain.sink());
        QVERIFY(chain.wait());
        QVERIFY(*chain.value);
        QCOMPARE(idsOf(**chain.value), (QStringList{QStringLiteral("resp_a"), QStringLiteral("resp_b"), QStringLiteral("resp_c")}));

        // A link that is gone breaks the conversation: no partial history is made up.
        store.save(response(QStringLiteral("resp_orphan"), now, QStringLiteral("resp_gone")));
        Answer<std::optional<std::vector<StoredResponse>>> broken;
        store.findChain(QStringLiteral("resp_orphan"), m_reply, broken.sink());
        QVERIFY(broken.wait());
        QVERIFY(!*broken.value);
    }

    void aRemovedResponseIsGoneEverywhere()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("switchboard.db"));
        test::FakeClock clock;
        ResponseStore store;
        QVERIFY(store.open(path, nullptr));
        store.save(response(QStringLiteral("resp_x"), clock.wallMillis()));
        Answer<bool> removed;
        store.remove(QStringLiteral("resp_x"), m_reply, removed.sink());
        QVERIFY(removed.wait());
        QCOMPARE(removed.value, std::optional<bool>(true));
        Answer<bool> again;
        store.remove(QStringLiteral("resp_x"), m_reply, again.sink());
        QVERIFY(again.wait());
        QCOMPARE(again.value, std::optional<bool>(false));
        store.close();
        ResponseStore reopened;
        QVERIFY(reopened.open(path, nullptr));
        Answer<std::optional<StoredResponse>> found;
        reopened.find(QStringLiteral("resp_x"), m_reply, found.sink());
        QVERIFY(found.wait());
        QVERIFY(!*found.value); // the save queued before the delete did not come back
    }

    void memoryHoldsOnlyWhatSqliteDoesNotHaveYet()
    {
        QTemporaryDir dir;
        test::FakeClock clock;
        ResponseStore store;
        QVERIFY(store.open(dir.filePath(QStringLiteral("switchboard.db")), nullptr));
        const QString big(400, QLatin1Char('x'));
        for (int i = 0; i < 20; ++i)
            store.save(response(QStringLiteral("resp_%1").arg(i), clock.wallMillis(), {}, big));
        store.flush();
        // Written, so memory let them go: nothing grows with the number of responses ever stored.
        const ResponseStore::Stats stats = store.stats();
        QCOMPARE(stats.saved, 20u);
        QCOMPARE(stats.written, 20u);
        QCOMPARE(stats.inMemory, 0);
        QCOMPARE(stats.memoryBytes, 0);
        Answer<std::optional<StoredResponse>> first;
        store.find(QStringLiteral("resp_0"), m_reply, first.sink());
        QVERIFY(first.wait());
        QVERIFY(*first.value);
        QCOMPARE((*first.value)->object().value(QStringLiteral("output_text_for_test")).toString(), big);
    }

    void withoutADatabaseTheOldestGoPastTheByteBound()
    {
        test::FakeClock clock;
        ResponseStore::Options options;
        options.memoryBytes = 2000; // three of the big ones (about 540 bytes each) and a small one
        ResponseStore store(options);
        const QString big(400, QLatin1Char('x'));
        const auto save = [&](const char *id, const QString &text) { store.save(response(QString::fromLatin1(id), clock.wallMillis(), {}, text)); };
        save("resp_a", big);
        save("resp_b", big);
        save("resp_a", QStringLiteral("again")); // saved again: the later copy is the one kept
        save("resp_c", big);
        save("resp_d", big);
        save("resp_e", big); // past the bound: the oldest go, and resp_a's first turn must not take its later copy
        const ResponseStore::Stats stats = store.stats();
        QVERIFY2(stats.memoryBytes <= 2000, qPrintable(QString::number(stats.memoryBytes)));
        const auto found = [&](const char *id) {
            Answer<std::optional<StoredResponse>> answer;
            store.find(QString::fromLatin1(id), m_reply, answer.sink());
            return answer.wait() && *answer.value ? std::optional<StoredResponse>(**answer.value) : std::nullopt;
        };
        QVERIFY(!found("resp_b")); // the oldest, gone: memory was its only copy
        const auto again = found("resp_a");
        QVERIFY(again);
        QCOMPARE(again->object().value(QStringLiteral("output_text_for_test")).toString(), QStringLiteral("again"));
        QVERIFY(found("resp_e"));
    }

    void withoutADatabaseResponsesLiveInMemory()
    {
        test::FakeClock clock;
        ResponseStore store;
        store.save(response(QStringLiteral("resp_m"), clock.wallMillis()));
        Answer<std::optional<std::vector<StoredResponse>>> chain;
        store.findChain(QStringLiteral("resp_m"), m_reply, chain.sink());
        QVERIFY(chain.wait());
        QVERIFY(*chain.value);
        QCOMPARE((*chain.value)->size(), std::size_t(1));
    }

    // Rows are saved as answers end; the retention walks them in that order to the first one
    // inside it. What is inside is never deleted; an answer begun before the cut that ended after
    // a newer one waits for a later run.
    void theHistorysRetentionDeletesOldResponses_data()
    {
        QTest::addColumn<QStringList>("saved");   // "id@days-ago", in the order their answers ended
        QTest::addColumn<QStringList>("kept");
        QTest::newRow("old then new") << QStringList{"resp_old1@3", "resp_old2@2.5", "resp_new@0.5", "resp_newer@0.1"}
                                      << QStringList{"resp_new", "resp_newer"};
        QTest::newRow("only old") << QStringList{"resp_old1@5", "resp_old2@4"} << QStringList{};
        QTest::newRow("only new") << QStringList{"resp_new@1", "resp_newer@0.2"} << QStringList{"resp_new", "resp_newer"};
        QTest::newRow("a long answer ended late") << QStringList{"resp_old@3", "resp_new@0.5", "resp_long@2.1"}
                                                  << QStringList{"resp_new", "resp_long"};
    }

    void theHistorysRetentionDeletesOldResponses()
    {
        QFETCH(QStringList, saved);
        QFETCH(QStringList, kept);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("switchboard.db"));
        test::FakeClock clock;
        const qint64 now = clock.wallMillis();
        HistoryWriter::Options options;
        options.retentionDays = 2;
        HistoryWriter writer(path, clock, options);
        QVERIFY(writer.start());
        ResponseStore store;
        QVERIFY(store.open(path, nullptr));
        QStringList ids;
        for (const QString &entry : saved) {
            const QStringList parts = entry.split(QLatin1Char('@'));
            ids << parts[0];
            store.save(response(parts[0], now - qint64(parts[1].toDouble() * DayMs)));
        }
        store.flush(); // in SQLite, out of memory
        writer.setRetentionListener([&store](qint64 cutMs) { store.deleteBefore(cutMs); });
        writer.runMaintenance();
        writer.stop();
        store.flush();

        QStringList found;
        for (const QString &id : ids) {
            Answer<std::optional<StoredResponse>> answer;
            store.find(id, m_reply, answer.sink());
            QVERIFY(answer.wait());
            if (*answer.value)
                found << id;
        }
        QCOMPARE(found, kept);
        QCOMPARE(store.stats().purged, std::uint64_t(saved.size() - kept.size()));
    }

    // Kilobyte rows written as fast as answers end, never updated: a file of their own, in
    // 64 KiB pages, beside the database (whose small rows and indexes keep 4 KiB pages).
    void responsesHaveTheirOwnFileWithLargePages()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("switchboard.db"));
        QCOMPARE(ResponseStore::fileBeside(path), dir.filePath(QStringLiteral("switchboard-responses.db")));
        QCOMPARE(ResponseStore::fileBeside(QStringLiteral("/var/lib/sb/state")), QStringLiteral("/var/lib/sb/state-responses.db"));
        Database database(path);
        QVERIFY(database.open());
        test::FakeClock clock;
        {
            ResponseStore store;
            QVERIFY(store.open(path, nullptr));
            store.save(response(QStringLiteral("resp_1"), clock.wallMillis()));
            store.flush();
        }
        const QString file = ResponseStore::fileBeside(path);
        QVERIFY(QFileInfo::exists(file));
        QCOMPARE(QFileInfo(file).permissions() & (QFile::ReadGroup | QFile::ReadOther), QFile::Permissions());
        Database responses(file);
        QVERIFY(responses.open(ResponseStore::layout(), nullptr));
        QSqlQuery q(responses.connection());
        QVERIFY(q.exec(QStringLiteral("PRAGMA page_size")) && q.next());
        QCOMPARE(q.value(0).toInt(), 64 * 1024);
        QVERIFY(q.exec(QStringLiteral("SELECT id FROM responses")) && q.next());
        QCOMPARE(q.value(0).toString(), QStringLiteral("resp_1"));
        QSqlQuery main(database.connection());
        QVERIFY(main.exec(QStringLiteral("SELECT count(*) FROM responses")) && main.next());
        QCOMPARE(main.value(0).toInt(), 0);
    }

    // An older build kept them in the database's own table: they move to the file on open, so a
    // conversation begun before the update goes on after it, and nothing is kept twice.
    void responsesInTheDatabaseMoveToTheirFile()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("switchboard.db"));
        Database database(path);
        QVERIFY(database.open());
        {
            QSqlQuery q(database.connection());
            QVERIFY(q.prepare(QStringLiteral("INSERT INTO responses (id, created_ms, previous_id, input, response) VALUES (?, ?, ?, ?, ?)")));
            for (const auto &[id, previous] : {std::pair{"resp_old_a", ""}, std::pair{"resp_old_b", "resp_old_a"}}) {
                const StoredResponse row = response(QString::fromLatin1(id), 1000, QString::fromLatin1(previous));
                q.addBindValue(row.id);
                q.addBindValue(row.createdMs);
                q.addBindValue(row.previousId);
                q.addBindValue(row.inputItemsJson());
                q.addBindValue(row.json());
                QVERIFY2(q.exec(), qPrintable(q.lastError().text()));
            }
        }
        ResponseStore store;
        QVERIFY(store.open(path, nullptr));
        store.save(response(QStringLiteral("resp_new"), 2000, QStringLiteral("resp_old_b")));
        Answer<std::optional<std::vector<StoredResponse>>> chain;
        store.findChain(QStringLiteral("resp_new"), m_reply, chain.sink());
        QVERIFY(chain.wait());
        QVERIFY(*chain.value);
        QCOMPARE(idsOf(**chain.value), (QStringList{QStringLiteral("resp_old_a"), QStringLiteral("resp_old_b"), QStringLiteral("resp_new")}));
        QCOMPARE((**chain.value)[0].inputItems()[0].toObject().value(QStringLiteral("content")).toString(), QStringLiteral("asked in resp_old_a"));
        QSqlQuery left(database.connection());
        QVERIFY(left.exec(QStringLiteral("SELECT count(*) FROM responses")) && left.next());
        QCOMPARE(left.value(0).toInt(), 0);

        // Opened again, with nothing left to move, the file still has them once each.
        store.close();
        ResponseStore reopened;
        QVERIFY(reopened.open(path, nullptr));
        reopened.close();
        Database responses(ResponseStore::fileBeside(path));
        QVERIFY(responses.open(ResponseStore::layout(), nullptr));
        QSqlQuery q(responses.connection());
        QVERIFY(q.exec(QStringLiteral("SELECT count(*), count(DISTINCT id) FROM responses")) && q.next());
        QCOMPARE(q.value(0).toInt(), 3);
        QCOMPARE(q.value(1).toInt(), 3);
    }

    void aClosedReplyChannelDropsTheAnswer()
    {
        test::FakeClock clock;
        ResponseStore store;
        auto reply = ReplyChannel::to(this);
        reply->close();
        bool called = false;
        store.find(QStringLiteral("resp_1"), reply, [&called](std::optional<StoredResponse>) { called = true; });
        QTest::qWait(50);
        QVERIFY(!called);
    }

private:
    std::shared_ptr<ReplyChannel> m_reply;
};

QTEST_MAIN(tst_ResponseStore)
#include "tst_ResponseStore.moc"
