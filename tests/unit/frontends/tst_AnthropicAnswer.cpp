#include "frontends/anthropic_messages/AnthropicAnswer.h"
#include "providers/anthropic/AnthropicAdapter.h"

#include "AnthropicWire.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace sb;

// A buffered OpenAI chat.completion as Anthropic's "message": the reference responses of
// Anthropic's pages come back unchanged through the anthropic upstream dialect and this front
// door, and every finish_reason, tool call, reasoning and usage field lands where Anthropic puts it.

namespace {

QJsonObject completion(const QJsonObject &message, const QJsonValue &finishReason, const QJsonObject &usage = {},
                       const QJsonObject &choiceExtra = {})
{
    QJsonObject choice{{"index", 0}, {"message", message}, {"finish_reason", finishReason}};
    for (auto it = choiceExtra.constBegin(); it != choiceExtra.constEnd(); ++it)
        choice.insert(it.key(), it.value());
    QJsonObject out{{"id", "chatcmpl-1"}, {"object", "chat.completion"}, {"created", 1718000000}, {"model", "gpt-4o"},
                    {"choices", QJsonArray{choice}}};
    if (!usage.isEmpty())
        out.insert("usage", usage);
    return out;
}

QJsonObject answer(const QJsonObject &completion, const QStringList &stops = {})
{
    return QJsonDocument::fromJson(AnthropicAnswer::fromChatCompletion(completion, "claude-x", "msg_test", stops)).object();
}

QJsonObject assistant(const QString &text) { return QJsonObject{{"role", "assistant"}, {"content", text}}; }

} // namespace

