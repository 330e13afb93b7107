// StreamContinuation on its own: what it keeps of a stream the client got, the request that asks
// for the rest, and the splice — the overlap trimmed, the continuation's role and reasoning left
// out, one chunk identity, the usage summed.
#include "proxy/StreamContinuation.h"

#include <QtTest>
#include <QJsonArray>
#include <QJsonDocument>

using namespace sb;

namespace {

QByteArray chunk(const QString &id, const QJsonObject &delta, const QJsonValue &finish = QJsonValue::Null,
                 const QJsonValue &usage = QJsonValue::Undefined)
{
    QJsonObject c{{"id", id},
                  {"object", "chat.completion.chunk"},
                  {"created", id == "first" ? 100 : 200},
                  {"model", id == "first" ? "gpt-4o" : "other"},
                  {"choices", QJsonArray{QJsonObject{{"index", 0}, {"delta", delta}, {"finish_reason", finish}}}}};
    if (!usage.isUndefined())
        c.insert("usage", usage);
    return QJsonDocument(c).toJson(QJsonDocument::Compact);
}

QByteArray text(const QString &id, const QString &content)
{
    return chunk(id, QJsonObject{{"content", content}});
}

QString contentOf(const std::vector<QByteArray> &chunks)
{
    QString all;
    for (const QByteArray &c : chunks)
        all += QJsonDocument::fromJson(c)["choices"][0]["delta"]["content"].toString();
    return all;
}

} // namespace

class tst_StreamContinuation : public QObject {
    Q_OBJECT

private slots:
    void overlapFindsTheRepeatedTail_data()
    {
        QTest::addColumn<QString>("sent");
        QTest::addColumn<QString>("opening");
        QTest::addColumn<bool>("final");
        QTest::addColumn<int>("expected"); // -1: not decided yet
        QTest::addRow("no repeat") << "The router keeps two" << " channels per model" << false << 0;
        QTest::addRow("the last words again") << "The router keeps two channels" << "two channels per model" << false << 12;
        QTest::addRow("a short coincidence is new text") << "it was the" << "the end of it" << false << 0;
        QTest::addRow("started over") << "Hi" << "Hi there, friend" << false << 2;
        QTest::addRow("started over, long") << "The router keeps two channels" << "The router keeps two channels per model" << false << 29;
        QTest::addRow("could still be a repeat") << "The router keeps two channels" << "two chan" << false << -1;
        QTest::addRow("the end settles it") << "The router keeps two channels" << "two chan" << true << 8;
        QTest::addRow("multi-byte text") << QString::fromUtf8("路由器为每个模型保持两个独立通道") << QString::fromUtf8("保持两个独立通道，并且") << false << 8;
    }

    void overlapFindsTheRepeatedTail()
    {
        QFETCH(QString, sent);
        QFETCH(QString, opening);
        QFETCH(bool, final);
        QFETCH(int, expected);
        const std::optional<int> found = StreamContinuation::overlap(sent, opening, final);
        QCOMPARE(found.value_or(-1), expected);
    }

    void keepsWhatTheClientGot()
    {
        StreamContinuation c;
        c.sent({chunk("first", QJsonObject{{"role", "assistant"}}), text("first", "Hello "), text("first", "wor")});
        QCOMPARE(c.text(), QStringLiteral("Hello wor"));
        QVERIFY(c.refusal().isEmpty());
        c.sent({chunk("first", QJsonObject{{"tool_calls", QJsonArray{QJsonObject{{"index", 0}}}}})});
        QVERIFY(c.toolCallSent());
        QVERIFY(c.refusal().contains("tool call"));
    }

    void asksForTheRestAsAPrefillOrInWords()
    {
        StreamContinuation c;
        c.sent({text("first", "The answer so far ")});
        const QJsonObject original{{"model", "gpt-4o"}, {"messages", QJsonArray{QJsonObject{{"role", "user"}, {"content", "Hi"}}}}};
        const QJsonArray prefilled = c.request(original, true)["messages"].toArray();
        QCOMPARE(prefilled.size(), 2);
        QCOMPARE(prefilled.last()["role"].toString(), QStringLiteral("assistant"));
        QCOMPARE(prefilled.last()["content"].toString(), QStringLiteral("The answer so far")); // no trailing space
        const QJsonArray worded = c.request(original, false)["messages"].toArray();
        QCOMPARE(worded.size(), 3);
        QCOMPARE(worded.at(1)["content"].toString(), QStringLiteral("The answer so far "));
        QCOMPARE(worded.last()["role"].toString(), QStringLiteral("user"));
        QCOMPARE(worded.last()["content"].toString(), QString::fromLatin1(StreamContinuation::kInstruction));
    }

    void onlyReasoningSentAsksAgainAsItWas()
    {
        StreamContinuation c;
        c.sent({chunk("first", QJsonObject{{"reasoning_content", "Let me think"}})});
        QVERIFY(c.anySent());
        const QJsonObject original{{"messages", QJsonArray{QJsonObject{{"role", "user"}, {"content", "Hi"}}}}};
        QCOMPARE(c.request(original, true), original);
        c.beginSplice(TokenUsage{}, 10);
        // The fallback's own reasoning is not shown again; its text is.
        const auto out = c.splice({chunk("second", QJsonObject{{"role", "assistant"}, {"reasoning_content", "Hmm"}}), text("second", "Hello")}, false);
        QCOMPARE(out.size(), std::size_t(1));
        QCOMPARE(contentOf(out), QStringLiteral("Hello"));
        QVERIFY(!QJsonDocument::fromJson(out.front())["choices"][0]["delta"].toObject().contains("reasoning_content"));
    }

