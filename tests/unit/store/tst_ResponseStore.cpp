// Stored Responses API responses: what previous_response_id continues and GET /v1/responses/{id}
// returns, in memory for the follow-up that comes a moment later and in a real SQLite file so a
// conversation survives a restart, deleted with the history's retention.

#include "common/ReplyChannel.h"
#include "store/HistoryWriter.h"
#include "store/ResponseStore.h"

#include "FakeClock.h"

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
            ResponseStore store(clock);
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
        ResponseStore reopened(clock);
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
            ResponseStore store(clock);
            QVERIFY(store.open(path, nullptr));
            store.save(response(QStringLiteral("resp_a"), now));
            store.save(response(QStringLiteral("resp_b"), now, QStringLiteral("resp_a")));
        }
        ResponseStore store(clock);
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
        ResponseStore store(clock);
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
        ResponseStore reopened(clock);
        QVERIFY(reopened.open(path, nullptr));
        Answer<std::optional<StoredResponse>> found;
        reopened.find(QStringLiteral("resp_x"), m_reply, found.sink());
        QVERIFY(found.wait());
        QVERIFY(!*found.value); // the save queued before the delete did not come back
    }

    void memoryIsBoundedAndSqliteKeepsTheRest()
    {
        QTemporaryDir dir;
        test::FakeClock clock;
        ResponseStore::Options options;
        options.memoryBytes = 2000;
        ResponseStore store(clock, options);
        QVERIFY(store.open(dir.filePath(QStringLiteral("switchboard.db")), nullptr));
        const QString big(400, QLatin1Char('x'));
        for (int i = 0; i < 20; ++i)
            store.save(response(QStringLiteral("resp_%1").arg(i), clock.wallMillis(), {}, big));
        Answer<std::optional<StoredResponse>> first;
        store.find(QStringLiteral("resp_0"), m_reply, first.sink());
        QVERIFY(first.wait());
        QVERIFY(*first.value);
        QCOMPARE((*first.value)->object().value(QStringLiteral("output_text_for_test")).toString(), big);
    }

    void withoutADatabaseResponsesLiveInMemory()
    {
        test::FakeClock clock;
        ResponseStore store(clock);
        store.save(response(QStringLiteral("resp_m"), clock.wallMillis()));
        Answer<std::optional<std::vector<StoredResponse>>> chain;
        store.findChain(QStringLiteral("resp_m"), m_reply, chain.sink());
        QVERIFY(chain.wait());
        QVERIFY(*chain.value);
        QCOMPARE((*chain.value)->size(), std::size_t(1));
    }

    void theHistorysRetentionDeletesOldResponses()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("switchboard.db"));
        test::FakeClock clock;
        const qint64 now = clock.wallMillis();
        {
            ResponseStore store(clock);
            QVERIFY(store.open(path, nullptr));
            store.save(response(QStringLiteral("resp_old"), now - 3 * DayMs));
            store.save(response(QStringLiteral("resp_new"), now - DayMs / 2));
        }
        HistoryWriter::Options options;
        options.retentionDays = 2;
        HistoryWriter writer(path, clock, options);
        QVERIFY(writer.start());
        writer.runMaintenance();
        writer.stop();

        ResponseStore store(clock);
        QVERIFY(store.open(path, nullptr));
        Answer<std::optional<StoredResponse>> old;
        store.find(QStringLiteral("resp_old"), m_reply, old.sink());
        QVERIFY(old.wait());
        QVERIFY(!*old.value);
        Answer<std::optional<StoredResponse>> fresh;
        store.find(QStringLiteral("resp_new"), m_reply, fresh.sink());
        QVERIFY(fresh.wait());
        QVERIFY(*fresh.value);
    }

    void aClosedReplyChannelDropsTheAnswer()
    {
        test::FakeClock clock;
        ResponseStore store(clock);
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
