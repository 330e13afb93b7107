#include "frontends/openai_responses/ResponsesRequest.h"

#include "JsonMutation.h"
#include "TestPaths.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QtTest>

using namespace sb;

// The Responses front door's request checks and its translation into the engine's chat.completions
// body, on OpenAI's reference requests and a Codex-shaped one (tests/fixtures/openai_responses/,
// each with the chat body it must become under expected/), and on one broken field at a time.
// Bodies are built as QJsonObjects or read from the fixtures: no raw string literals (moc misreads
// a "//" inside one).

namespace {

QByteArray fixture(const QString &name)
{
    QFile file(test::sourcePath(QStringLiteral("tests/fixtures/openai_responses/") + name));
    if (!file.open(QIODevice::ReadOnly))
        return QByteArray();
    return file.readAll();
}

QJsonObject fixtureObject(const QString &name) { return QJsonDocument::fromJson(fixture(name)).object(); }

QByteArray json(const QJsonObject &object) { return QJsonDocument(object).toJson(QJsonDocument::Compact); }
QByteArray json(const QJsonValue &value) { return QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact); }

ResponsesRequest parseOk(const QByteArray &body)
{
    ApiError error;
    const std::optional<ResponsesRequest> request = ResponsesRequest::parse(body, &error);
    if (!request)
        qWarning("unexpected rejection: %s (param %s)", qPrintable(error.message), qPrintable(error.param));
    return request.value_or(ResponsesRequest());
}

// A small valid request with `patch` applied member by member, and `remove` taken out.
QByteArray patched(const QJsonObject &patch, const QStringList &remove = {})
{
    QJsonObject body{{"model", "gpt-4o"}, {"input", "Hi"}};
    for (auto it = patch.constBegin(); it != patch.constEnd(); ++it)
        body.insert(it.key(), it.value());
    for (const QString &key : remove)
        body.remove(key);
    return json(body);
}

QByteArray withInput(const QJsonArray &input, const QJsonObject &more = {})
{
    QJsonObject patch = more;
    patch.insert("input", input);
    return patched(patch);
}

QJsonObject user(const QString &text) { return QJsonObject{{"role", "user"}, {"content", text}}; }
QJsonObject chat(const char *role, const QJsonValue &content) { return QJsonObject{{"role", role}, {"content", content}}; }
QJsonObject functionCall(const char *callId, const char *name, const char *arguments)
{
    return QJsonObject{{"type", "function_call"}, {"call_id", callId}, {"name", name}, {"arguments", arguments}};
}
QJsonObject callOutput(const char *callId, const QJsonValue &output)
{
    return QJsonObject{{"type", "function_call_output"}, {"call_id", callId}, {"output", output}};
}
QJsonObject chatCall(const char *id, const char *name, const QString &arguments)
{
    return QJsonObject{{"id", id}, {"type", "function"}, {"function", QJsonObject{{"name", name}, {"arguments", arguments}}}};
}
QJsonObject toolMessage(const char *callId, const QString &content)
{
    return QJsonObject{{"role", "tool"}, {"tool_call_id", callId}, {"content", content}};
}
QJsonObject weatherTool()
{
    return QJsonObject{{"type", "function"}, {"name", "get_weather"}, {"parameters", QJsonObject{{"type", "object"}}}};
}

QJsonArray messagesOf(const ResponsesRequest &request) { return request.chatBody().value("messages").toArray(); }

// Every node of `value` replaced in turn by each value of a wrong type, and the whole document
// handed to `visit`: a body a careless or hostile client could send.
void eachWrongTypedVariant(const QJsonValue &value, const std::function<void(const QJsonValue &)> &visit)
{
    static const QJsonValue wrong[] = {QJsonValue(QJsonValue::Null), QJsonValue(7), QJsonValue(-1.5), QJsonValue("x"),
                                       QJsonValue(true), QJsonValue(QJsonArray()), QJsonValue(QJsonObject()),
                                       QJsonValue(QJsonArray{QJsonObject()})};
    for (const QJsonValue &w : wrong)
        visit(w);
    if (value.isObject()) {
        const QJsonObject object = value.toObject();
        for (auto it = object.constBegin(); it != object.constEnd(); ++it) {
            eachWrongTypedVariant(it.value(), [&](const QJsonValue &replacement) {
                QJsonObject changed = object;
                changed.insert(it.key(), replacement);
                visit(changed);
            });
            QJsonObject without = object;
            without.remove(it.key());
            visit(without);
        }
    } else if (value.isArray()) {
        const QJsonArray array = value.toArray();
        for (qsizetype i = 0; i < array.size(); ++i)
            eachWrongTypedVariant(array.at(i), [&](const QJsonValue &replacement) {
                QJsonArray changed = array;
                changed.replace(i, replacement);
                visit(changed);
            });
    }
}

const char *const kFixtures[] = {"request_text.json",      "request_image.json",      "request_file_data.json",
                                 "request_streaming.json", "request_functions.json",  "request_function_output.json",
                                 "request_json_schema.json", "request_reasoning.json", "request_custom_tool.json",
                                 "request_codex.json"};

} // namespace

