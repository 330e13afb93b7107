#include "common/json/JsonObjectScan.h"
#include "frontends/openai_responses/ResponsesAnswer.h"

#include "ResponsesWire.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace sb;

// A buffered OpenAI chat.completion as the Responses API's "response": the reference's example
// responses come back from the chat completion an upstream would answer them with, and every
// finish_reason, tool call, reasoning and usage field lands where the reference puts it.

namespace {

QJsonObject completion(const QJsonObject &message, const QJsonValue &finishReason, const QJsonObject &usage = {})
{
    QJsonObject out{{"id", "chatcmpl-1"}, {"object", "chat.completion"}, {"created", 1718000000}, {"model", "upstream-model"},
                    {"choices", QJsonArray{QJsonObject{{"index", 0}, {"message", message}, {"finish_reason", finishReason}}}}};
    if (!usage.isEmpty())
        out.insert("usage", usage);
    return out;
}

QJsonObject assistant(const QString &text) { return QJsonObject{{"role", "assistant"}, {"content", text}}; }

QJsonObject toolCall(const QString &id, const QString &name, const QString &arguments)
{
    QJsonObject call{{"type", "function"}, {"function", QJsonObject{{"name", name}, {"arguments", arguments}}}};
    if (!id.isEmpty())
        call.insert("id", id);
    return call;
}

QJsonObject usage(int prompt, int completion, int total)
{
    return QJsonObject{{"prompt_tokens", prompt}, {"completion_tokens", completion}, {"total_tokens", total}};
}

ResponseFrame frame(const QString &id = "resp_test")
{
    ResponseFrame f;
    f.id = id;
    f.model = "gpt-test";
    f.createdAt = 1741476542;
    return f;
}

// The reference's request parameters, as the request parser hands them over.
ResponseFrame frameOf(const QJsonObject &reference)
{
    ResponseFrame f;
    f.id = reference.value("id").toString();
    f.model = reference.value("model").toString();
    f.createdAt = reference.value("created_at").toInteger();
    for (const char *key : {"instructions", "max_output_tokens", "parallel_tool_calls", "previous_response_id", "reasoning", "store",
                            "temperature", "text", "tool_choice", "tools", "top_p", "truncation", "user", "metadata"})
        f.echo.insert(key, reference.value(key));
    return f;
}

QJsonArray outputOf(const QJsonObject &response) { return response.value("output").toArray(); }

} // namespace

class tst_ResponsesAnswer : public QObject {
    Q_OBJECT
private slots:
    void referenceTextResponse()
    {
        const QJsonObject reference = test::responsesFixtureObject("response.json");
        QVERIFY(!reference.isEmpty());
        const QJsonObject message = outputOf(reference).at(0).toObject();
        const QString text = message.value("content").toArray().at(0).toObject().value("text").toString();
        const QJsonObject usageRef = reference.value("usage").toObject();
        const QJsonObject got = ResponsesAnswer::fromChatCompletion(
            completion(assistant(text), "stop",
                       usage(usageRef.value("input_tokens").toInt(), usageRef.value("output_tokens").toInt(), usageRef.value("total_tokens").toInt())),
            frameOf(reference));

        // Member for member the reference's, but for what this door writes differently: its own
        // item id, logprobs on the part (the schema requires it; the example predates it), and no
        // completed_at (the proxy does not know when the upstream finished).
        QJsonObject expected = reference;
        expected.remove("completed_at");
        QJsonObject item = message;
        item.insert("id", outputOf(got).at(0).toObject().value("id"));
        QJsonObject part = item.value("content").toArray().at(0).toObject();
        part.insert("logprobs", QJsonArray());
        item.insert("content", QJsonArray{part});
        expected.insert("output", QJsonArray{item});
        QCOMPARE(got, expected);
        QCOMPARE(outputOf(got).at(0).toObject().value("id").toString(), QStringLiteral("msg_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b_0"));
        QVERIFY(!got.contains("output_text")); // an SDK convenience: the SDKs compute it
    }

