// A cached answer is served in whichever form the new caller asked for: stream → whole answer and
// whole answer → stream, and it survives the trip through the database.
#include "cache/CachedAnswer.h"

#include <QtTest>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

using namespace sb;

namespace {

std::vector<QByteArray> streamedToolCallAnswer()
{
    return {
        R"({"id":"c1","object":"chat.completion.chunk","created":100,"model":"gpt-4o","choices":[{"index":0,"delta":{"role":"assistant","content":"Bon"},"finish_reason":null}]})",
        R"({"id":"c1","object":"chat.completion.chunk","created":100,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":"jour 你好"},"finish_reason":null}]})",
        "{\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":100,\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"{\\\"ci\"}}]},\"finish_reason\":null}]}",
        "{\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":100,\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"ty\\\":\\\"Paris\\\"}\"}}]},\"finish_reason\":null}]}",
        R"({"id":"c1","object":"chat.completion.chunk","created":100,"model":"gpt-4o","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]})",
        R"({"id":"c1","object":"chat.completion.chunk","created":100,"model":"gpt-4o","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":7,"total_tokens":12}})",
    };
}

QList<QJsonObject> eventsOf(const QByteArray &sse, bool *done)
{
    QList<QJsonObject> out;
    *done = false;
    const QList<QByteArray> blocks = sse.split('\n');
    for (const QByteArray &line : blocks) {
        if (!line.startsWith("data: "))
            continue;
        if (line == "data: [DONE]") {
            *done = true;
            continue;
        }
        out << QJsonDocument::fromJson(line.mid(6)).object();
    }
    return out;
}

} // namespace

class tst_CachedAnswer : public QObject {
    Q_OBJECT
private slots:
    void streamIsReplayedEventForEvent()
    {
        CachedAnswer a;
        a.events = streamedToolCallAnswer();
        const QByteArray sse = a.toSseBody();
        QVERIFY(sse.endsWith("data: [DONE]\n\n"));
        QVERIFY(sse.startsWith("data: {"));
        bool done = false;
        QCOMPARE(eventsOf(sse, &done).size(), qsizetype(6));
        QVERIFY(done);
    }

    void streamBecomesOneCompletion()
    {
        CachedAnswer a;
        a.events = streamedToolCallAnswer();
        const QJsonObject c = QJsonDocument::fromJson(a.toCompletionJson()).object();
        QCOMPARE(c.value("object").toString(), QStringLiteral("chat.completion"));
        QCOMPARE(c.value("id").toString(), QStringLiteral("c1"));
        QCOMPARE(c.value("model").toString(), QStringLiteral("gpt-4o"));
        const QJsonObject choice = c.value("choices").toArray().at(0).toObject();
        QCOMPARE(choice.value("finish_reason").toString(), QStringLiteral("tool_calls"));
        const QJsonObject message = choice.value("message").toObject();
        QCOMPARE(message.value("role").toString(), QStringLiteral("assistant"));
        QCOMPARE(message.value("content").toString(), QStringLiteral("Bonjour 你好"));
        const QJsonObject call = message.value("tool_calls").toArray().at(0).toObject();
        QCOMPARE(call.value("id").toString(), QStringLiteral("call_1"));
        QCOMPARE(call.value("function").toObject().value("name").toString(), QStringLiteral("get_weather"));
        QCOMPARE(call.value("function").toObject().value("arguments").toString(), QStringLiteral("{\"city\":\"Paris\"}"));
        QCOMPARE(c.value("usage").toObject().value("total_tokens").toInt(), 12);
    }

    void completionBecomesAStream()
    {
        CachedAnswer a;
        a.completion = R"({"id":"c2","object":"chat.completion","created":5,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Paris."},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}})";
        bool done = false;
        const QList<QJsonObject> events = eventsOf(a.toSseBody(), &done);
        QVERIFY(done);
        QCOMPARE(events.size(), qsizetype(3)); // message, end, usage
        QCOMPARE(events[0].value("object").toString(), QStringLiteral("chat.completion.chunk"));
        QCOMPARE(events[0].value("id").toString(), QStringLiteral("c2"));
        const QJsonObject delta = events[0].value("choices").toArray().at(0).toObject().value("delta").toObject();
        QCOMPARE(delta.value("content").toString(), QStringLiteral("Paris."));
        QVERIFY(events[0].value("choices").toArray().at(0).toObject().value("finish_reason").isNull());
        QCOMPARE(events[1].value("choices").toArray().at(0).toObject().value("finish_reason").toString(), QStringLiteral("stop"));
        QCOMPARE(events[2].value("usage").toObject().value("total_tokens").toInt(), 5);

        // And back: the round trip gives the same message.
        CachedAnswer again;
        for (const QJsonObject &e : events)
            again.events.push_back(QJsonDocument(e).toJson(QJsonDocument::Compact));
        const QJsonObject c = QJsonDocument::fromJson(again.toCompletionJson()).object();
        QCOMPARE(c.value("choices").toArray().at(0).toObject().value("message").toObject().value("content").toString(), QStringLiteral("Paris."));
    }

    void serializesForTheDatabase()
    {
        CachedAnswer a;
        a.events = streamedToolCallAnswer();
        const auto back = CachedAnswer::deserialize(a.serialize());
        QVERIFY(back);
        QCOMPARE(back->events, a.events);
        CachedAnswer b;
        b.completion = "{\"x\":1}";
        QCOMPARE(CachedAnswer::deserialize(b.serialize())->completion, b.completion);
    }

    void damagedRowsAreRefused()
    {
        QVERIFY(!CachedAnswer::deserialize(QByteArray()));
        QVERIFY(!CachedAnswer::deserialize("garbage that is not a cached answer"));
        CachedAnswer a;
        a.events = streamedToolCallAnswer();
        QVERIFY(!CachedAnswer::deserialize(a.serialize().left(40)));
    }
};

QTEST_GUILESS_MAIN(tst_CachedAnswer)
#include "tst_CachedAnswer.moc"
