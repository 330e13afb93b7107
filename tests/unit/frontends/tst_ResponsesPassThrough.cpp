#include "frontends/openai_responses/ResponsesApi.h"
#include "frontends/openai_responses/ResponsesPassThrough.h"

#include "ResponsesWire.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace sb;
using namespace sb::test;

// An upstream that speaks the Responses API itself: its answer goes to the client as it came but
// for the response's id, model, store and previous_response_id; its stream is held until the first
// content, so that an early failure can still fail over unseen.

namespace {

ResponseFrame frame(bool store = true, const QString &previous = {})
{
    ResponseFrame f;
    f.id = QStringLiteral("resp_switchboard0001");
    f.model = QStringLiteral("my-model");
    f.createdAt = 1700000000;
    f.echo = QJsonObject{{"store", store}, {"previous_response_id", previous.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(previous)}};
    return f;
}

// The events of a fixture, each as (event name, data).
QList<WireEvent> events(const QString &name) { return parseEvents(readResponsesFixture(name)); }

// Feeds the events one by one; returns at which event index bytes first came out (-1: never).
int firstRelease(ResponsesPassThrough &pass, const QList<WireEvent> &all, QByteArray *out)
{
    int first = -1;
    for (qsizetype i = 0; i < all.size(); ++i) {
        const QByteArray bytes = pass.event(all[i].name, all[i].raw);
        if (!bytes.isEmpty() && first < 0)
            first = int(i);
        *out += bytes;
    }
    return first;
}

} // namespace

class tst_ResponsesPassThrough : public QObject {
    Q_OBJECT
private slots:
    void aWholeAnswerKeepsEverythingButItsIdModelAndStore()
    {
        const QByteArray body = readResponsesFixture(QStringLiteral("response.json"));
        ResponsesPassThrough pass(frame(true, QStringLiteral("resp_earlier")));
        QJsonObject stored;
        const QByteArray out = pass.answer(body, &stored);
        QJsonObject expected = QJsonDocument::fromJson(body).object();
        expected.insert("id", "resp_switchboard0001");
        expected.insert("model", "my-model");
        expected.insert("store", true);
        expected.insert("previous_response_id", "resp_earlier");
        QCOMPARE(QJsonDocument::fromJson(out).object(), expected);
        QCOMPARE(stored, expected);
        // Byte for byte outside the rewritten members: the item ids and the text as the upstream wrote them.
        QVERIFY(out.contains("\"id\": \"msg_67ccd2bf17f0819081ff3bb2cf6508e60bb6a6b452d3795b\""));
        QVERIFY(out.contains("\"created_at\": 1741476542"));
    }

    void theStreamWaitsForTheFirstDeltaThenReleasesTheHeldEventsTogether()
    {
        const QList<WireEvent> all = events(QStringLiteral("stream_text.sse"));
        ResponsesPassThrough pass(frame());
        QByteArray out;
        const int first = firstRelease(pass, all, &out);
        QCOMPARE(all[first].name, QByteArray("response.output_text.delta")); // created, in_progress, the empty message and part held
        const QList<WireEvent> sent = parseEvents(out);
        QCOMPARE(sent.size(), all.size());
        QCOMPARE(responsesGrammarViolation(sent), QString());
        for (qsizetype i = 0; i < sent.size(); ++i) {
            QCOMPARE(sent[i].name, all[i].name);
            QCOMPARE(sent[i].data.value("sequence_number"), all[i].data.value("sequence_number"));
            const QJsonObject response = sent[i].data.value("response").toObject();
            if (!response.isEmpty()) {
                QCOMPARE(response.value("id").toString(), QStringLiteral("resp_switchboard0001"));
                QCOMPARE(response.value("model").toString(), QStringLiteral("my-model"));
            } else {
                QCOMPARE(sent[i].raw, all[i].raw); // item events exactly as the upstream sent them
            }
        }
        QVERIFY(pass.finished());
        QCOMPARE(pass.finished()->value("status").toString(), QStringLiteral("completed"));
        QCOMPARE(pass.finished()->value("id").toString(), QStringLiteral("resp_switchboard0001"));
    }

    void aFunctionCallIsContentAsSoonAsItIsAdded()
    {
        const QList<WireEvent> all = events(QStringLiteral("stream_function_call.sse"));
        ResponsesPassThrough pass(frame());
        QByteArray out;
        const int first = firstRelease(pass, all, &out);
        QCOMPARE(first, 2);
        QCOMPARE(all[first].name, QByteArray("response.output_item.added"));
    }

    void aReasoningItemIsHeldUntilItsFirstSummaryDelta()
    {
        const QList<WireEvent> all = events(QStringLiteral("stream_reasoning.sse"));
        ResponsesPassThrough pass(frame());
        QByteArray out;
        const int first = firstRelease(pass, all, &out);
        QCOMPARE(all[first].name, QByteArray("response.reasoning_summary_text.delta"));
        QCOMPARE(responsesGrammarViolation(parseEvents(out)), QString());
    }

