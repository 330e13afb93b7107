#include "frontends/openai_responses/ResponsesApi.h"
#include "common/json/JsonObjectScan.h"
#include "providers/common/OpenAiAnswer.h"

#include "ResponsesWire.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace sb;

// The Responses front door as the proxy drives it: a whole answer, a stream ended, a stream broken,
// an error before the first byte; and the final response object handed over exactly once, the
// same one the client got.

namespace {

ResponseFrame frame()
{
    ResponseFrame f;
    f.id = "resp_api";
    f.model = "gpt-client";
    f.createdAt = 1741290958;
    f.echo = QJsonObject{{"instructions", "Be brief."}, {"store", true}};
    return f;
}

struct Recorder {
    QList<QJsonObject> calls;
    ResponsesApi::Finished callback()
    {
        return [this](const QJsonObject &response, const QByteArray &json) {
            // One of the two, or both saying the same: the store keeps what it is given.
            QVERIFY(!response.isEmpty() || !json.isEmpty());
            if (!response.isEmpty() && !json.isEmpty())
                QCOMPARE(QJsonDocument::fromJson(json).object(), response);
            calls.append(response.isEmpty() ? QJsonDocument::fromJson(json).object() : response);
        };
    }
};

QByteArray chunk(const QJsonObject &delta, const QJsonValue &finishReason = QJsonValue(QJsonValue::Null))
{
    return QJsonDocument(QJsonObject{{"id", "chatcmpl-1"}, {"object", "chat.completion.chunk"}, {"model", "upstream-model"},
                                     {"choices", QJsonArray{QJsonObject{{"index", 0}, {"delta", delta}, {"finish_reason", finishReason}}}}})
        .toJson(QJsonDocument::Compact);
}

QByteArray usageChunk()
{
    return QJsonDocument(QJsonObject{{"id", "chatcmpl-1"}, {"object", "chat.completion.chunk"}, {"choices", QJsonArray()},
                                     {"usage", QJsonObject{{"prompt_tokens", 9}, {"completion_tokens", 2}, {"total_tokens", 11}}}})
        .toJson(QJsonDocument::Compact);
}

QJsonObject terminal(const QByteArray &sse) { return test::parseEvents(sse).last().data.value("response").toObject(); }

} // namespace

class tst_ResponsesApi : public QObject {
    Q_OBJECT
private slots:
    void wholeAnswer()
    {
        Recorder recorder;
        ResponsesApi api(frame(), recorder.callback());
        const QJsonObject completion{
            {"id", "chatcmpl-1"}, {"object", "chat.completion"}, {"model", "upstream-model"},
            {"choices", QJsonArray{QJsonObject{{"index", 0},
                                               {"message", QJsonObject{{"role", "assistant"}, {"content", "Chào bạn!"}, {"reasoning_content", "A greeting."}}},
                                               {"finish_reason", "stop"}}}},
            {"usage", QJsonObject{{"prompt_tokens", 9}, {"completion_tokens", 4}, {"total_tokens", 13}}}};
        const QByteArray body = api.answer(OpenAiAnswer::fromObject(completion), "gpt-client", 1800000000);
        const QJsonObject response = QJsonDocument::fromJson(body).object();
        QCOMPARE(response.value("id").toString(), QStringLiteral("resp_api"));
        QCOMPARE(response.value("model").toString(), QStringLiteral("gpt-client"));
        QCOMPARE(response.value("created_at").toInteger(), 1741290958); // the frame's time, not the call's
        QCOMPARE(response.value("instructions").toString(), QStringLiteral("Be brief."));
        QCOMPARE(response.value("status").toString(), QStringLiteral("completed"));
        QCOMPARE(response.value("output").toArray().size(), 2);
        QCOMPARE(response.value("usage").toObject().value("total_tokens").toInt(), 13);
        QCOMPARE(recorder.calls.size(), 1);
        QCOMPARE(recorder.calls.first(), response);
    }