class tst_ResponsesRequest : public QObject {
    Q_OBJECT
private slots:
    void referenceRequests_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QStringList>("dropped");
        QTest::newRow("text input") << "request_text.json" << QStringList();
        QTest::newRow("image input") << "request_image.json" << QStringList();
        QTest::newRow("file data") << "request_file_data.json" << QStringList();
        QTest::newRow("streaming") << "request_streaming.json" << QStringList();
        QTest::newRow("functions") << "request_functions.json" << QStringList();
        QTest::newRow("function output") << "request_function_output.json" << QStringList();
        QTest::newRow("json schema") << "request_json_schema.json" << QStringList();
        QTest::newRow("reasoning") << "request_reasoning.json" << QStringList();
        QTest::newRow("custom tool") << "request_custom_tool.json" << QStringList{"reasoning items"};
        QTest::newRow("codex") << "request_codex.json"
                               << QStringList{"custom tool grammars (shown to the model as a description)", "reasoning.summary",
                                              "include", "prompt_cache_key", "text.verbosity", "reasoning items"};
    }
    void referenceRequests()
    {
        QFETCH(QString, name);
        QFETCH(QStringList, dropped);
        const QByteArray body = fixture(name);
        QVERIFY2(!body.isEmpty(), qPrintable(name));
        const ResponsesRequest request = parseOk(body);
        const QJsonObject expected = fixtureObject(QStringLiteral("expected/") + name);
        QVERIFY(!expected.isEmpty());
        const QJsonObject out = request.chatBody();
        QVERIFY2(out == expected, qPrintable(QStringLiteral("\n got: %1\nwant: %2").arg(QString::fromUtf8(json(out)), QString::fromUtf8(json(expected)))));
        QCOMPARE(request.dropped, dropped);
        QCOMPARE(request.original, body);
        QCOMPARE(request.estimatedPromptTokens, int(body.size() / 4 + 1));
        QCOMPARE(request.model, fixtureObject(name).value("model").toString());
    }

    void codexRequestFacts()
    {
        const ResponsesRequest request = parseOk(fixture("request_codex.json"));
        QVERIFY(request.stream);
        QVERIFY(!request.store);
        QCOMPARE(request.customTools, QSet<QString>{"apply_patch"});
        QCOMPARE(request.instructions, QStringLiteral("You are a coding agent running in a terminal. You and the user share one workspace."));
        QCOMPARE(request.input, fixtureObject("request_codex.json").value("input").toArray());
        QCOMPARE(request.echo.value("reasoning").toObject(), (QJsonObject{{"effort", "medium"}, {"summary", "auto"}}));
        QCOMPARE(request.echo.value("text").toObject(), (QJsonObject{{"verbosity", "low"}, {"format", QJsonObject{{"type", "text"}}}}));
        QCOMPARE(request.echo.value("store"), QJsonValue(false));
        QCOMPARE(request.echo.value("tools").toArray(), fixtureObject("request_codex.json").value("tools").toArray());
    }

    void referenceRefusals_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("param");
        QTest::addColumn<QString>("says");
        QTest::newRow("web search") << "request_web_search.json" << "tools[0].type" << "The built-in tool 'web_search_preview' runs on OpenAI's own servers";
        QTest::newRow("file by url") << "request_file_url.json" << "input[0].content[1].file_url" << "instead of 'file_url'";
    }
    void referenceRefusals()
    {
        QFETCH(QString, name);
        QFETCH(QString, param);
        QFETCH(QString, says);
        ApiError error;
        error.status = 0;
        QVERIFY(!ResponsesRequest::parse(fixture(name), &error));
        QCOMPARE(error.status, 400);
        QCOMPARE(error.type, QStringLiteral("invalid_request_error"));
        QCOMPARE(error.param, param);
        QVERIFY2(error.message.contains(says), qPrintable(error.message));
    }

    void stringInputAndEchoDefaults()
    {
        const ResponsesRequest request = parseOk(patched({}));
        QCOMPARE(request.input, (QJsonArray{QJsonObject{{"type", "message"}, {"role", "user"},
                                                        {"content", QJsonArray{QJsonObject{{"type", "input_text"}, {"text", "Hi"}}}}}}));
        const QJsonValue null(QJsonValue::Null);
        QCOMPARE(request.echo, (QJsonObject{{"instructions", null}, {"tools", QJsonArray()}, {"tool_choice", "auto"},
                                            {"parallel_tool_calls", true}, {"max_output_tokens", null}, {"temperature", 1},
                                            {"top_p", 1}, {"text", QJsonObject{{"format", QJsonObject{{"type", "text"}}}}},
                                            {"reasoning", QJsonObject{{"effort", null}, {"summary", null}}}, {"metadata", QJsonObject()},
                                            {"user", null}, {"truncation", "disabled"}, {"store", true}, {"previous_response_id", null}}));
        QVERIFY(request.store);
        QVERIFY(!request.stream);
        QVERIFY(request.previousResponseId.isEmpty());
        QCOMPARE(request.maxOutputTokens, 0);
        QVERIFY(request.dropped.isEmpty());
        // Defaults the client did not ask for are not sent up.
        QCOMPARE(request.chatBody(), (QJsonObject{{"model", "gpt-4o"}, {"messages", QJsonArray{user("Hi")}}}));
    }

    void echoRepeatsWhatWasGiven()
    {
        const QJsonObject given{{"instructions", "Be brief."},   {"tools", QJsonArray{weatherTool()}},
                                {"tool_choice", "required"},    {"parallel_tool_calls", false},
                                {"max_output_tokens", 300},     {"temperature", 0.2},
                                {"top_p", 0.9},                 {"user", "user-1234"},
                                {"metadata", QJsonObject{{"ticket", "T-9"}}}, {"truncation", "auto"},
                                {"store", false},               {"previous_response_id", "resp_123"},
                                {"text", QJsonObject{{"format", QJsonObject{{"type", "json_object"}}}}},
                                {"reasoning", QJsonObject{{"effort", "low"}}}};
        const ResponsesRequest request = parseOk(patched(given));
        for (auto it = given.constBegin(); it != given.constEnd(); ++it)
            if (it.key() != "reasoning")
                QCOMPARE(request.echo.value(it.key()), it.value());
        QCOMPARE(request.echo.value("reasoning").toObject(), (QJsonObject{{"effort", "low"}, {"summary", QJsonValue::Null}}));
        QCOMPARE(request.previousResponseId, QStringLiteral("resp_123"));
        QCOMPARE(request.maxOutputTokens, 300);

        const QJsonObject out = request.chatBody();
        QCOMPARE(out.value("max_tokens").toInt(), 300);
        QCOMPARE(out.value("temperature").toDouble(), 0.2);
        QCOMPARE(out.value("top_p").toDouble(), 0.9);
        QCOMPARE(out.value("user").toString(), QStringLiteral("user-1234"));
        QCOMPARE(out.value("tool_choice").toString(), QStringLiteral("required"));
        QCOMPARE(out.value("parallel_tool_calls"), QJsonValue(false));
        QCOMPARE(out.value("response_format").toObject(), (QJsonObject{{"type", "json_object"}}));
        QCOMPARE(out.value("reasoning_effort").toString(), QStringLiteral("low"));
        QVERIFY(!out.contains("metadata"));
        QCOMPARE(out.value("messages").toArray().first().toObject(), chat("system", "Be brief."));
        QCOMPARE(request.dropped, (QStringList{"metadata", "truncation"}));
    }

    void itemWithoutTypeIsAMessage()
    {
        const ResponsesRequest request = parseOk(withInput({QJsonObject{{"role", "developer"}, {"content", "Talk like a pirate."}}, user("Are semicolons optional?")}));
        QCOMPARE(request.input.at(0).toObject(), (QJsonObject{{"type", "message"}, {"role", "developer"}, {"content", "Talk like a pirate."}}));
        QCOMPARE(request.input.at(1).toObject().value("type").toString(), QStringLiteral("message"));
        // developer goes up as system: every dialect knows it, some OpenAI-compatible servers refuse developer.
        QCOMPARE(messagesOf(request), (QJsonArray{chat("system", "Talk like a pirate."), user("Are semicolons optional?")}));
    }

    void parallelCallsJoinTheAssistantMessage()
    {
        const QJsonObject reasoning{{"type", "reasoning"}, {"id", "rs_1"}, {"summary", QJsonArray()}, {"encrypted_content", "gAAA"}};
        const QJsonObject assistant{{"type", "message"}, {"role", "assistant"},
                                    {"content", QJsonArray{QJsonObject{{"type", "output_text"}, {"text", "Checking both."}},
                                                           QJsonObject{{"type", "refusal"}, {"refusal", "Not the third."}}}}};
        const ResponsesRequest request = parseOk(withInput(
            {user("Weather in Hanoi and Oslo?"), reasoning, assistant, functionCall("call_1", "get_weather", "{\"city\":\"Hà Nội\"}"), reasoning,
             functionCall("call_2", "get_weather", "{\"city\":\"Oslo\"}"), callOutput("call_1", "31°C"), callOutput("call_2", "-3°C"),
             QJsonObject{{"role", "assistant"}, {"content", "Hot and cold."}}, user("Thanks")},
            {{"tools", QJsonArray{weatherTool()}}}));
        QCOMPARE(messagesOf(request),
                 (QJsonArray{user("Weather in Hanoi and Oslo?"),
                             QJsonObject{{"role", "assistant"}, {"content", "Checking both.\nNot the third."},
                                         {"tool_calls", QJsonArray{chatCall("call_1", "get_weather", "{\"city\":\"Hà Nội\"}"),
                                                                   chatCall("call_2", "get_weather", "{\"city\":\"Oslo\"}")}}},
                             toolMessage("call_1", "31°C"), toolMessage("call_2", "-3°C"), chat("assistant", "Hot and cold."), user("Thanks")}));
        QCOMPARE(request.dropped, QStringList{"reasoning items"});
    }

    void customToolsBecomeFunctionsOfOneString()
    {
        const QJsonObject grammarTool{{"type", "custom"}, {"name", "math_exp"},
                                      {"format", QJsonObject{{"type", "grammar"}, {"syntax", "regex"}, {"definition", "^[0-9+* ]+$"}}}};
        const QJsonObject textTool{{"type", "custom"}, {"name", "code_exec"}, {"format", QJsonObject{{"type", "text"}}}};
        const ResponsesRequest request = parseOk(withInput(
            {user("Add 2 and 3, then run it."),
             QJsonObject{{"type", "custom_tool_call"}, {"call_id", "call_m"}, {"name", "math_exp"}, {"input", "2 + 3"}},
             QJsonObject{{"type", "custom_tool_call_output"}, {"call_id", "call_m"}, {"output", "5"}},
             // A custom tool's call kept as a function_call with its raw input.
             functionCall("call_c", "code_exec", "print(5)"), callOutput("call_c", "5")},
            {{"tools", QJsonArray{grammarTool, textTool, weatherTool()}}, {"tool_choice", QJsonObject{{"type", "custom"}, {"name", "math_exp"}}}}));
        QCOMPARE(request.customTools, (QSet<QString>{"math_exp", "code_exec"}));
        const QJsonObject out = request.chatBody();
        const QJsonArray tools = out.value("tools").toArray();
        QCOMPARE(tools.size(), 3);
        const QJsonObject math = tools.at(0).toObject().value("function").toObject();
        QCOMPARE(math.value("name").toString(), QStringLiteral("math_exp"));
        const QJsonObject parameters = math.value("parameters").toObject();
        QCOMPARE(parameters.value("required").toArray(), QJsonArray{"input"});
        QCOMPARE(parameters.value("additionalProperties"), QJsonValue(false));
        QCOMPARE(parameters.value("properties").toObject().value("input").toObject().value("description").toString(),
                 QStringLiteral("The tool's whole input, as plain text. It must match this regular expression:\n^[0-9+* ]+$"));
        QCOMPARE(out.value("tool_choice").toObject(), (QJsonObject{{"type", "function"}, {"function", QJsonObject{{"name", "math_exp"}}}}));
        const QJsonArray messages = out.value("messages").toArray();
        QCOMPARE(messages.at(1).toObject().value("tool_calls").toArray(), QJsonArray{chatCall("call_m", "math_exp", "{\"input\":\"2 + 3\"}")});
        QCOMPARE(messages.at(2).toObject(), toolMessage("call_m", "5"));
        QCOMPARE(messages.at(3).toObject().value("tool_calls").toArray(), QJsonArray{chatCall("call_c", "code_exec", "{\"input\":\"print(5)\"}")});
        QVERIFY(request.dropped.contains("custom tool grammars (shown to the model as a description)"));
    }

    void historyComesAfterInstructions()
    {
        // Turn one asked for the weather and the model called the tool; turn two answers the call.
        const QJsonArray history{QJsonObject{{"type", "message"}, {"role", "user"}, {"content", QJsonArray{QJsonObject{{"type", "input_text"}, {"text", "Weather?"}}}}},
                                 QJsonObject{{"type", "reasoning"}, {"id", "rs_1"}, {"summary", QJsonArray()}},
                                 QJsonObject{{"type", "message"}, {"id", "msg_1"}, {"role", "assistant"}, {"status", "completed"},
                                             {"content", QJsonArray{QJsonObject{{"type", "output_text"}, {"text", "Let me look."}, {"annotations", QJsonArray()}}}}},
                                 functionCall("call_1", "get_weather", "{}")};
        const ResponsesRequest request = parseOk(withInput({callOutput("call_1", "Sunny"), user("And tomorrow?")},
                                                           {{"instructions", "Be brief."}, {"previous_response_id", "resp_1"}, {"tools", QJsonArray{weatherTool()}}}));
        QCOMPARE(request.chatBody(history).value("messages").toArray(),
                 (QJsonArray{chat("system", "Be brief."), user("Weather?"),
                             QJsonObject{{"role", "assistant"}, {"content", "Let me look."}, {"tool_calls", QJsonArray{chatCall("call_1", "get_weather", "{}")}}},
                             toolMessage("call_1", "Sunny"), user("And tomorrow?")}));
        QCOMPARE(request.chatBody().value("messages").toArray().size(), 3);
    }

    void inputMayBeAbsentOnlyAfterAPreviousResponse()
    {
        const ResponsesRequest request = parseOk(patched({{"previous_response_id", "resp_1"}}, {"input"}));
        QVERIFY(request.input.isEmpty());
        QCOMPARE(request.chatBody(QJsonArray{user("Hi")}).value("messages").toArray(), QJsonArray{user("Hi")});
        ApiError error;
        QVERIFY(!ResponsesRequest::parse(patched({}, {"input"}), &error));
        QCOMPARE(error.param, QStringLiteral("input"));
        QCOMPARE(error.code, QStringLiteral("missing_required_parameter"));
        QVERIFY(!ResponsesRequest::parse(patched({{"input", QJsonArray()}}), &error));
        QCOMPARE(error.param, QStringLiteral("input"));
    }

    void storedItemsThatDoNotTranslateAreLeftOut()
    {
        const QJsonArray items{user("One"), QJsonValue(5), QJsonObject{{"type", "web_search_call"}, {"id", "ws_1"}},
                               QJsonObject{{"type", "function_call"}, {"name", "f"}}, QJsonObject{{"role", "assistant"}, {"content", "Two"}}};
        QCOMPARE(ResponsesRequest::chatMessages(items, {}), (QJsonArray{user("One"), chat("assistant", "Two")}));
    }

    void imagesAndFiles()
    {
        const QString png = "data:image/png;base64,iVBORw0KGgo=";
        const ResponsesRequest request = parseOk(withInput(
            {QJsonObject{{"role", "user"},
                         {"content", QJsonArray{QJsonObject{{"type", "input_image"}, {"image_url", png}, {"detail", "low"}},
                                                QJsonObject{{"type", "input_image"}, {"image_url", "https://example.com/a.jpg"}, {"detail", "original"}},
                                                QJsonObject{{"type", "input_file"}, {"file_data", "data:application/pdf;base64,JVBERi0="}},
                                                QJsonObject{{"type", "input_file"}, {"filename", "notes.txt"}, {"file_data", "data:text/plain;base64,aGk="}}}}},
             functionCall("call_1", "screenshot", "{}"),
             callOutput("call_1", QJsonArray{QJsonObject{{"type", "input_image"}, {"image_url", png}}}),
             functionCall("call_2", "read", "{}"),
             callOutput("call_2", QJsonArray{QJsonObject{{"type", "input_text"}, {"text", "page 1"}},
                                             QJsonObject{{"type", "input_file"}, {"filename", "p.pdf"}, {"file_data", "data:application/pdf;base64,JVBERi0="}}})}));
        const QJsonArray messages = messagesOf(request);
        QCOMPARE(messages.size(), 7);
        QCOMPARE(messages.at(0).toObject().value("content").toArray(),
                 (QJsonArray{QJsonObject{{"type", "image_url"}, {"image_url", QJsonObject{{"url", png}, {"detail", "low"}}}},
                             QJsonObject{{"type", "image_url"}, {"image_url", QJsonObject{{"url", "https://example.com/a.jpg"}, {"detail", "high"}}}},
                             QJsonObject{{"type", "file"}, {"file", QJsonObject{{"filename", "document.pdf"}, {"file_data", "data:application/pdf;base64,JVBERi0="}}}},
                             QJsonObject{{"type", "file"}, {"file", QJsonObject{{"filename", "notes.txt"}, {"file_data", "data:text/plain;base64,aGk="}}}}}));
        // Chat tool messages take text: the image rides in a user message right after the outputs.
        QCOMPARE(messages.at(2).toObject(), toolMessage("call_1", "(The tool's result is attached to the next user message.)"));
        QCOMPARE(messages.at(3).toObject(), chat("user", QJsonArray{QJsonObject{{"type", "image_url"}, {"image_url", QJsonObject{{"url", png}}}}}));
        QCOMPARE(messages.at(5).toObject(), toolMessage("call_2", "page 1"));
        QCOMPARE(messages.at(6).toObject().value("content").toArray().at(0).toObject().value("type").toString(), QStringLiteral("file"));
        QCOMPARE(request.dropped, QStringList{"image detail 'original' (sent as 'high')"});
    }

    void textFormats()
    {
        QVERIFY(!parseOk(patched({{"text", QJsonObject{{"format", QJsonObject{{"type", "text"}}}}}})).chatBody().contains("response_format"));
        const ResponsesRequest schema = parseOk(patched({{"text", QJsonObject{{"format", QJsonObject{
            {"type", "json_schema"}, {"name", "answer"}, {"description", "One word."}, {"schema", QJsonObject{{"type", "string"}}}}}}}}));
        QCOMPARE(schema.chatBody().value("response_format").toObject(),
                 (QJsonObject{{"type", "json_schema"}, {"json_schema", QJsonObject{{"name", "answer"}, {"description", "One word."}, {"schema", QJsonObject{{"type", "string"}}}}}}));
        const ResponsesRequest verbose = parseOk(patched({{"text", QJsonObject{{"verbosity", "high"}}}}));
        QVERIFY(!verbose.chatBody().contains("response_format"));
        QCOMPARE(verbose.dropped, QStringList{"text.verbosity"});
    }

    void toolChoices_data()
    {
        QTest::addColumn<QJsonValue>("choice");
        QTest::addColumn<QJsonValue>("expected");
        QTest::addColumn<int>("tools");
        const QJsonArray allowed{QJsonObject{{"type", "function"}, {"name", "get_weather"}}};
        QTest::newRow("auto") << QJsonValue("auto") << QJsonValue("auto") << 2;
        QTest::newRow("none") << QJsonValue("none") << QJsonValue("none") << 2;
        QTest::newRow("required") << QJsonValue("required") << QJsonValue("required") << 2;
        QTest::newRow("function") << QJsonValue(QJsonObject{{"type", "function"}, {"name", "get_weather"}})
                                  << QJsonValue(QJsonObject{{"type", "function"}, {"function", QJsonObject{{"name", "get_weather"}}}}) << 2;
        // allowed_tools narrows the tools offered, which every dialect honours, and keeps the mode.
        QTest::newRow("allowed tools") << QJsonValue(QJsonObject{{"type", "allowed_tools"}, {"mode", "required"}, {"tools", allowed}})
                                       << QJsonValue("required") << 1;
    }
    void toolChoices()
    {
        QFETCH(QJsonValue, choice);
        QFETCH(QJsonValue, expected);
        QFETCH(int, tools);
        const QJsonObject other{{"type", "function"}, {"name", "get_time"}};
        const QJsonObject out = parseOk(patched({{"tools", QJsonArray{weatherTool(), other}}, {"tool_choice", choice}})).chatBody();
        QCOMPARE(out.value("tool_choice"), expected);
        QCOMPARE(out.value("tools").toArray().size(), tools);
        QCOMPARE(out.value("tools").toArray().at(0).toObject().value("function").toObject().value("name").toString(), QStringLiteral("get_weather"));
    }

    void toolChoiceWithoutToolsIsNotSent()
    {
        const QJsonObject out = parseOk(patched({{"tool_choice", "required"}, {"parallel_tool_calls", false}, {"tools", QJsonArray()}})).chatBody();
        QVERIFY(!out.contains("tools"));
        QVERIFY(!out.contains("tool_choice"));
        QVERIFY(!out.contains("parallel_tool_calls"));
    }

    void builtInToolsAreRefused_data()
    {
        QTest::addColumn<QJsonObject>("tool");
        for (const char *type : {"web_search", "web_search_preview", "file_search", "code_interpreter", "computer_use_preview",
                                 "computer_use", "image_generation", "mcp", "local_shell", "shell", "apply_patch", "tool_search"})
            QTest::newRow(type) << QJsonObject{{"type", type}};
        // As recent Codex versions offer it.
        QTest::newRow("codex web_search") << QJsonObject{{"type", "web_search"}, {"external_web_access", false},
                                                         {"search_content_types", QJsonArray{"text", "image"}}};
    }
    void builtInToolsAreRefused()
    {
        QFETCH(QJsonObject, tool);
        ApiError error;
        QVERIFY(!ResponsesRequest::parse(patched({{"tools", QJsonArray{weatherTool(), tool}}}), &error));
        QCOMPARE(error.status, 400);
        QCOMPARE(error.param, QStringLiteral("tools[1].type"));
        QVERIFY2(error.message.startsWith(QStringLiteral("The built-in tool '%1' runs on OpenAI's own servers and Switchboard's upstreams cannot run it; "
                                                          "remove it or declare a function tool instead.").arg(tool.value("type").toString())),
                 qPrintable(error.message));
        // Codex CLI offers web search unless told not to; the refusal says how.
        QCOMPARE(error.message.contains(QStringLiteral("web_search = \"disabled\"")), tool.value("type").toString().startsWith("web_search"));
        QVERIFY(!ResponsesRequest::parse(patched({{"tools", QJsonArray{weatherTool()}}, {"tool_choice", tool}}), &error));
        QCOMPARE(error.param, QStringLiteral("tool_choice.type"));
    }

    void aNamespacesToolsAreDeclaredUnderTheirOwnNames()
    {
        // As Codex CLI groups its sub-agent tools.
        QJsonObject spawn = weatherTool();
        spawn.insert("name", "spawn_agent");
        const QJsonObject group{{"type", "namespace"}, {"name", "multi_agent_v1"}, {"description", "Sub-agents."},
                                {"tools", QJsonArray{spawn}}};
        const QJsonObject out = parseOk(patched({{"tools", QJsonArray{weatherTool(), group}}})).chatBody();
        const QJsonArray tools = out.value("tools").toArray();
        QCOMPARE(tools.size(), 2);
        QCOMPARE(tools[1].toObject().value("function").toObject().value("name").toString(), QStringLiteral("spawn_agent"));
        ApiError error;
        QVERIFY(!ResponsesRequest::parse(patched({{"tools", QJsonArray{QJsonObject{{"type", "namespace"}, {"name", "n"},
                                                                                   {"tools", QJsonArray{group}}}}}}), &error));
        QCOMPARE(error.param, QStringLiteral("tools[0].tools[0].type"));
        QVERIFY(!ResponsesRequest::parse(patched({{"tools", QJsonArray{weatherTool(), QJsonObject{{"type", "namespace"}, {"name", "n"},
                                                                                                   {"tools", QJsonArray{weatherTool()}}}}}}), &error));
        QCOMPARE(error.param, QStringLiteral("tools[1].tools[0].name")); // declared twice
    }

    void acceptedButNotSent()
    {
        const ResponsesRequest request = parseOk(patched(
            {{"include", QJsonArray{"reasoning.encrypted_content"}}, {"prompt_cache_key", "k"}, {"safety_identifier", "s"},
             {"service_tier", "flex"}, {"max_tool_calls", 3}, {"top_logprobs", 2}, {"stream_options", QJsonObject{{"include_obfuscation", false}}},
             {"reasoning", QJsonObject{{"summary", "detailed"}}}, {"background", false}, {"conversation", QJsonValue::Null},
             {"client_metadata", QJsonObject{{"x", "y"}}}, {"truncation", "disabled"}}));
        QCOMPARE(request.dropped, (QStringList{"reasoning.summary", "include", "prompt_cache_key", "safety_identifier", "service_tier",
                                               "max_tool_calls", "top_logprobs", "stream_options", "client_metadata"}));
        QCOMPARE(request.chatBody(), (QJsonObject{{"model", "gpt-4o"}, {"messages", QJsonArray{user("Hi")}}}));
    }

    void invalidRequests_data()
    {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<QString>("param");
        QTest::addColumn<QString>("message");
        const auto row = [](const char *name, const QByteArray &body, const char *param, const char *message) {
            QTest::newRow(name) << body << QString(param) << QString(message);
        };
        const auto items = [](const QJsonValue &item) { return withInput(QJsonArray{item}); };
        const auto parts = [](const char *role, const QJsonValue &part) {
            return withInput(QJsonArray{QJsonObject{{"role", role}, {"content", QJsonArray{part}}}});
        };
        row("model missing", patched({}, {"model"}), "model", "Missing required parameter: 'model'.");
        row("model a number", patched({{"model", 4}}), "model", "Invalid type for 'model': expected a string, but got a number instead.");
        row("model empty", patched({{"model", ""}}), "model", "Invalid 'model': empty string.");
        row("input a number", patched({{"input", 1}}), "input", "Invalid type for 'input': expected a string or an array");
        row("item a string", items("Hi"), "input[0]", "Invalid type for 'input[0]': expected an object");
        row("item without type or role", items(QJsonObject{{"content", "Hi"}}), "input[0].type", "Missing required parameter: 'input[0].type'.");
        row("item type unknown", items(QJsonObject{{"type", "telepathy"}}), "input[0].type", "Invalid value for 'input[0].type': 'telepathy'. Supported values are: 'message', ");
        row("item reference", items(QJsonObject{{"type", "item_reference"}, {"id", "msg_1"}}), "input[0].type",
            "Switchboard does not resolve item references: send the items themselves, or continue the conversation with previous_response_id.");
        row("built-in item", items(QJsonObject{{"type", "web_search_call"}, {"id", "ws_1"}}), "input[0].type", "'web_search_call' items belong to a built-in tool");
        row("role unknown", items(QJsonObject{{"role", "critic"}, {"content", "Hi"}}), "input[0].role", "Invalid value for 'input[0].role': 'critic'.");
        row("role a number", items(QJsonObject{{"type", "message"}, {"role", 1}, {"content", "Hi"}}), "input[0].role", "Invalid type for 'input[0].role'");
        row("content missing", items(QJsonObject{{"role", "user"}}), "input[0].content", "Missing required parameter: 'input[0].content'.");
        row("content a number", items(QJsonObject{{"role", "user"}, {"content", 3}}), "input[0].content", "Invalid type for 'input[0].content'");
        row("part a string", parts("user", "Hi"), "input[0].content[0]", "Invalid type for 'input[0].content[0]'");
        row("part type unknown", parts("user", QJsonObject{{"type", "input_audio"}}), "input[0].content[0].type", "Invalid value for 'input[0].content[0].type': 'input_audio'.");
        row("part text missing", parts("user", QJsonObject{{"type", "input_text"}}), "input[0].content[0].text", "Missing required parameter: 'input[0].content[0].text'.");
        row("part text a number", parts("system", QJsonObject{{"type", "input_text"}, {"text", 1}}), "input[0].content[0].text", "Invalid type for 'input[0].content[0].text'");
        row("output_text in a user message", parts("user", QJsonObject{{"type", "output_text"}, {"text", "x"}}), "input[0].content[0].type", "Invalid value: 'output_text'. It belongs in an assistant message");
        row("image in an assistant message", parts("assistant", QJsonObject{{"type", "input_image"}, {"image_url", "https://e.com/a.png"}}), "input[0].content[0].type", "Invalid value: 'input_image'. An assistant message takes");
        row("image in a system message", parts("developer", QJsonObject{{"type", "input_image"}, {"image_url", "https://e.com/a.png"}}), "input[0].content[0].type", "A system or developer message takes text only");
        row("refusal without text", parts("assistant", QJsonObject{{"type", "refusal"}}), "input[0].content[0].refusal", "Missing required parameter");
        row("image by file_id", parts("user", QJsonObject{{"type", "input_image"}, {"file_id", "file-1"}, {"detail", "auto"}}), "input[0].content[0].file_id", "Switchboard has no Files API");
        row("image without url", parts("user", QJsonObject{{"type", "input_image"}, {"detail", "auto"}}), "input[0].content[0].image_url", "Missing required parameter: 'input[0].content[0].image_url'.");
        row("image url an object", parts("user", QJsonObject{{"type", "input_image"}, {"image_url", QJsonObject{{"url", "https://e.com/a.png"}}}}), "input[0].content[0].image_url", "Invalid type for 'input[0].content[0].image_url'");
        row("image url a path", parts("user", QJsonObject{{"type", "input_image"}, {"image_url", "/tmp/a.png"}}), "input[0].content[0].image_url", "Invalid 'image_url'");
        row("image detail", parts("user", QJsonObject{{"type", "input_image"}, {"image_url", "https://e.com/a.png"}, {"detail", "max"}}), "input[0].content[0].detail", "Invalid value for 'input[0].content[0].detail': 'max'.");
        row("file by id", parts("user", QJsonObject{{"type", "input_file"}, {"file_id", "file-1"}}), "input[0].content[0].file_id", "Switchboard has no Files API");
        row("file without data", parts("user", QJsonObject{{"type", "input_file"}, {"filename", "a.pdf"}}), "input[0].content[0].file_data", "Missing required parameter");
        row("call without call_id", items(QJsonObject{{"type", "function_call"}, {"name", "f"}, {"arguments", "{}"}}), "input[0].call_id", "Missing required parameter: 'input[0].call_id'.");
        row("call without name", items(QJsonObject{{"type", "function_call"}, {"call_id", "c"}, {"arguments", "{}"}}), "input[0].name", "Missing required parameter: 'input[0].name'.");
        row("call arguments an object", items(QJsonObject{{"type", "function_call"}, {"call_id", "c"}, {"name", "f"}, {"arguments", QJsonObject()}}), "input[0].arguments", "Invalid type for 'input[0].arguments': expected a string, but got an object instead.");
        row("custom call without input", items(QJsonObject{{"type", "custom_tool_call"}, {"call_id", "c"}, {"name", "f"}}), "input[0].input", "Missing required parameter: 'input[0].input'.");
        row("output without call_id", items(QJsonObject{{"type", "function_call_output"}, {"output", "x"}}), "input[0].call_id", "Missing required parameter: 'input[0].call_id'.");
        row("output missing", items(QJsonObject{{"type", "custom_tool_call_output"}, {"call_id", "c"}}), "input[0].output", "Missing required parameter: 'input[0].output'.");
        row("output a number", items(QJsonObject{{"type", "function_call_output"}, {"call_id", "c"}, {"output", 1}}), "input[0].output", "Invalid type for 'input[0].output'");
        row("output part unknown", items(callOutput("c", QJsonArray{QJsonObject{{"type", "output_text"}, {"text", "x"}}})), "input[0].output[0].type", "Invalid value: 'output_text'.");
        row("tools an object", patched({{"tools", QJsonObject()}}), "tools", "Invalid type for 'tools': expected an array of tools, but got an object instead.");
        row("tool a string", patched({{"tools", QJsonArray{"f"}}}), "tools[0]", "Invalid type for 'tools[0]'");
        row("tool type missing", patched({{"tools", QJsonArray{QJsonObject{{"name", "f"}}}}}), "tools[0].type", "Missing required parameter: 'tools[0].type'.");
        row("tool name missing", patched({{"tools", QJsonArray{QJsonObject{{"type", "function"}}}}}), "tools[0].name", "Missing required parameter: 'tools[0].name'.");
        row("tool in chat's shape", patched({{"tools", QJsonArray{QJsonObject{{"type", "function"}, {"function", QJsonObject{{"name", "f"}}}}}}}), "tools[0].name",
            "Missing required parameter: 'tools[0].name'. In the Responses API the name sits at the top level");
        row("tool_choice in chat's shape", patched({{"tools", QJsonArray{weatherTool()}}, {"tool_choice", QJsonObject{{"type", "function"}, {"function", QJsonObject{{"name", "get_weather"}}}}}}), "tool_choice.name",
            "Missing required parameter: 'tool_choice.name'. In the Responses API the name sits at the top level");
        row("tool parameters a string", patched({{"tools", QJsonArray{QJsonObject{{"type", "function"}, {"name", "f"}, {"parameters", "{}"}}}}}), "tools[0].parameters", "Invalid type for 'tools[0].parameters'");
        row("tool strict a string", patched({{"tools", QJsonArray{QJsonObject{{"type", "function"}, {"name", "f"}, {"strict", "yes"}}}}}), "tools[0].strict", "Invalid type for 'tools[0].strict'");
        row("tool names twice", patched({{"tools", QJsonArray{weatherTool(), QJsonObject{{"type", "custom"}, {"name", "get_weather"}}}}}), "tools[1].name", "Tool names must be unique");
        row("custom format type", patched({{"tools", QJsonArray{QJsonObject{{"type", "custom"}, {"name", "f"}, {"format", QJsonObject{{"type", "xml"}}}}}}}), "tools[0].format.type", "Invalid value for 'tools[0].format.type': 'xml'.");
        row("custom grammar syntax", patched({{"tools", QJsonArray{QJsonObject{{"type", "custom"}, {"name", "f"}, {"format", QJsonObject{{"type", "grammar"}, {"syntax", "peg"}, {"definition", "x"}}}}}}}), "tools[0].format.syntax", "Invalid value for 'tools[0].format.syntax': 'peg'.");
        row("custom grammar definition", patched({{"tools", QJsonArray{QJsonObject{{"type", "custom"}, {"name", "f"}, {"format", QJsonObject{{"type", "grammar"}, {"syntax", "lark"}}}}}}}), "tools[0].format.definition", "Missing required parameter");
        row("tool_choice a number", patched({{"tool_choice", 1}}), "tool_choice", "Invalid type for 'tool_choice'");
        row("tool_choice unknown mode", patched({{"tool_choice", "sometimes"}}), "tool_choice", "Invalid value for 'tool_choice': 'sometimes'.");
        row("tool_choice undeclared function", patched({{"tools", QJsonArray{weatherTool()}}, {"tool_choice", QJsonObject{{"type", "function"}, {"name", "get_time"}}}}), "tool_choice.name", "No function tool named 'get_time' is declared in 'tools'.");
        row("tool_choice custom not custom", patched({{"tools", QJsonArray{weatherTool()}}, {"tool_choice", QJsonObject{{"type", "custom"}, {"name", "get_weather"}}}}), "tool_choice.name", "No custom tool named 'get_weather'");
        row("allowed_tools mode", patched({{"tools", QJsonArray{weatherTool()}}, {"tool_choice", QJsonObject{{"type", "allowed_tools"}, {"mode", "none"}, {"tools", QJsonArray()}}}}), "tool_choice.mode", "Invalid value for 'tool_choice.mode': 'none'.");
        row("allowed_tools undeclared", patched({{"tools", QJsonArray{weatherTool()}}, {"tool_choice", QJsonObject{{"type", "allowed_tools"}, {"mode", "auto"}, {"tools", QJsonArray{QJsonObject{{"type", "function"}, {"name", "x"}}}}}}}), "tool_choice.tools[0].name", "No function tool named 'x'");
        row("allowed_tools built-in", patched({{"tools", QJsonArray{weatherTool()}}, {"tool_choice", QJsonObject{{"type", "allowed_tools"}, {"mode", "auto"}, {"tools", QJsonArray{QJsonObject{{"type", "mcp"}, {"server_label", "deepwiki"}}}}}}}), "tool_choice.tools[0].type", "The built-in tool 'mcp'");
        row("parallel_tool_calls a string", patched({{"parallel_tool_calls", "yes"}}), "parallel_tool_calls", "Invalid type for 'parallel_tool_calls': expected a boolean");
        row("text a string", patched({{"text", "json"}}), "text", "Invalid type for 'text'");
        row("text.format a string", patched({{"text", QJsonObject{{"format", "json_object"}}}}), "text.format", "Invalid type for 'text.format'");
        row("text.format type", patched({{"text", QJsonObject{{"format", QJsonObject{{"type", "yaml"}}}}}}), "text.format.type", "Invalid value for 'text.format.type': 'yaml'.");
        row("json_schema without name", patched({{"text", QJsonObject{{"format", QJsonObject{{"type", "json_schema"}, {"schema", QJsonObject()}}}}}}), "text.format.name", "Missing required parameter: 'text.format.name'.");
        row("json_schema without schema", patched({{"text", QJsonObject{{"format", QJsonObject{{"type", "json_schema"}, {"name", "n"}}}}}}), "text.format.schema", "Missing required parameter: 'text.format.schema'.");
        row("json_schema schema a string", patched({{"text", QJsonObject{{"format", QJsonObject{{"type", "json_schema"}, {"name", "n"}, {"schema", "{}"}}}}}}), "text.format.schema", "Invalid type for 'text.format.schema'");
        row("verbosity", patched({{"text", QJsonObject{{"verbosity", "loud"}}}}), "text.verbosity", "Invalid value for 'text.verbosity': 'loud'.");
        row("reasoning a string", patched({{"reasoning", "high"}}), "reasoning", "Invalid type for 'reasoning'");
        row("reasoning effort", patched({{"reasoning", QJsonObject{{"effort", "extreme"}}}}), "reasoning.effort", "Invalid value for 'reasoning.effort': 'extreme'.");
        row("reasoning summary", patched({{"reasoning", QJsonObject{{"summary", 1}}}}), "reasoning.summary", "Invalid type for 'reasoning.summary'");
        row("max_output_tokens zero", patched({{"max_output_tokens", 0}}), "max_output_tokens", "Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 1, but got 0 instead.");
        row("max_output_tokens fraction", patched({{"max_output_tokens", 10.5}}), "max_output_tokens", "Invalid type for 'max_output_tokens': expected an integer");
        row("max_output_tokens a string", patched({{"max_output_tokens", "100"}}), "max_output_tokens", "Invalid type for 'max_output_tokens': expected an integer, but got a string instead.");
        row("temperature above 2", patched({{"temperature", 2.5}}), "temperature", "Invalid 'temperature': decimal above maximum value. Expected a value <= 2, but got 2.5 instead.");
        row("temperature a string", patched({{"temperature", "hot"}}), "temperature", "Invalid type for 'temperature': expected a number");
        row("top_p below 0", patched({{"top_p", -0.1}}), "top_p", "Invalid 'top_p': decimal below minimum value.");
        row("user a number", patched({{"user", 7}}), "user", "Invalid type for 'user'");
        row("metadata an array", patched({{"metadata", QJsonArray()}}), "metadata", "Invalid type for 'metadata'");
        row("metadata value a number", patched({{"metadata", QJsonObject{{"k", 1}}}}), "metadata.k", "Invalid type for 'metadata.k'");
        QJsonObject many;
        for (int i = 0; i < 17; ++i)
            many.insert(QStringLiteral("k%1").arg(i), "v");
        row("metadata too many", patched({{"metadata", many}}), "metadata", "Invalid 'metadata': too many properties.");
        row("metadata value too long", patched({{"metadata", QJsonObject{{"k", QString(513, 'x')}}}}), "metadata.k", "Invalid 'metadata.k': string longer than 512 characters.");
        row("stream a string", patched({{"stream", "true"}}), "stream", "Invalid type for 'stream': expected a boolean, but got a string instead.");
        row("store a number", patched({{"store", 0}}), "store", "Invalid type for 'store'");
        row("previous_response_id empty", patched({{"previous_response_id", ""}}), "previous_response_id", "Invalid 'previous_response_id': empty string.");
        row("previous_response_id a number", patched({{"previous_response_id", 5}}), "previous_response_id", "Invalid type for 'previous_response_id'");
        row("instructions an array", patched({{"instructions", QJsonArray()}}), "instructions", "Invalid type for 'instructions'");
        row("include a string", patched({{"include", "reasoning.encrypted_content"}}), "include", "Invalid type for 'include'");
        row("include item a number", patched({{"include", QJsonArray{1}}}), "include[0]", "Invalid type for 'include[0]'");
        row("truncation", patched({{"truncation", "middle"}}), "truncation", "Invalid value for 'truncation': 'middle'.");
        row("top_logprobs above 20", patched({{"top_logprobs", 21}}), "top_logprobs", "Invalid 'top_logprobs': integer above maximum value.");
        row("background", patched({{"background", true}}), "background", "Switchboard has no background mode");
        row("conversation", patched({{"conversation", "conv_1"}}), "conversation", "Switchboard keeps no conversation objects");
        row("prompt", patched({{"prompt", QJsonObject{{"id", "pmpt_1"}}}}), "prompt", "Switchboard has no stored prompt templates");
    }
    void invalidRequests()
    {
        QFETCH(QByteArray, body);
        QFETCH(QString, param);
        QFETCH(QString, message);
        ApiError error;
        error.status = 0;
        QVERIFY(!ResponsesRequest::parse(body, &error));
        QCOMPARE(error.status, 400);
        QCOMPARE(error.type, QStringLiteral("invalid_request_error"));
        QCOMPARE(error.param, param);
        QVERIFY2(error.message.startsWith(message), qPrintable(error.message));
        QVERIFY2(error.message.endsWith(QLatin1Char('.')), qPrintable(error.message));
        QVERIFY(!error.code.isEmpty());
    }

    void notARequest_data()
    {
        QTest::addColumn<QByteArray>("body");
        QTest::newRow("empty") << QByteArray();
        QTest::newRow("not json") << QByteArray("model=gpt-4o");
        QTest::newRow("truncated") << QByteArray("{\"model\":\"gpt-4o\",\"input\":\"Hi");
        QTest::newRow("an array") << QByteArray("[{\"model\":\"gpt-4o\",\"input\":\"Hi\"}]");
        QTest::newRow("a string") << QByteArray("\"Hi\"");
        static const char withNul[] = "{\"model\":\"gpt\0\",\"input\":\"Hi\"}";
        QTest::newRow("a raw NUL") << QByteArray(withNul, sizeof withNul - 1);
        QTest::newRow("100k brackets") << QByteArray(100'000, '[');
        QTest::newRow("100k nested objects") << QByteArray("{\"input\":").repeated(100'000);
        QByteArray deepInput = "{\"model\":\"m\",\"input\":" + QByteArray(5000, '[') + QByteArray(5000, ']') + "}";
        QTest::newRow("deep input") << deepInput;
    }
    void notARequest()
    {
        QFETCH(QByteArray, body);
        ApiError error;
        QVERIFY(!ResponsesRequest::parse(body, &error));
        QCOMPARE(error.status, 400);
        QCOMPARE(error.type, QStringLiteral("invalid_request_error"));
        QVERIFY(error.param.isEmpty());
        QVERIFY2(error.message.startsWith("The request body"), qPrintable(error.message));
        QVERIFY(!ResponsesRequest::parse(body, nullptr));
    }

    void deepButValidJsonIsTranslated()
    {
        // A schema nested as deep as the JSON parser allows goes up as it came.
        QJsonObject schema{{"type", "string"}};
        for (int i = 0; i < 500; ++i)
            schema = QJsonObject{{"type", "array"}, {"items", schema}};
        const ResponsesRequest request = parseOk(patched({{"tools", QJsonArray{QJsonObject{{"type", "function"}, {"name", "f"}, {"parameters", schema}}}}}));
        QCOMPARE(request.chatBody().value("tools").toArray().at(0).toObject().value("function").toObject().value("parameters").toObject(), schema);
        // A long input is no trouble either.
        const QString big(2'000'000, QLatin1Char('a'));
        const ResponsesRequest long_ = parseOk(patched({{"input", big}}));
        QCOMPARE(messagesOf(long_).at(0).toObject().value("content").toString().size(), big.size());
        QCOMPARE(long_.estimatedPromptTokens, int(long_.original.size() / 4 + 1));
    }

    void wrongTypesAnywhereAreRefusedOrTranslated()
    {
        // Each node of each fixture replaced by each wrong type: the parser must answer every such
        // body with a translation or a 400 naming a field, never crash.
        int accepted = 0, refused = 0;
        for (const char *name : kFixtures) {
            eachWrongTypedVariant(fixtureObject(name), [&](const QJsonValue &variant) {
                const QByteArray body = variant.isObject() ? json(variant.toObject()) : json(variant);
                ApiError error;
                const std::optional<ResponsesRequest> request = ResponsesRequest::parse(body, &error);
                if (request) {
                    ++accepted;
                    QVERIFY(request->chatBody().value("messages").isArray());
                    return;
                }
                ++refused;
                QCOMPARE(error.status, 400);
                QVERIFY(!error.message.isEmpty());
            });
        }
        QVERIFY(accepted > 0);
        QVERIFY(refused > 0);
    }

    void corruptedBytesAreRefusedOrTranslated()
    {
        QRandomGenerator random(20250101);
        for (const char *name : kFixtures) {
            const QByteArray body = fixture(name);
            for (int i = 0; i < 300; ++i) {
                ApiError error;
                const std::optional<ResponsesRequest> request = ResponsesRequest::parse(test::mutatedJson(body, random), &error);
                if (request)
                    QVERIFY(request->chatBody().value("messages").isArray());
                else
                    QCOMPARE(error.status, 400);
            }
        }
    }
};

QTEST_GUILESS_MAIN(tst_ResponsesRequest)
#include "tst_ResponsesRequest.moc"
