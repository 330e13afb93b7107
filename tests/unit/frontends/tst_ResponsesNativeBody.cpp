#include "frontends/openai_responses/ResponsesNativeBody.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace sb;

// previous_response_id names a response only Switchboard stored: an upstream that speaks the
// Responses API itself gets the conversation in `input` instead, the rest of the body as sent.

class tst_ResponsesNativeBody : public QObject {
    Q_OBJECT
private slots:
    void withoutHistoryTheBodyIsTheClientsBytes()
    {
        const QByteArray body = R"({"model":"m", "input":"Hi", "x_future":{"a":1}})";
        QCOMPARE(ResponsesNativeBody::withHistory(body, {}, QJsonArray{}), body);
    }

    void aPreviousResponseIdBecomesTheConversationInInput()
    {
        const QByteArray body = R"({"model":"m", "previous_response_id":"resp_sb1", "input":"And now?", "include":["reasoning.encrypted_content"], "x_future":{"a":[1,2.50]}})";
        const QJsonArray history{
            QJsonObject{{"type", "message"}, {"id", "msg_sb1in0"}, {"role", "user"}, {"content", QJsonArray{QJsonObject{{"type", "input_text"}, {"text", "Hello"}}}}},
            QJsonObject{{"type", "reasoning"}, {"id", "rs_up1"}, {"summary", QJsonArray()}}, // nothing the upstream can resolve
            QJsonObject{{"type", "reasoning"}, {"id", "rs_up2"}, {"summary", QJsonArray()}, {"encrypted_content", "gAAAA"}},
            QJsonObject{{"type", "function_call"}, {"id", "fc_up1"}, {"call_id", "call_1"}, {"name", "f"}, {"arguments", "{}"}, {"status", "completed"}},
            QJsonObject{{"type", "function_call_output"}, {"call_id", "call_1"}, {"output", "42"}},
            QJsonObject{{"type", "message"}, {"id", "msg_up1"}, {"role", "assistant"}, {"status", "completed"},
                        {"content", QJsonArray{QJsonObject{{"type", "output_text"}, {"text", "It is 42."}}}}},
        };
        const QJsonArray input{QJsonObject{{"type", "message"}, {"role", "user"}, {"content", QJsonArray{QJsonObject{{"type", "input_text"}, {"text", "And now?"}}}}}};
        const QByteArray out = ResponsesNativeBody::withHistory(body, history, input);

        // The members it does not change stay byte for byte.
        QVERIFY(out.startsWith(R"({"model":"m", "previous_response_id":null, "input":[)"));
        QVERIFY(out.endsWith(R"(, "include":["reasoning.encrypted_content"], "x_future":{"a":[1,2.50]}})"));
        const QJsonArray items = QJsonDocument::fromJson(out).object().value("input").toArray();
        QCOMPARE(items.size(), 6);
        for (const QJsonValue &item : items)
            QVERIFY2(!item.toObject().contains("id"), "stored ids name nothing the upstream kept");
        QCOMPARE(items[0]["content"][0]["text"].toString(), QStringLiteral("Hello"));
        QCOMPARE(items[1]["encrypted_content"].toString(), QStringLiteral("gAAAA"));
        QCOMPARE(items[2]["call_id"].toString(), QStringLiteral("call_1"));
        QCOMPARE(items[4]["content"][0]["text"].toString(), QStringLiteral("It is 42."));
        QCOMPARE(items[5]["content"][0]["text"].toString(), QStringLiteral("And now?"));
    }

    void aBodyTheScanRefusesIsRebuiltWithTheSameValues()
    {
        const QByteArray body = R"({"model":"m","model":"m2","previous_response_id":"resp_sb1","input":"x"})";
        const QJsonArray history{QJsonObject{{"type", "message"}, {"role", "user"}, {"content", "Hello"}}};
        const QJsonObject out = QJsonDocument::fromJson(ResponsesNativeBody::withHistory(body, history, QJsonArray{})).object();
        QVERIFY(out.value("previous_response_id").isNull());
        QCOMPARE(out.value("input").toArray().size(), 1);
    }
};

QTEST_GUILESS_MAIN(tst_ResponsesNativeBody)
#include "tst_ResponsesNativeBody.moc"