    void referenceFunctionCallResponse()
    {
        const QJsonObject reference = test::responsesFixtureObject("response_function_call.json");
        const QJsonObject call = outputOf(reference).at(0).toObject();
        const QJsonObject usageRef = reference.value("usage").toObject();
        QJsonObject message{{"role", "assistant"}, {"content", QJsonValue::Null},
                            {"tool_calls", QJsonArray{toolCall(call.value("call_id").toString(), call.value("name").toString(),
                                                               call.value("arguments").toString())}}};
        const QJsonObject got = ResponsesAnswer::fromChatCompletion(
            completion(message, "tool_calls",
                       usage(usageRef.value("input_tokens").toInt(), usageRef.value("output_tokens").toInt(), usageRef.value("total_tokens").toInt())),
            frameOf(reference));

        QJsonObject expected = reference;
        expected.remove("completed_at");
        QJsonObject item = call;
        item.insert("id", outputOf(got).at(0).toObject().value("id"));
        expected.insert("output", QJsonArray{item});
        QJsonObject usage = usageRef;
        usage.insert("input_tokens_details", QJsonObject{{"cached_tokens", 0}, {"cache_write_tokens", 0}});
        expected.insert("usage", usage);
        QCOMPARE(got, expected);
        QVERIFY(outputOf(got).at(0).toObject().value("id").toString().startsWith("fc_"));
    }

    void textWithToolCalls()
    {
        QJsonObject message = assistant("Xin chào! Let me check.");
        message.insert("tool_calls", QJsonArray{toolCall("call_1", "get_weather", "{\"city\":\"Hà Nội\"}"), toolCall("call_2", "get_time", "{}")});
        const QJsonObject got = ResponsesAnswer::fromChatCompletion(completion(message, "tool_calls"), frame());
        QCOMPARE(got.value("status").toString(), QStringLiteral("completed"));
        QVERIFY(got.value("incomplete_details").isNull());
        const QJsonArray output = outputOf(got);
        QCOMPARE(output.size(), 3);
        QCOMPARE(output.at(0).toObject(),
                 (QJsonObject{{"id", "msg_test_0"}, {"type", "message"}, {"status", "completed"}, {"role", "assistant"},
                              {"content", QJsonArray{QJsonObject{{"type", "output_text"}, {"text", "Xin chào! Let me check."},
                                                                 {"annotations", QJsonArray()}, {"logprobs", QJsonArray()}}}}}));
        QCOMPARE(output.at(1).toObject(),
                 (QJsonObject{{"id", "fc_test_1"}, {"type", "function_call"}, {"status", "completed"}, {"call_id", "call_1"},
                              {"name", "get_weather"}, {"arguments", "{\"city\":\"Hà Nội\"}"}}));
        QCOMPARE(output.at(2).toObject().value("id").toString(), QStringLiteral("fc_test_2"));
        QCOMPARE(output.at(2).toObject().value("call_id").toString(), QStringLiteral("call_2"));
        QVERIFY(got.value("usage").isNull()); // the upstream reported none
    }

    void reasoningComesFirst_data()
    {
        QTest::addColumn<QString>("field");
        QTest::newRow("reasoning_content") << "reasoning_content";
        QTest::newRow("reasoning") << "reasoning";
    }
    void reasoningComesFirst()
    {
        QFETCH(QString, field);
        QJsonObject message = assistant("42.");
        message.insert(field, "Six times seven.");
        const QJsonObject got = ResponsesAnswer::fromChatCompletion(
            completion(message, "stop", QJsonObject{{"prompt_tokens", 20}, {"completion_tokens", 50}, {"total_tokens", 70},
                                                    {"completion_tokens_details", QJsonObject{{"reasoning_tokens", 40}}}}),
            frame());
        const QJsonArray output = outputOf(got);
        QCOMPARE(output.size(), 2);
        QCOMPARE(output.at(0).toObject(),
                 (QJsonObject{{"id", "rs_test_0"}, {"type", "reasoning"}, {"status", "completed"},
                              {"summary", QJsonArray{QJsonObject{{"type", "summary_text"}, {"text", "Six times seven."}}}}}));
        QCOMPARE(output.at(1).toObject().value("id").toString(), QStringLiteral("msg_test_1"));
        QCOMPARE(got.value("usage").toObject().value("output_tokens_details").toObject(), (QJsonObject{{"reasoning_tokens", 40}}));
    }