    void aFailureBeforeContentShowsNothingAndTheNextAttemptStartsOver()
    {
        const QList<WireEvent> all = events(QStringLiteral("stream_text.sse"));
        ResponsesPassThrough pass(frame());
        for (int i = 0; i < 4; ++i) // created … content_part.added, then the upstream fails
            QVERIFY(pass.event(all[i].name, all[i].raw).isEmpty());
        QVERIFY(!pass.hasSent());
        // The next attempt's stream (another channel) starts with its own response.created.
        QByteArray out;
        firstRelease(pass, all, &out);
        const QList<WireEvent> sent = parseEvents(out);
        QCOMPARE(sent.size(), all.size()); // nothing of the first attempt's held events
        QCOMPARE(responsesGrammarViolation(sent), QString());
    }

    void aBreakAfterContentEndsWithResponseFailedNumberedOn()
    {
        const QList<WireEvent> all = events(QStringLiteral("stream_reasoning.sse"));
        ResponsesPassThrough pass(frame());
        QByteArray out;
        for (int i = 0; i < 12; ++i) // the reasoning item done, the message item open with one delta
            out += pass.event(all[i].name, all[i].raw);
        QVERIFY(pass.hasSent());
        out += pass.fail(ApiError{502, QStringLiteral("The upstream broke off."), QStringLiteral("upstream_error"), {}, QStringLiteral("provider_down")});
        const QList<WireEvent> sent = parseEvents(out);
        QCOMPARE(responsesGrammarViolation(sent), QString());
        const QJsonObject failed = sent.last().data.value("response").toObject();
        QCOMPARE(sent.last().name, QByteArray("response.failed"));
        QCOMPARE(sent.last().data.value("sequence_number").toInt(), 12);
        QCOMPARE(failed.value("id").toString(), QStringLiteral("resp_switchboard0001"));
        QCOMPARE(failed.value("error")["code"].toString(), QStringLiteral("provider_down"));
        QCOMPARE(failed.value("output").toArray().size(), 1); // the reasoning item; the half message is left out
        QCOMPARE(failed.value("output")[0]["type"].toString(), QStringLiteral("reasoning"));
    }

    void isContentFollowsTheRule()
    {
        QVERIFY(!ResponsesPassThrough::isContent("response.created", "{}"));
        QVERIFY(!ResponsesPassThrough::isContent("response.in_progress", "{}"));
        QVERIFY(!ResponsesPassThrough::isContent("response.content_part.added", "{}"));
        QVERIFY(!ResponsesPassThrough::isContent("response.output_item.added", R"({"item":{"type":"message","content":[]}})"));
        QVERIFY(!ResponsesPassThrough::isContent("response.output_item.added", R"({"item":{"type":"reasoning","summary":[]}})"));
        QVERIFY(ResponsesPassThrough::isContent("response.output_item.added", R"({"item":{"type":"message","content":[{"type":"output_text","text":"Hi"}]}})"));
        QVERIFY(ResponsesPassThrough::isContent("response.output_item.added", R"({"item":{"type":"function_call","name":"f"}})"));
        QVERIFY(ResponsesPassThrough::isContent("response.output_text.delta", "{}"));
        QVERIFY(ResponsesPassThrough::isContent("response.function_call_arguments.delta", "{}"));
        QVERIFY(ResponsesPassThrough::isContent("response.completed", "{}"));
    }

    void theApiStoresWhatTheClientGotAndFailsInTheUpstreamsNumbering()
    {
        QList<QJsonObject> reported;
        ResponsesApi api(frame(), [&](const QJsonObject &response, const QByteArray &) { reported.append(response); });
        const QList<WireEvent> all = events(QStringLiteral("stream_text.sse"));
        QByteArray out;
        for (const WireEvent &e : all)
            out += *api.passThroughEvent(e.name, e.raw);
        QCOMPARE(reported.size(), 1);
        QCOMPARE(reported.first(), parseEvents(out).last().data.value("response").toObject());

        QList<QJsonObject> broken;
        ResponsesApi second(frame(), [&](const QJsonObject &response, const QByteArray &) { broken.append(response); });
        QByteArray half;
        for (int i = 0; i < 6; ++i)
            half += *second.passThroughEvent(all[i].name, all[i].raw);
        half += second.streamError(ApiError{502, QStringLiteral("cut"), QStringLiteral("upstream_error"), {}, {}});
        QCOMPARE(responsesGrammarViolation(parseEvents(half)), QString());
        QCOMPARE(broken.size(), 1);
        QCOMPARE(broken.first().value("status").toString(), QStringLiteral("failed"));
    }
};

QTEST_GUILESS_MAIN(tst_ResponsesPassThrough)
#include "tst_ResponsesPassThrough.moc"