class tst_AnthropicAnswer : public QObject {
    Q_OBJECT
private slots:
    void referenceMessagesRoundTrip_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::newRow("text") << "message.json";
        QTest::newRow("tool_use") << "message_tool_use.json";
        QTest::newRow("prompt cache read and written") << "message_cached.json";
    }
    void referenceMessagesRoundTrip()
    {
        // Anthropic's answer → OpenAI (the anthropic upstream dialect) → Anthropic (this front door).
        QFETCH(QString, fixture);
        const QByteArray body = test::readAnthropicFixture(fixture);
        const QJsonObject reference = QJsonDocument::fromJson(body).object();
        QVERIFY(!reference.isEmpty());
        TokenUsage usage;
        const QJsonObject openAi = AnthropicAdapter().chatResponse(body, &usage);
        const QJsonObject back = QJsonDocument::fromJson(
            AnthropicAnswer::fromChatCompletion(openAi, reference.value("model").toString(), reference.value("id").toString())).object();
        QCOMPARE(back, reference);
    }

    void shapeOfAMessage()
    {
        const QJsonObject message = answer(completion(assistant("Xin chào! 你好"), "stop", {{"prompt_tokens", 12}, {"completion_tokens", 5}}));
        QCOMPARE(message.keys(), test::anthropicFixtureObject("message.json").keys());
        QCOMPARE(message.value("id").toString(), QStringLiteral("msg_test"));
        QCOMPARE(message.value("type").toString(), QStringLiteral("message"));
        QCOMPARE(message.value("role").toString(), QStringLiteral("assistant"));
        QCOMPARE(message.value("model").toString(), QStringLiteral("claude-x"));
        QCOMPARE(message.value("content").toArray(), (QJsonArray{QJsonObject{{"type", "text"}, {"text", "Xin chào! 你好"}}}));
        QCOMPARE(message.value("stop_reason").toString(), QStringLiteral("end_turn"));
        QVERIFY(message.value("stop_sequence").isNull());
        QCOMPARE(message.value("usage").toObject(), (QJsonObject{{"input_tokens", 12}, {"output_tokens", 5}}));
    }

    void reasoningComesFirstAsThinking()
    {
        QJsonObject message = assistant("12,231");
        message.insert("reasoning_content", "27 * 453 = 12231");
        message.insert("tool_calls", QJsonArray{QJsonObject{{"id", "call_1"}, {"type", "function"},
                                                            {"function", QJsonObject{{"name", "calc"}, {"arguments", R"({"x": 1})"}}}}});
        const QJsonArray content = answer(completion(message, "tool_calls")).value("content").toArray();
        QCOMPARE(content.size(), 3);
        QCOMPARE(content.at(0).toObject(), (QJsonObject{{"type", "thinking"}, {"thinking", "27 * 453 = 12231"}, {"signature", ""}}));
        QCOMPARE(content.at(1).toObject(), (QJsonObject{{"type", "text"}, {"text", "12,231"}}));
        QCOMPARE(content.at(2).toObject(),
                 (QJsonObject{{"type", "tool_use"}, {"id", "call_1"}, {"name", "calc"}, {"input", QJsonObject{{"x", 1}}}}));

        QJsonObject openRouter = assistant("ok");
        openRouter.insert("reasoning", "thought");
        QCOMPARE(answer(completion(openRouter, "stop")).value("content").toArray().at(0).toObject().value("thinking").toString(),
                 QStringLiteral("thought"));
    }

    void parallelToolCalls()
    {
        QJsonObject message{{"role", "assistant"}, {"content", QJsonValue::Null}};
        message.insert("tool_calls",
                       QJsonArray{QJsonObject{{"id", "call_a"}, {"type", "function"},
                                              {"function", QJsonObject{{"name", "get_weather"}, {"arguments", R"({"location":"Hà Nội"})"}}}},
                                  QJsonObject{{"type", "function"},
                                              {"function", QJsonObject{{"name", "get_weather"}, {"arguments", "not json"}}}},
                                  QJsonObject{{"id", "call_c"}, {"type", "function"},
                                              {"function", QJsonObject{{"name", "now"}, {"arguments", ""}}}}});
        const QJsonObject out = answer(completion(message, "tool_calls"));
        const QJsonArray content = out.value("content").toArray();
        QCOMPARE(content.size(), 3);
        QCOMPARE(content.at(0).toObject().value("input").toObject(), (QJsonObject{{"location", "Hà Nội"}}));
        // A call without an id still needs one the client can answer with tool_result.
        QCOMPARE(content.at(1).toObject().value("id").toString(), QStringLiteral("toolu_msg_test_1"));
        QCOMPARE(content.at(1).toObject().value("input").toObject(), QJsonObject());
        QCOMPARE(content.at(2).toObject().value("input").toObject(), QJsonObject());
        QCOMPARE(out.value("stop_reason").toString(), QStringLiteral("tool_use"));
    }

    void legacyFunctionCall()
    {
        QJsonObject message{{"role", "assistant"}, {"content", QJsonValue::Null},
                            {"function_call", QJsonObject{{"name", "f"}, {"arguments", R"({"a":true})"}}}};
        const QJsonObject out = answer(completion(message, "function_call"));
        QCOMPARE(out.value("content").toArray().at(0).toObject(),
                 (QJsonObject{{"type", "tool_use"}, {"id", "toolu_msg_test_0"}, {"name", "f"}, {"input", QJsonObject{{"a", true}}}}));
        QCOMPARE(out.value("stop_reason").toString(), QStringLiteral("tool_use"));
    }

    void stopReasons_data()
    {
        QTest::addColumn<QJsonValue>("finishReason");
        QTest::addColumn<bool>("withToolCall");
        QTest::addColumn<QString>("stopReason");
        QTest::newRow("stop") << QJsonValue("stop") << false << "end_turn";
        QTest::newRow("length") << QJsonValue("length") << false << "max_tokens";
        QTest::newRow("tool_calls") << QJsonValue("tool_calls") << true << "tool_use";
        QTest::newRow("function_call") << QJsonValue("function_call") << true << "tool_use";
        QTest::newRow("content_filter") << QJsonValue("content_filter") << false << "refusal";
        QTest::newRow("null") << QJsonValue(QJsonValue::Null) << false << "end_turn";
        QTest::newRow("unknown") << QJsonValue("insufficient_system_resource") << false << "end_turn";
        // Some OpenAI-compatible servers finish a tool call with "stop"; the client must still run it.
        QTest::newRow("stop with a tool call") << QJsonValue("stop") << true << "tool_use";
        QTest::newRow("length with a tool call") << QJsonValue("length") << true << "max_tokens";
    }
    void stopReasons()
    {
        QFETCH(QJsonValue, finishReason);
        QFETCH(bool, withToolCall);
        QFETCH(QString, stopReason);
        QJsonObject message = assistant("x");
        if (withToolCall)
            message.insert("tool_calls", QJsonArray{QJsonObject{{"id", "c"}, {"type", "function"},
                                                                {"function", QJsonObject{{"name", "f"}, {"arguments", "{}"}}}}});
        const QJsonObject out = answer(completion(message, finishReason));
        QCOMPARE(out.value("stop_reason").toString(), stopReason);
        QVERIFY(out.value("stop_sequence").isNull());
        QCOMPARE(AnthropicAnswer::stopReason(finishReason.toString(), withToolCall), stopReason);
    }

    void stopReasonsBothWays()
    {
        // Through the anthropic upstream dialect and back, each reason keeps its meaning.
        for (const char *reason : {"end_turn", "max_tokens", "tool_use", "refusal"}) {
            const QString r = QLatin1String(reason);
            QCOMPARE(AnthropicAnswer::stopReason(AnthropicAdapter::finishReason(r), r == QLatin1String("tool_use")), r);
        }
        for (const char *finish : {"stop", "length", "tool_calls", "content_filter"}) {
            const QString f = QLatin1String(finish);
            QCOMPARE(AnthropicAdapter::finishReason(AnthropicAnswer::stopReason(f, f == QLatin1String("tool_calls"))), f);
        }
        // stop_sequence has no OpenAI word of its own: it is a "stop".
        QCOMPARE(AnthropicAdapter::finishReason("stop_sequence"), QStringLiteral("stop"));
    }

    void stopSequence_data()
    {
        QTest::addColumn<QJsonObject>("choiceExtra");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QStringList>("stops");
        QTest::addColumn<QJsonValue>("expected"); // stop_sequence; null means end_turn
        QTest::newRow("vLLM names it") << QJsonObject{{"stop_reason", "END"}} << "All done" << QStringList{"END", "STOP"} << QJsonValue("END");
        QTest::newRow("SGLang names it") << QJsonObject{{"matched_stop", "STOP"}} << "All done" << QStringList{"END", "STOP"} << QJsonValue("STOP");
        QTest::newRow("kept in the text") << QJsonObject() << "All done\n\nHuman:" << QStringList{"\n\nHuman:"} << QJsonValue("\n\nHuman:");
        QTest::newRow("vLLM token id") << QJsonObject{{"stop_reason", 128009}} << "All done" << QStringList{"END"} << QJsonValue(QJsonValue::Null);
        QTest::newRow("not one of the request's") << QJsonObject{{"stop_reason", "OTHER"}} << "All done" << QStringList{"END"} << QJsonValue(QJsonValue::Null);
        QTest::newRow("no stop sequences asked") << QJsonObject{{"stop_reason", "END"}} << "END" << QStringList() << QJsonValue(QJsonValue::Null);
        QTest::newRow("plain OpenAI cannot tell") << QJsonObject() << "All done" << QStringList{"END"} << QJsonValue(QJsonValue::Null);
    }
    void stopSequence()
    {
        QFETCH(QJsonObject, choiceExtra);
        QFETCH(QString, text);
        QFETCH(QStringList, stops);
        QFETCH(QJsonValue, expected);
        const QJsonObject out = answer(completion(assistant(text), "stop", {}, choiceExtra), stops);
        QCOMPARE(out.value("stop_sequence"), expected);
        QCOMPARE(out.value("stop_reason").toString(), expected.isNull() ? QStringLiteral("end_turn") : QStringLiteral("stop_sequence"));
    }

    void cachedPromptTokens()
    {
        const QJsonObject openAi{{"prompt_tokens", 120}, {"completion_tokens", 48}, {"total_tokens", 168},
                                 {"prompt_tokens_details", QJsonObject{{"cached_tokens", 100}}}};
        QCOMPARE(AnthropicAnswer::usage(openAi),
                 (QJsonObject{{"input_tokens", 20}, {"cache_creation_input_tokens", 0}, {"cache_read_input_tokens", 100}, {"output_tokens", 48}}));
        const QJsonObject deepSeek{{"prompt_tokens", 50}, {"completion_tokens", 2}, {"prompt_cache_hit_tokens", 32}, {"prompt_cache_miss_tokens", 18}};
        QCOMPARE(AnthropicAnswer::usage(deepSeek),
                 (QJsonObject{{"input_tokens", 18}, {"cache_creation_input_tokens", 0}, {"cache_read_input_tokens", 32}, {"output_tokens", 2}}));
        // Cache writes (an Anthropic upstream's cache_creation_input_tokens, carried through the
        // engine as OpenRouter names them) leave input_tokens too.
        const QJsonObject written{{"prompt_tokens", 2030}, {"completion_tokens", 8},
                                  {"prompt_tokens_details", QJsonObject{{"cached_tokens", 1500}, {"cache_write_tokens", 500}}}};
        QCOMPARE(AnthropicAnswer::usage(written),
                 (QJsonObject{{"input_tokens", 30}, {"cache_creation_input_tokens", 500}, {"cache_read_input_tokens", 1500}, {"output_tokens", 8}}));
        // No cache details: no cache fields, as Anthropic's own reference answer has none.
        QCOMPARE(AnthropicAnswer::usage(QJsonObject{{"prompt_tokens", 7}, {"completion_tokens", 3}}),
                 (QJsonObject{{"input_tokens", 7}, {"output_tokens", 3}}));
        QCOMPARE(AnthropicAnswer::usage(QJsonObject()), (QJsonObject{{"input_tokens", 0}, {"output_tokens", 0}}));
        // A cached count above the prompt (a provider's bug) never makes input_tokens negative.
        QCOMPARE(AnthropicAnswer::usage(QJsonObject{{"prompt_tokens", 5}, {"prompt_tokens_details", QJsonObject{{"cached_tokens", 9}}}})
                     .value("input_tokens").toInt(-1),
                 0);
        const QJsonObject out = answer(completion(assistant("hi"), "stop", openAi));
        QCOMPARE(out.value("usage").toObject().value("cache_read_input_tokens").toInt(), 100);
    }

    void refusalAndContentParts()
    {
        const QJsonObject refused = answer(completion(QJsonObject{{"role", "assistant"}, {"content", QJsonValue::Null},
                                                                  {"refusal", "I can't help with that."}},
                                                      "stop"));
        QCOMPARE(refused.value("stop_reason").toString(), QStringLiteral("refusal"));
        QCOMPARE(refused.value("content").toArray().at(0).toObject().value("text").toString(), QStringLiteral("I can't help with that."));

        const QJsonObject parts = answer(completion(
            QJsonObject{{"role", "assistant"}, {"content", QJsonArray{QJsonObject{{"type", "text"}, {"text", "Việt "}},
                                                                      QJsonObject{{"type", "text"}, {"text", "Nam"}}}}},
            "stop"));
        QCOMPARE(parts.value("content").toArray(), (QJsonArray{QJsonObject{{"type", "text"}, {"text", "Việt Nam"}}}));

        // Nothing said at all: an empty content list, as Anthropic sends one.
        const QJsonObject empty = answer(completion(QJsonObject{{"role", "assistant"}, {"content", ""}}, "stop"));
        QCOMPARE(empty.value("content").toArray(), QJsonArray());
        QCOMPARE(answer(QJsonObject()).value("stop_reason").toString(), QStringLiteral("end_turn"));
    }
};

QTEST_GUILESS_MAIN(tst_AnthropicAnswer)
#include "tst_AnthropicAnswer.moc"