    void splicesOneStream()
    {
        StreamContinuation c;
        c.sent({chunk("first", QJsonObject{{"role", "assistant"}}), text("first", "The router keeps two "), text("first", "channels")});
        c.beginSplice(TokenUsage{}, 20); // cut: no usage of its own
        c.request(QJsonObject{}, false);
        std::vector<QByteArray> out = c.splice({chunk("second", QJsonObject{{"role", "assistant"}}), text("second", "two chan")}, false);
        QVERIFY(out.empty()); // "two chan" could still be the end of what was sent: held
        auto more = c.splice({text("second", "nels per model.")}, false);
        out.insert(out.end(), more.begin(), more.end());
        QCOMPARE(contentOf(out), QStringLiteral(" per model."));
        const QJsonObject usage{{"prompt_tokens", 30}, {"completion_tokens", 4}, {"total_tokens", 34}};
        more = c.splice({chunk("second", QJsonObject{}, "stop"), chunk("second", QJsonObject{}, QJsonValue::Null, usage)}, true);
        QCOMPARE(more.size(), std::size_t(2));
        for (const QByteArray &bytes : out) {
            const QJsonObject o = QJsonDocument::fromJson(bytes).object();
            QCOMPARE(o["id"].toString(), QStringLiteral("first"));
            QCOMPARE(o["created"].toInt(), 100);
            QCOMPARE(o["model"].toString(), QStringLiteral("gpt-4o"));
            QVERIFY(!o["choices"][0]["delta"].toObject().contains("role"));
        }
        QCOMPARE(QJsonDocument::fromJson(more.front())["choices"][0]["finish_reason"].toString(), QStringLiteral("stop"));
        // The cut attempt counts its prompt (20) and its 29 characters' estimate (8) out.
        const QJsonObject summed = QJsonDocument::fromJson(more.back())["usage"].toObject();
        QCOMPARE(summed["prompt_tokens"].toInt(), 50);
        QCOMPARE(summed["completion_tokens"].toInt(), 12);
        QCOMPARE(summed["total_tokens"].toInt(), 62);
    }

    void aPrefillsMissingSpaceIsNotSentTwice()
    {
        StreamContinuation c;
        c.sent({text("first", "Hello world and ")});
        c.beginSplice(TokenUsage{}, 0);
        c.request(QJsonObject{}, true); // the prefill is "Hello world and"
        const auto out = c.splice({text("second", " the rest.")}, true);
        QCOMPARE(contentOf(out), QStringLiteral("the rest."));
    }

    void aToolCallIsHeldUntilTheAnswerFinishes()
    {
        StreamContinuation c;
        const QByteArray call = chunk("first", QJsonObject{{"tool_calls", QJsonArray{QJsonObject{{"index", 0}, {"id", "call_1"},
                                                                                              {"function", QJsonObject{{"name", "ls"}, {"arguments", ""}}}}}}});
        const QByteArray args = chunk("first", QJsonObject{{"tool_calls", QJsonArray{QJsonObject{{"index", 0}, {"function", QJsonObject{{"arguments", "{}"}}}}}}});
        auto out = c.holdToolCalls({text("first", "Let me look."), call}, false);
        QCOMPARE(out.size(), std::size_t(1)); // the text goes, the call waits
        QVERIFY(c.holdingToolCall());
        QVERIFY(c.holdToolCalls({args}, false).empty());
        out = c.holdToolCalls({chunk("first", QJsonObject{}, "tool_calls")}, true);
        QCOMPARE(out.size(), std::size_t(3)); // whole, in order
        QCOMPARE(out.front(), call);
        QVERIFY(!c.holdingToolCall());

        // A break while a call is held: the next attempt's own call replaces it.
        StreamContinuation broken;
        broken.holdToolCalls({text("first", "Let me look."), call}, false);
        broken.dropHeldToolCall();
        broken.beginSplice(TokenUsage{}, 0);
        QVERIFY(!broken.holdingToolCall());
        out = broken.holdToolCalls({call, chunk("first", QJsonObject{}, "tool_calls")}, true);
        QCOMPARE(out.size(), std::size_t(2)); // one call, not the broken one's beside it
    }

    void aHeldOpeningIsSettledWhenTheStreamEnds()
    {
        StreamContinuation c;
        c.sent({text("first", "The router keeps two channels")});
        c.beginSplice(TokenUsage{}, 0);
        c.request(QJsonObject{}, false);
        QVERIFY(c.splice({text("second", "two")}, false).empty());
        QVERIFY(c.splice({text("second", " chan")}, false).empty());
        // It ended there: a repeat of what the client has, which it does not get twice.
        auto out = c.splice({chunk("second", QJsonObject{}, "stop")}, true);
        QCOMPARE(out.size(), std::size_t(1));
        QCOMPARE(contentOf(out), QString());

        StreamContinuation fresh;
        fresh.sent({text("first", "The router keeps two channels")});
        fresh.beginSplice(TokenUsage{}, 0);
        fresh.request(QJsonObject{}, false);
        QVERIFY(fresh.splice({text("second", "two chan")}, false).empty());
        out = fresh.splice({text("second", "ges nothing.")}, true); // not a repeat after all
        QCOMPARE(contentOf(out), QStringLiteral("two changes nothing."));
    }
};

QTEST_GUILESS_MAIN(tst_StreamContinuation)
#include "tst_StreamContinuation.moc"