    void wholeAnswerFillsWhatTheFrameLeftOpen()
    {
        Recorder recorder;
        ResponseFrame f = frame();
        f.createdAt = 0;
        f.model.clear();
        ResponsesApi api(f, recorder.callback());
        const QJsonObject completion{{"object", "chat.completion"},
                                     {"choices", QJsonArray{QJsonObject{{"index", 0}, {"message", QJsonObject{{"role", "assistant"}, {"content", "x"}}},
                                                                        {"finish_reason", "stop"}}}}};
        const QJsonObject response = QJsonDocument::fromJson(api.answer(OpenAiAnswer::fromObject(completion), "logical", 1800000000)).object();
        QCOMPARE(response.value("created_at").toInteger(), 1800000000);
        QCOMPARE(response.value("model").toString(), QStringLiteral("logical"));
    }

    // A provider's bytes passed through are read before their model and time are written in: the
    // client gets the same response as from the same answer as an object, byte for byte, with the
    // frame's model and time (or the call's, where the frame left them open) and never the
    // provider's.
    void providerBytesAnswerAsTheSameAnswerAsAnObject_data()
    {
        QTest::addColumn<bool>("frameLeavesThemOpen");
        QTest::addColumn<QByteArray>("completion");
        const QByteArray text = "{\"id\":\"chatcmpl-9\",\"object\":\"chat.completion\",\"created\":1700000000,\"model\":\"upstream-model\","
                                "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"Chào \\\"bạn\\\"!\"},"
                                "\"finish_reason\":\"length\"}],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":4,\"total_tokens\":13}}";
        const QByteArray withoutCreated = "{\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
                                          "\"content\":\"x\"},\"finish_reason\":\"stop\"}]}";
        const QByteArray toolCall = "{\"object\":\"chat.completion\",\"created\":5,\"model\":\"m\",\"choices\":[{\"index\":0,\"message\":"
                                    "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"call_1\",\"type\":\"function\","
                                    "\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]},\"finish_reason\":\"tool_calls\"}]}";
        QTest::newRow("text, frame set") << false << text;
        QTest::newRow("text, frame open") << true << text;
        QTest::newRow("no created, frame open") << true << withoutCreated;
        QTest::newRow("a tool call (not the quick writer's)") << false << toolCall;
    }

    void providerBytesAnswerAsTheSameAnswerAsAnObject()
    {
        QFETCH(bool, frameLeavesThemOpen);
        QFETCH(QByteArray, completion);
        ResponseFrame f = frame();
        if (frameLeavesThemOpen) {
            f.createdAt = 0;
            f.model.clear();
        }
        JsonObjectScan scan;
        QVERIFY(scan.scan(completion));
        const std::optional<OpenAiAnswer> passed = OpenAiAnswer::passThrough(completion, scan);
        QVERIFY(passed && passed->isPassThrough());
        Recorder fromBytes, fromObject;
        const QByteArray viaBytes = ResponsesApi(f, fromBytes.callback()).answer(*passed, "logical", 1800000000);
        const QByteArray viaObject = ResponsesApi(f, fromObject.callback())
                                         .answer(OpenAiAnswer::fromObject(QJsonDocument::fromJson(completion).object()), "logical", 1800000000);
        QCOMPARE(viaBytes, viaObject);
        const QJsonObject response = QJsonDocument::fromJson(viaBytes).object();
        QCOMPARE(response.value("model").toString(), frameLeavesThemOpen ? QStringLiteral("logical") : QStringLiteral("gpt-client"));
        QCOMPARE(response.value("created_at").toInteger(), frameLeavesThemOpen ? 1800000000 : 1741290958);
        QCOMPARE(fromBytes.calls.size(), 1);
        QCOMPARE(fromBytes.calls.first(), response);
    }

    void streamEnded()
    {
        Recorder recorder;
        ResponsesApi api(frame(), recorder.callback());
        // Nothing for the client before the first content: the proxy can still fail over.
        QCOMPARE(api.streamChunks({chunk(QJsonObject{{"role", "assistant"}, {"content", ""}})}), QByteArray());
        QByteArray out = api.streamChunks({chunk(QJsonObject{{"content", "Hel"}}), chunk(QJsonObject{{"content", "lo"}})});
        QVERIFY(out.startsWith("event: response.created\ndata: {"));
        out += api.streamChunks({chunk(QJsonObject(), "stop"), usageChunk()});
        QVERIFY(recorder.calls.isEmpty());
        out += api.streamEnd();
        QCOMPARE(api.streamEnd(), QByteArray());
        QCOMPARE(api.streamError(ApiError()), QByteArray());

        const QList<test::WireEvent> events = test::parseEvents(out);
        const QString violation = test::responsesGrammarViolation(events);
        QVERIFY2(violation.isEmpty(), qPrintable(violation));
        QCOMPARE(events.last().name, QByteArray("response.completed"));
        QCOMPARE(recorder.calls.size(), 1);
        QCOMPARE(recorder.calls.first(), terminal(out));
        QCOMPARE(recorder.calls.first(), api.writer().response());
        QCOMPARE(recorder.calls.first().value("usage").toObject().value("input_tokens").toInt(), 9);
    }