    void contentAsParts()
    {
        const QJsonObject message{{"role", "assistant"},
                                  {"content", QJsonArray{QJsonObject{{"type", "text"}, {"text", "你好"}}, QJsonObject{{"type", "text"}, {"text", "世界"}}}}};
        const QJsonObject got = ResponsesAnswer::fromChatCompletion(completion(message, "stop"), frame());
        QCOMPARE(outputOf(got).at(0).toObject().value("content").toArray().at(0).toObject().value("text").toString(), QStringLiteral("你好世界"));
    }

    void refusal()
    {
        const QJsonObject message{{"role", "assistant"}, {"content", QJsonValue::Null}, {"refusal", "I can't help with that."}};
        const QJsonObject got = ResponsesAnswer::fromChatCompletion(completion(message, "stop"), frame());
        QCOMPARE(got.value("status").toString(), QStringLiteral("completed"));
        QCOMPARE(outputOf(got).at(0).toObject().value("content").toArray(),
                 (QJsonArray{QJsonObject{{"type", "refusal"}, {"refusal", "I can't help with that."}}}));
    }

    void cutShortIsIncomplete_data()
    {
        QTest::addColumn<QString>("finishReason");
        QTest::addColumn<QString>("reason");
        QTest::newRow("length") << "length" << "max_output_tokens";
        QTest::newRow("content_filter") << "content_filter" << "content_filter";
    }
    void cutShortIsIncomplete()
    {
        QFETCH(QString, finishReason);
        QFETCH(QString, reason);
        QJsonObject message = assistant("The answer is");
        message.insert("reasoning_content", "Think.");
        const QJsonObject got = ResponsesAnswer::fromChatCompletion(completion(message, finishReason, usage(5, 16, 21)), frame());
        QCOMPARE(got.value("status").toString(), QStringLiteral("incomplete"));
        QCOMPARE(got.value("incomplete_details").toObject(), (QJsonObject{{"reason", reason}}));
        // The last item is the one the limit cut.
        QCOMPARE(outputOf(got).at(0).toObject().value("status").toString(), QStringLiteral("completed"));
        QCOMPARE(outputOf(got).at(1).toObject().value("status").toString(), QStringLiteral("incomplete"));

        const QJsonObject empty = ResponsesAnswer::fromChatCompletion(completion(assistant(""), finishReason), frame());
        QCOMPARE(empty.value("status").toString(), QStringLiteral("incomplete"));
        QCOMPARE(outputOf(empty), QJsonArray());
    }

    void customToolCalls()
    {
        ResponseFrame f = frame();
        f.customTools = {"apply_patch", "raw"};
        const QString patch = "*** Begin Patch\n+dòng mới\n*** End Patch";
        const QString arguments = QString::fromUtf8(QJsonDocument(QJsonObject{{"input", patch}}).toJson(QJsonDocument::Compact));
        QJsonObject message{{"role", "assistant"}, {"content", QJsonValue::Null},
                            {"tool_calls", QJsonArray{toolCall("call_p", "apply_patch", arguments), toolCall("call_r", "raw", "not json"),
                                                      toolCall("call_f", "shell", "{\"cmd\":\"ls\"}")}}};
        const QJsonArray output = outputOf(ResponsesAnswer::fromChatCompletion(completion(message, "tool_calls"), f));
        QCOMPARE(output.at(0).toObject(),
                 (QJsonObject{{"id", "ctc_test_0"}, {"type", "custom_tool_call"}, {"status", "completed"}, {"call_id", "call_p"},
                              {"name", "apply_patch"}, {"input", patch}}));
        // Arguments that are not {"input": "..."} reach the tool as they came.
        QCOMPARE(output.at(1).toObject().value("input").toString(), QStringLiteral("not json"));
        QCOMPARE(output.at(2).toObject().value("type").toString(), QStringLiteral("function_call"));
    }

    void callIds()
    {
        // A call without an id gets one; a second call with the same id is told apart.
        QJsonObject message{{"role", "assistant"},
                            {"tool_calls", QJsonArray{toolCall(QString(), "a", "{}"), toolCall("call_x", "b", "{}"), toolCall("call_x", "c", "{}")}}};
        const QJsonArray output = outputOf(ResponsesAnswer::fromChatCompletion(completion(message, "tool_calls"), frame("resp_ids")));
        QCOMPARE(output.at(0).toObject().value("call_id").toString(), QStringLiteral("call_ids_0"));
        QCOMPARE(output.at(1).toObject().value("call_id").toString(), QStringLiteral("call_x"));
        QCOMPARE(output.at(2).toObject().value("call_id").toString(), QStringLiteral("call_x_2"));
    }

    void legacyFunctionCall()
    {
        const QJsonObject message{{"role", "assistant"}, {"function_call", QJsonObject{{"name", "lookup"}, {"arguments", "{\"q\":1}"}}}};
        const QJsonArray output = outputOf(ResponsesAnswer::fromChatCompletion(completion(message, "function_call"), frame()));
        QCOMPARE(output.size(), 1);
        QCOMPARE(output.at(0).toObject().value("name").toString(), QStringLiteral("lookup"));
        QCOMPARE(output.at(0).toObject().value("arguments").toString(), QStringLiteral("{\"q\":1}"));
    }

    void usageMapping_data()
    {
        QTest::addColumn<QJsonObject>("chat");
        QTest::addColumn<QJsonObject>("expected");
        const auto responses = [](int in, int cached, int out, int reasoning, int total) {
            return QJsonObject{{"input_tokens", in}, {"input_tokens_details", QJsonObject{{"cached_tokens", cached}, {"cache_write_tokens", 0}}},
                               {"output_tokens", out}, {"output_tokens_details", QJsonObject{{"reasoning_tokens", reasoning}}},
                               {"total_tokens", total}};
        };
        QTest::newRow("plain") << usage(12, 5, 17) << responses(12, 0, 5, 0, 17);
        QTest::newRow("openai cached and reasoning")
            << QJsonObject{{"prompt_tokens", 2006}, {"completion_tokens", 300}, {"total_tokens", 2306},
                           {"prompt_tokens_details", QJsonObject{{"cached_tokens", 1920}}},
                           {"completion_tokens_details", QJsonObject{{"reasoning_tokens", 256}}}}
            << responses(2006, 1920, 300, 256, 2306);
        QTest::newRow("deepseek cache hit")
            << QJsonObject{{"prompt_tokens", 100}, {"completion_tokens", 10}, {"total_tokens", 110}, {"prompt_cache_hit_tokens", 64},
                           {"prompt_cache_miss_tokens", 36}}
            << responses(100, 64, 10, 0, 110);
        QTest::newRow("no total") << QJsonObject{{"prompt_tokens", 7}, {"completion_tokens", 3}} << responses(7, 0, 3, 0, 10);
        QTest::newRow("cached above prompt") << QJsonObject{{"prompt_tokens", 7}, {"completion_tokens", 3}, {"total_tokens", 10},
                                                            {"prompt_tokens_details", QJsonObject{{"cached_tokens", 9}}}}
                                             << responses(7, 7, 3, 0, 10);
        QTest::newRow("empty") << QJsonObject() << responses(0, 0, 0, 0, 0);
    }
    void usageMapping()
    {
        QFETCH(QJsonObject, chat);
        QFETCH(QJsonObject, expected);
        QCOMPARE(ResponsesAnswer::usage(chat), expected);
    }