    void streamBrokenAfterContent()
    {
        Recorder recorder;
        ResponsesApi api(frame(), recorder.callback());
        QByteArray out = api.streamChunks({chunk(QJsonObject{{"content", "Partial"}})});
        ApiError error;
        error.status = 502;
        error.type = "upstream_error";
        error.code = "network_error";
        error.message = "The upstream stream broke after the answer had started.";
        const QByteArray failed = api.streamError(error);
        out += failed;
        QCOMPARE(test::parseEvents(failed).size(), 1);
        QCOMPARE(test::parseEvents(failed).first().name, QByteArray("response.failed"));
        QCOMPARE(api.streamEnd(), QByteArray());
        const QString violation = test::responsesGrammarViolation(test::parseEvents(out));
        QVERIFY2(violation.isEmpty(), qPrintable(violation));
        QCOMPARE(recorder.calls.size(), 1);
        QCOMPARE(recorder.calls.first().value("status").toString(), QStringLiteral("failed"));
        QCOMPARE(recorder.calls.first().value("error").toObject(), (QJsonObject{{"code", "network_error"}, {"message", error.message}}));
        QCOMPARE(recorder.calls.first(), terminal(out));
    }

    void inBandErrorChunkFailsTheStream()
    {
        Recorder recorder;
        ResponsesApi api(frame(), recorder.callback());
        const QByteArray error = QJsonDocument(QJsonObject{{"error", QJsonObject{{"message", "cut"}, {"type", "upstream_error"}, {"code", "stream_cut"}}}})
                                     .toJson(QJsonDocument::Compact);
        const QByteArray out = api.streamChunks({chunk(QJsonObject{{"content", "a"}}), error, chunk(QJsonObject{{"content", "after"}})});
        QCOMPARE(test::parseEvents(out).last().name, QByteArray("response.failed"));
        QVERIFY(!out.contains("after"));
        QCOMPARE(recorder.calls.size(), 1);
        QCOMPARE(api.streamEnd(), QByteArray());
        QCOMPARE(api.streamChunks({chunk(QJsonObject{{"content", "late"}})}), QByteArray());
        QCOMPARE(recorder.calls.size(), 1);
        QCOMPARE(recorder.calls.first().value("error").toObject().value("code").toString(), QStringLiteral("stream_cut"));
    }

    void errorBeforeTheFirstByte()
    {
        // OpenAI's error shape and the status as given; no response was made, none is reported.
        Recorder recorder;
        ResponsesApi api(frame(), recorder.callback());
        const QJsonObject reference = test::responsesFixtureObject("error.json");
        const QJsonObject referenceError = reference.value("error").toObject();
        ApiError error;
        error.status = 404;
        error.message = referenceError.value("message").toString();
        error.type = referenceError.value("type").toString();
        error.code = referenceError.value("code").toString();
        QCOMPARE(api.errorStatus(error), 404);
        QCOMPARE(QJsonDocument::fromJson(api.errorBody(error)).object(), reference);
        error.status = 429;
        QCOMPARE(api.errorStatus(error), 429);
        QVERIFY(recorder.calls.isEmpty());
    }

    void withoutACallback()
    {
        ResponsesApi api(frame(), nullptr);
        QVERIFY(!api.streamChunks({chunk(QJsonObject{{"content", "a"}})}).isEmpty());
        QVERIFY(api.streamEnd().contains("response.completed"));
    }
};

QTEST_GUILESS_MAIN(tst_ResponsesApi)
#include "tst_ResponsesApi.moc"