    void echoNeverOverridesTheResponsesOwnMembers()
    {
        ResponseFrame f = frame();
        f.echo = QJsonObject{{"id", "resp_forged"}, {"model", "other"}, {"status", "failed"}, {"output", QJsonArray{1}}, {"usage", 5},
                             {"created_at", 1}, {"service_tier", "auto"}, {"tool_choice", "required"}};
        const QJsonObject got = ResponsesAnswer::fromChatCompletion(completion(assistant("hi"), "stop", usage(1, 1, 2)), f);
        QCOMPARE(got.value("id").toString(), QStringLiteral("resp_test"));
        QCOMPARE(got.value("model").toString(), QStringLiteral("gpt-test")); // never the upstream's either
        QCOMPARE(got.value("status").toString(), QStringLiteral("completed"));
        QCOMPARE(got.value("created_at").toInteger(), 1741476542);
        QCOMPARE(outputOf(got).size(), 1);
        QCOMPARE(got.value("usage").toObject().value("total_tokens").toInt(), 2);
        // Parameters this door does not know are repeated as given.
        QCOMPARE(got.value("service_tier").toString(), QStringLiteral("auto"));
        QCOMPARE(got.value("tool_choice").toString(), QStringLiteral("required"));
    }

    void defaultsForARequestWithoutParameters()
    {
        // The required members, with the values OpenAI reports for a request that set none.
        const QJsonObject got = ResponsesAnswer::fromChatCompletion(completion(assistant("hi"), "stop"), frame());
        const QJsonObject reference = test::responsesFixtureObject("response.json");
        for (const char *key : {"error", "incomplete_details", "instructions", "max_output_tokens", "parallel_tool_calls",
                                "previous_response_id", "reasoning", "store", "temperature", "text", "tool_choice", "tools", "top_p",
                                "truncation", "user", "metadata"})
            QCOMPARE(got.value(key), reference.value(key));
        QCOMPARE(got.value("object").toString(), QStringLiteral("response"));
    }

    void writtenInTheReferencesMemberOrder()
    {
        ResponseFrame f = frame();
        f.echo = QJsonObject{{"service_tier", "auto"}, {"temperature", 0.5}};
        const QByteArray json = ResponsesAnswer::write(completion(assistant("hi"), "stop", usage(1, 1, 2)), f);
        QCOMPARE(QJsonDocument::fromJson(json).object(), ResponsesAnswer::fromChatCompletion(completion(assistant("hi"), "stop", usage(1, 1, 2)), f));
        const auto keysOf = [](const QByteArray &text) {
            JsonObjectScan scan;
            QStringList keys;
            if (scan.scan(text))
                for (const JsonObjectScan::Member &member : scan.members())
                    keys.append(QString::fromUtf8(member.key.data(), member.key.size()));
            return keys;
        };
        QStringList written = keysOf(json);
        QCOMPARE(written.takeLast(), QStringLiteral("service_tier")); // what the reference does not list goes last
        QStringList reference = keysOf(test::readResponsesFixture("response.json"));
        reference.removeAll(QStringLiteral("completed_at"));
        QCOMPARE(written, reference);
        QVERIFY(json.contains("\"temperature\":0.5"));
    }

    void otherChoicesAreLeftOut()
    {
        QJsonObject c = completion(assistant("first"), "stop");
        QJsonArray choices = c.value("choices").toArray();
        choices.append(QJsonObject{{"index", 1}, {"message", assistant("second")}, {"finish_reason", "stop"}});
        c.insert("choices", choices);
        const QJsonArray output = outputOf(ResponsesAnswer::fromChatCompletion(c, frame()));
        QCOMPARE(output.size(), 1);
        QCOMPARE(output.at(0).toObject().value("content").toArray().at(0).toObject().value("text").toString(), QStringLiteral("first"));
    }
};

QTEST_GUILESS_MAIN(tst_ResponsesAnswer)
#include "tst_ResponsesAnswer.moc"
