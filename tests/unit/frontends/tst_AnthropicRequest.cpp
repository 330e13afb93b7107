#include "frontends/anthropic_messages/AnthropicRequest.h"
#include "providers/anthropic/AnthropicAdapter.h"
#include "providers/common/ProviderText.h"

#include "AnthropicWire.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace sb;

// The Anthropic front door's request checks and its translation into the engine's OpenAI body, on
// Anthropic's reference requests (tests/fixtures/anthropic_messages/) and on one broken field at a
// time. URLs inside the raw JSON below escape their slashes ("https:\/\/…", which JSON allows):
// moc takes a "//" inside a multi-line raw string for a comment and then misses the test class.

namespace {

AnthropicRequest parseOk(const QByteArray &body, AnthropicRequest::Purpose purpose = AnthropicRequest::Purpose::CreateMessage)
{
    AnthropicError error;
    const std::optional<AnthropicRequest> request = AnthropicRequest::parse(body, &error, purpose);
    if (!request)
        qWarning("unexpected rejection: %s", qPrintable(error.message));
    return request.value_or(AnthropicRequest());
}

QByteArray json(const QJsonObject &object) { return QJsonDocument(object).toJson(QJsonDocument::Compact); }

// A valid request with `patch` applied member by member; a member whose value is the string
// "<absent>" is removed.
QByteArray patched(const QByteArray &patch)
{
    QJsonObject body{{"model", "claude-sonnet-4-20250514"},
                     {"max_tokens", 100},
                     {"messages", QJsonArray{QJsonObject{{"role", "user"}, {"content", "Hi"}}}}};
    const QJsonObject changes = QJsonDocument::fromJson(patch).object();
    for (auto it = changes.constBegin(); it != changes.constEnd(); ++it) {
        if (it.value() == QJsonValue(QStringLiteral("<absent>")))
            body.remove(it.key());
        else
            body.insert(it.key(), it.value());
    }
    return json(body);
}

QByteArray withMessages(const char *messagesJson)
{
    return patched(QByteArray(R"({"messages":)") + messagesJson + "}");
}

QJsonArray messagesOf(const AnthropicRequest &request) { return request.openAiBody.value("messages").toArray(); }

} // namespace

class tst_AnthropicRequest : public QObject {
    Q_OBJECT
private slots:
    void aSystemMessageInTheConversationKeepsItsPlace()
    {
        // Claude Code (mid-conversation-system beta) sends reminders as system messages between turns.
        AnthropicError error;
        const auto request = AnthropicRequest::parse(
            R"({"model":"m","max_tokens":64,"system":"Be brief.","messages":[{"role":"user","content":"Hi"},)"
            R"({"role":"system","content":"Agents available: Explore."},{"role":"user","content":[{"type":"text","text":"Go"}]}]})",
            &error);
        QVERIFY2(request, qPrintable(error.message));
        const QJsonArray messages = request->openAiBody.value(QStringLiteral("messages")).toArray();
        QCOMPARE(messages.size(), 4);
        QCOMPARE(messages[0].toObject().value(QStringLiteral("role")).toString(), QStringLiteral("system"));
        QCOMPARE(messages[1].toObject().value(QStringLiteral("role")).toString(), QStringLiteral("user"));
        QCOMPARE(messages[2].toObject(), (QJsonObject{{QStringLiteral("role"), QStringLiteral("system")},
                                                     {QStringLiteral("content"), QStringLiteral("Agents available: Explore.")}}));
        QCOMPARE(messages[3].toObject().value(QStringLiteral("role")).toString(), QStringLiteral("user"));
    }

    void referenceToolUseRequest()
    {
        const QByteArray body = test::readAnthropicFixture("request_tool_use.json");
        QVERIFY(!body.isEmpty());
        const AnthropicRequest request = parseOk(body);
        QCOMPARE(request.model, QStringLiteral("claude-opus-4-1-20250805"));
        QCOMPARE(request.maxTokens, 1024);
        QVERIFY(!request.stream);
        QCOMPARE(request.original, body);
        QCOMPARE(request.estimatedPromptTokens, int(body.size() / 4 + 1));
        QVERIFY2(request.dropped.isEmpty(), qPrintable(request.dropped.join(", ")));

        const QJsonObject &out = request.openAiBody;
        QCOMPARE(out.value("model").toString(), QStringLiteral("claude-opus-4-1-20250805"));
        QCOMPARE(out.value("max_tokens").toInt(), 1024);
        QVERIFY(!out.contains("stream"));
        QVERIFY(!out.contains("stream_options"));

        const QJsonObject reference = QJsonDocument::fromJson(body).object();
        const QJsonObject tool = out.value("tools").toArray().at(0).toObject();
        QCOMPARE(out.value("tools").toArray().size(), 1);
        QCOMPARE(tool.value("type").toString(), QStringLiteral("function"));
        const QJsonObject function = tool.value("function").toObject();
        QCOMPARE(function.value("name").toString(), QStringLiteral("get_weather"));
        QCOMPARE(function.value("description").toString(), QStringLiteral("Get the current weather in a given location"));
        QCOMPARE(function.value("parameters").toObject(),
                 reference.value("tools").toArray().at(0).toObject().value("input_schema").toObject());
        QVERIFY(!out.contains("tool_choice"));

        // user → assistant with the call → the call's tool message, in order.
        const QJsonArray messages = messagesOf(request);
        QCOMPARE(messages.size(), 3);
        QCOMPARE(messages.at(0).toObject(), (QJsonObject{{"role", "user"}, {"content", "What's the weather like in San Francisco?"}}));
        const QJsonObject assistant = messages.at(1).toObject();
        QCOMPARE(assistant.value("role").toString(), QStringLiteral("assistant"));
        QCOMPARE(assistant.value("content").toString(), QStringLiteral("I'll check the current weather in San Francisco for you."));
        const QJsonArray calls = assistant.value("tool_calls").toArray();
        QCOMPARE(calls.size(), 1);
        const QJsonObject call = calls.at(0).toObject();
        QCOMPARE(call.value("id").toString(), QStringLiteral("toolu_01A09q90qw90lq917835lq9"));
        QCOMPARE(call.value("type").toString(), QStringLiteral("function"));
        QCOMPARE(call.value("function").toObject().value("name").toString(), QStringLiteral("get_weather"));
        // Compact JSON of the input, as OpenAI carries arguments.
        QCOMPARE(call.value("function").toObject().value("arguments").toString(),
                 QStringLiteral(R"({"location":"San Francisco, CA","unit":"celsius"})"));
        QCOMPARE(messages.at(2).toObject(),
                 (QJsonObject{{"role", "tool"}, {"tool_call_id", "toolu_01A09q90qw90lq917835lq9"}, {"content", "15 degrees"}}));
    }

    void toolUseRoundTripThroughTheUpstreamDialect()
    {
        // Anthropic → OpenAI (this front door) → Anthropic (the anthropic upstream dialect) gives
        // the reference conversation back: every turn, block, id and input in its place.
        const QJsonObject reference = test::anthropicFixtureObject("request_tool_use.json");
        const AnthropicRequest request = parseOk(test::readAnthropicFixture("request_tool_use.json"));
        const QJsonObject back = AnthropicAdapter::translateRequest(request.openAiBody, QString());

        QCOMPARE(back.value("model"), reference.value("model"));
        QCOMPARE(back.value("max_tokens"), reference.value("max_tokens"));
        const QJsonArray tools = back.value("tools").toArray();
        QCOMPARE(tools.size(), 1);
        QCOMPARE(tools.at(0).toObject(), reference.value("tools").toArray().at(0).toObject());

        const QJsonArray original = reference.value("messages").toArray();
        const QJsonArray messages = back.value("messages").toArray();
        QCOMPARE(messages.size(), original.size());
        // The first turn was a plain string; the upstream dialect always sends blocks.
        QCOMPARE(messages.at(0).toObject().value("content").toArray(),
                 (QJsonArray{QJsonObject{{"type", "text"}, {"text", original.at(0).toObject().value("content").toString()}}}));
        QCOMPARE(messages.at(1).toObject(), original.at(1).toObject());
        QCOMPARE(messages.at(2).toObject(), original.at(2).toObject());
    }

    void everyBlockTypeOfTheReferencePages()
    {
        const AnthropicRequest request = parseOk(test::readAnthropicFixture("request_blocks.json"));
        const QJsonObject &out = request.openAiBody;
        QVERIFY(request.stream);
        QCOMPARE(out.value("stream").toBool(), true);
        QCOMPARE(out.value("stream_options").toObject(), (QJsonObject{{"include_usage", true}}));
        QCOMPARE(out.value("max_tokens").toInt(), 16000);
        QCOMPARE(out.value("stop").toArray(), (QJsonArray{"\n\nHuman:", "END"}));
        QCOMPARE(request.stopSequences, (QStringList{"\n\nHuman:", "END"}));
        QCOMPARE(out.value("top_p").toDouble(), 0.95);
        QVERIFY(!out.contains("temperature"));
        QCOMPARE(out.value("user").toString(), QStringLiteral("13803d75-b4b5-4c3e-b2a2-6f21399b021b"));
        QCOMPARE(out.value("reasoning_effort").toString(), QStringLiteral("medium")); // budget 10000

        // The server tool cannot be offered to an OpenAI upstream; the custom one can.
        const QJsonArray tools = out.value("tools").toArray();
        QCOMPARE(tools.size(), 1);
        QCOMPARE(tools.at(0).toObject().value("function").toObject().value("name").toString(), QStringLiteral("get_stock_price"));
        QCOMPARE(out.value("tool_choice").toString(), QStringLiteral("auto"));
        QCOMPARE(out.value("parallel_tool_calls").toBool(true), false);

        const QJsonArray messages = messagesOf(request);
        QCOMPARE(messages.size(), 4);
        QCOMPARE(messages.at(0).toObject(),
                 (QJsonObject{{"role", "system"},
                              {"content", "You are an AI assistant tasked with analyzing literary works.\n\n"
                                          "Here is the full text of a complex literary work: ..."}}));

        const QJsonObject user = messages.at(1).toObject();
        QCOMPARE(user.value("role").toString(), QStringLiteral("user"));
        const QJsonArray parts = user.value("content").toArray();
        QCOMPARE(parts.size(), 7);
        QCOMPARE(parts.at(0).toObject().value("type").toString(), QStringLiteral("image_url"));
        QCOMPARE(parts.at(0).toObject().value("image_url").toObject().value("url").toString(),
                 QStringLiteral("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="));
        QCOMPARE(parts.at(1).toObject().value("image_url").toObject().value("url").toString(),
                 QStringLiteral("https://upload.wikimedia.org/wikipedia/commons/a/a7/Camponotus_flavomarginatus_ant.jpg"));
        // The PDF: its title as text in front, then OpenAI's file part with a data: URL.
        QCOMPARE(parts.at(2).toObject(), (QJsonObject{{"type", "text"}, {"text", "two-pages.pdf"}}));
        const QJsonObject file = parts.at(3).toObject().value("file").toObject();
        QCOMPARE(parts.at(3).toObject().value("type").toString(), QStringLiteral("file"));
        QCOMPARE(file.value("filename").toString(), QStringLiteral("two-pages.pdf"));
        QVERIFY(file.value("file_data").toString().startsWith("data:application/pdf;base64,JVBERi0xLjQK"));
        QCOMPARE(parts.at(4).toObject().value("text").toString(),
                 QStringLiteral("My Document\n\nThis is a trustworthy document.\n\nThe grass is green. The sky is blue."));
        QCOMPARE(parts.at(5).toObject().value("text").toString(),
                 QStringLiteral("Document: https://assets.anthropic.com/m/1cd9d098ac3e6467/original/Claude-3-Model-Card-October-Addendum.pdf"));
        QCOMPARE(parts.at(6).toObject().value("text").toString(), QStringLiteral("Describe these, then tell me what colour the grass is."));

        // Earlier thinking cannot be shown to an OpenAI upstream; the answer's text stays.
        QCOMPARE(messages.at(2).toObject(), (QJsonObject{{"role", "assistant"}, {"content", "The grass is green."}}));
        QCOMPARE(messages.at(3).toObject(), (QJsonObject{{"role", "user"}, {"content", "Thanks. And the sky?"}}));

        for (const char *what : {"cache_control", "thinking blocks of earlier turns", "tool web_search (web_search_20250305)",
                                 "citations", "documents given by URL"})
            QVERIFY2(request.dropped.contains(QLatin1String(what)), what);
        QCOMPARE(request.dropped.count("cache_control"), 1);
    }

    void stringContentAndTextOnlyBlocksArePlainStrings()
    {
        const AnthropicRequest request = parseOk(withMessages(R"([
            {"role":"user","content":[{"type":"text","text":"Xin chào"},{"type":"text","text":"你好","cache_control":{"type":"ephemeral"}}]},
            {"role":"assistant","content":"Chào bạn!"},
            {"role":"user","content":"Tiếp tục"}])"));
        const QJsonArray messages = messagesOf(request);
        QCOMPARE(messages.size(), 3);
        QCOMPARE(messages.at(0).toObject(), (QJsonObject{{"role", "user"}, {"content", "Xin chào\n你好"}}));
        QCOMPARE(messages.at(1).toObject(), (QJsonObject{{"role", "assistant"}, {"content", "Chào bạn!"}}));
        QCOMPARE(messages.at(2).toObject(), (QJsonObject{{"role", "user"}, {"content", "Tiếp tục"}}));
        QCOMPARE(request.dropped, QStringList{"cache_control"});
    }

    void systemAsString()
    {
        const AnthropicRequest request = parseOk(patched(R"({"system":"Trả lời bằng tiếng Việt."})"));
        QCOMPARE(messagesOf(request).at(0).toObject(), (QJsonObject{{"role", "system"}, {"content", "Trả lời bằng tiếng Việt."}}));
        QCOMPARE(messagesOf(request).size(), 2);
    }

    void toolResultsComeFirstThenTheRestOfTheTurn()
    {
        // Two parallel calls answered in one user turn with text; one result is an error with
        // blocks, one carries an image (OpenAI's tool messages take text only).
        const AnthropicRequest request = parseOk(withMessages(R"([
            {"role":"user","content":"Weather in Hanoi and Beijing?"},
            {"role":"assistant","content":[
                {"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"location":"Hà Nội"}},
                {"type":"tool_use","id":"toolu_2","name":"get_weather","input":{}}]},
            {"role":"user","content":[
                {"type":"text","text":"Here you go."},
                {"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"31°C"},{"type":"text","text":"humid"}]},
                {"type":"tool_result","tool_use_id":"toolu_2","is_error":true,"content":"location is required"},
                {"type":"tool_result","tool_use_id":"toolu_3","content":[{"type":"image","source":{"type":"url","url":"https:\/\/example.com/map.png"}}]},
                {"type":"tool_result","tool_use_id":"toolu_4"}]}])"));
        const QJsonArray messages = messagesOf(request);
        QCOMPARE(messages.size(), 7);
        const QJsonArray calls = messages.at(1).toObject().value("tool_calls").toArray();
        QCOMPARE(calls.size(), 2);
        QVERIFY(messages.at(1).toObject().value("content").isNull());
        QCOMPARE(calls.at(0).toObject().value("function").toObject().value("arguments").toString(), QStringLiteral(R"({"location":"Hà Nội"})"));
        QCOMPARE(calls.at(1).toObject().value("function").toObject().value("arguments").toString(), QStringLiteral("{}"));
        QCOMPARE(messages.at(2).toObject(), (QJsonObject{{"role", "tool"}, {"tool_call_id", "toolu_1"}, {"content", "31°C\nhumid"}}));
        QCOMPARE(messages.at(3).toObject(), (QJsonObject{{"role", "tool"}, {"tool_call_id", "toolu_2"}, {"content", "Error: location is required"}}));
        QCOMPARE(messages.at(4).toObject().value("tool_call_id").toString(), QStringLiteral("toolu_3"));
        QVERIFY(!messages.at(4).toObject().value("content").toString().isEmpty());
        QCOMPARE(messages.at(5).toObject(), (QJsonObject{{"role", "tool"}, {"tool_call_id", "toolu_4"}, {"content", ""}}));
        const QJsonObject rest = messages.at(6).toObject();
        QCOMPARE(rest.value("role").toString(), QStringLiteral("user"));
        const QJsonArray parts = rest.value("content").toArray();
        QCOMPARE(parts.size(), 2);
        QCOMPARE(parts.at(0).toObject(), (QJsonObject{{"type", "text"}, {"text", "Here you go."}}));
        QCOMPARE(parts.at(1).toObject().value("image_url").toObject().value("url").toString(), QStringLiteral("https://example.com/map.png"));
    }

    void toolChoice_data()
    {
        QTest::addColumn<QByteArray>("choice");
        QTest::addColumn<QJsonValue>("expected");
        QTest::addColumn<bool>("parallelOff");
        QTest::newRow("auto") << QByteArray(R"({"type":"auto"})") << QJsonValue("auto") << false;
        QTest::newRow("any") << QByteArray(R"({"type":"any"})") << QJsonValue("required") << false;
        QTest::newRow("none") << QByteArray(R"({"type":"none"})") << QJsonValue("none") << false;
        QTest::newRow("tool") << QByteArray(R"({"type":"tool","name":"get_weather"})")
                              << QJsonValue(QJsonObject{{"type", "function"}, {"function", QJsonObject{{"name", "get_weather"}}}}) << false;
        QTest::newRow("auto, one call at a time") << QByteArray(R"({"type":"auto","disable_parallel_tool_use":true})") << QJsonValue("auto") << true;
        QTest::newRow("any, one call at a time") << QByteArray(R"({"type":"any","disable_parallel_tool_use":true})") << QJsonValue("required") << true;
        QTest::newRow("tool, one call at a time") << QByteArray(R"({"type":"tool","name":"get_weather","disable_parallel_tool_use":true})")
                                                  << QJsonValue(QJsonObject{{"type", "function"}, {"function", QJsonObject{{"name", "get_weather"}}}})
                                                  << true;
        QTest::newRow("none ignores parallel") << QByteArray(R"({"type":"none","disable_parallel_tool_use":true})") << QJsonValue("none") << false;
    }
    void toolChoice()
    {
        QFETCH(QByteArray, choice);
        QFETCH(QJsonValue, expected);
        QFETCH(bool, parallelOff);
        const AnthropicRequest request = parseOk(patched(
            R"({"tools":[{"name":"get_weather","input_schema":{"type":"object"}}],"tool_choice":)" + choice + "}"));
        QCOMPARE(request.openAiBody.value("tool_choice"), expected);
        QCOMPARE(request.openAiBody.contains("parallel_tool_calls"), parallelOff);
        if (parallelOff)
            QCOMPARE(request.openAiBody.value("parallel_tool_calls").toBool(true), false);
        const QJsonObject function = request.openAiBody.value("tools").toArray().at(0).toObject().value("function").toObject();
        QVERIFY(!function.contains("description"));
    }

    void toolChoiceWithoutToolsIsNotSent()
    {
        // OpenAI refuses tool_choice without tools; here the only tool was a server tool.
        const AnthropicRequest request = parseOk(patched(
            R"({"tools":[{"type":"bash_20250124","name":"bash"}],"tool_choice":{"type":"any","disable_parallel_tool_use":true}})"));
        QVERIFY(!request.openAiBody.contains("tools"));
        QVERIFY(!request.openAiBody.contains("tool_choice"));
        QVERIFY(!request.openAiBody.contains("parallel_tool_calls"));
        QVERIFY(request.dropped.contains("tool bash (bash_20250124)"));
    }

    void strictToolIsCarried()
    {
        const AnthropicRequest request = parseOk(patched(R"({"tools":[{"type":"custom","name":"f","input_schema":{"type":"object"},"strict":true}]})"));
        QCOMPARE(request.openAiBody.value("tools").toArray().at(0).toObject().value("function").toObject().value("strict").toBool(), true);
    }

    void thinkingEffort_data()
    {
        QTest::addColumn<QByteArray>("thinking");
        QTest::addColumn<QString>("effort");
        QTest::newRow("1024") << QByteArray(R"({"type":"enabled","budget_tokens":1024})") << "low";
        QTest::newRow("4095") << QByteArray(R"({"type":"enabled","budget_tokens":4095})") << "low";
        QTest::newRow("4096") << QByteArray(R"({"type":"enabled","budget_tokens":4096})") << "medium";
        QTest::newRow("16383") << QByteArray(R"({"type":"enabled","budget_tokens":16383})") << "medium";
        QTest::newRow("16384") << QByteArray(R"({"type":"enabled","budget_tokens":16384})") << "high";
        QTest::newRow("disabled") << QByteArray(R"({"type":"disabled"})") << "";
        QTest::newRow("adaptive") << QByteArray(R"({"type":"adaptive"})") << "";
    }
    void thinkingEffort()
    {
        QFETCH(QByteArray, thinking);
        QFETCH(QString, effort);
        const AnthropicRequest request = parseOk(patched(R"({"max_tokens":64000,"thinking":)" + thinking + "}"));
        QCOMPARE(request.openAiBody.value("reasoning_effort").toString(), effort);
        QCOMPARE(request.openAiBody.contains("reasoning_effort"), !effort.isEmpty());
    }

    void samplingAndMetadata()
    {
        const AnthropicRequest request = parseOk(patched(
            R"({"temperature":0.3,"top_p":1,"top_k":5,"metadata":{"user_id":"u-42"},
                "stop_sequences":["a","b","c","d","e"],"service_tier":"auto"})"));
        const QJsonObject &out = request.openAiBody;
        QCOMPARE(out.value("temperature").toDouble(), 0.3);
        QCOMPARE(out.value("top_p").toDouble(), 1.0);
        QVERIFY(!out.contains("top_k"));
        QCOMPARE(out.value("user").toString(), QStringLiteral("u-42"));
        // OpenAI takes four stop sequences; the client's whole list stays for stop_sequence.
        QCOMPARE(out.value("stop").toArray(), (QJsonArray{"a", "b", "c", "d"}));
        QCOMPARE(request.stopSequences, (QStringList{"a", "b", "c", "d", "e"}));
        for (const char *what : {"top_k", "stop_sequences after the fourth", "service_tier"})
            QVERIFY2(request.dropped.contains(QLatin1String(what)), what);
    }

    void nullOptionalFieldsAreAbsent()
    {
        const AnthropicRequest request = parseOk(patched(
            R"({"system":null,"metadata":null,"stream":null,"tools":null,"tool_choice":null,"thinking":null,"stop_sequences":null,"temperature":null})"));
        QCOMPARE(messagesOf(request).size(), 1);
        QVERIFY(!request.stream);
        QCOMPARE(request.openAiBody.keys(), (QStringList{"max_tokens", "messages", "model"}));
    }

    void streamAsksForUsage()
    {
        const AnthropicRequest request = parseOk(patched(R"({"stream":true})"));
        QVERIFY(request.stream);
        QCOMPARE(request.openAiBody.value("stream").toBool(), true);
        QCOMPARE(request.openAiBody.value("stream_options").toObject().value("include_usage").toBool(), true);
    }

    void imageAndDocumentSources()
    {
        const AnthropicRequest request = parseOk(withMessages(R"([{"role":"user","content":[
            {"type":"image","source":{"type":"base64","media_type":"image/webp","data":"UklGRg=="}},
            {"type":"image","source":{"type":"file","file_id":"file_011CNha8iCJcU1wXNR6q4V8w"}},
            {"type":"document","source":{"type":"content","content":[{"type":"text","text":"Cell A1"},
                {"type":"image","source":{"type":"url","url":"https:\/\/example.com/chart.png"}}]},"title":"Sheet"},
            {"type":"document","source":{"type":"content","content":"Plain content"}},
            {"type":"document","source":{"type":"file","file_id":"file_011"}},
            {"type":"search_result","source":"https:\/\/example.com","title":"t","content":[{"type":"text","text":"x"}]}]}])"));
        const QJsonArray parts = messagesOf(request).at(0).toObject().value("content").toArray();
        QCOMPARE(parts.size(), 5);
        QCOMPARE(parts.at(0).toObject().value("image_url").toObject().value("url").toString(), QStringLiteral("data:image/webp;base64,UklGRg=="));
        QCOMPARE(parts.at(1).toObject().value("text").toString(), QStringLiteral("Sheet"));
        QCOMPARE(parts.at(2).toObject().value("text").toString(), QStringLiteral("Cell A1"));
        QCOMPARE(parts.at(3).toObject().value("image_url").toObject().value("url").toString(), QStringLiteral("https://example.com/chart.png"));
        QCOMPARE(parts.at(4).toObject().value("text").toString(), QStringLiteral("Plain content"));
        for (const char *what : {"images given by file_id", "documents given by file_id", "search_result blocks"})
            QVERIFY2(request.dropped.contains(QLatin1String(what)), what);
    }

    void onlyThinkingInAnAssistantTurnLeavesNoMessage()
    {
        const AnthropicRequest request = parseOk(withMessages(R"([
            {"role":"user","content":"Hi"},
            {"role":"assistant","content":[{"type":"redacted_thinking","data":"EmwKAhgB"}]},
            {"role":"user","content":"Still there?"}])"));
        const QJsonArray messages = messagesOf(request);
        QCOMPARE(messages.size(), 2);
        QCOMPARE(messages.at(1).toObject().value("content").toString(), QStringLiteral("Still there?"));
    }

    void countTokensNeedsNoMaxTokens()
    {
        const QByteArray body = test::readAnthropicFixture("count_tokens_request.json");
        AnthropicError error;
        QVERIFY(!AnthropicRequest::parse(body, &error));
        QVERIFY2(error.message.startsWith("max_tokens: Field required"), qPrintable(error.message));
        const AnthropicRequest request = parseOk(body, AnthropicRequest::Purpose::CountTokens);
        QCOMPARE(request.maxTokens, 0);
        QVERIFY(!request.openAiBody.contains("max_tokens"));
        QCOMPARE(messagesOf(request).at(0).toObject(), (QJsonObject{{"role", "system"}, {"content", "You are a scientist"}}));
        // A thinking budget has no max_tokens to stay under there.
        QVERIFY(AnthropicRequest::parse(patched(R"({"max_tokens":"<absent>","thinking":{"type":"enabled","budget_tokens":2048}})"), &error,
                                        AnthropicRequest::Purpose::CountTokens));
    }

    void invalidRequests_data()
    {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<QString>("message"); // how the error message begins: the field, then what is wrong

        QTest::newRow("not JSON") << QByteArray("{\"model\":") << "The request body is not valid JSON";
        QTest::newRow("an array") << QByteArray("[]") << "The request body must be a JSON object";
        QTest::newRow("model missing") << patched(R"({"model":"<absent>"})") << "model: Field required";
        QTest::newRow("model a number") << patched(R"({"model":4})") << "model: Input should be a valid string";
        QTest::newRow("model empty") << patched(R"({"model":""})") << "model: Input should be a non-empty string";
        QTest::newRow("max_tokens missing") << patched(R"({"max_tokens":"<absent>"})") << "max_tokens: Field required. Send";
        QTest::newRow("max_tokens zero") << patched(R"({"max_tokens":0})") << "max_tokens: Input should be greater than or equal to 1";
        QTest::newRow("max_tokens fraction") << patched(R"({"max_tokens":1.5})") << "max_tokens: Input should be a valid integer";
        QTest::newRow("max_tokens a string") << patched(R"({"max_tokens":"100"})") << "max_tokens: Input should be a valid integer";
        QTest::newRow("messages missing") << patched(R"({"messages":"<absent>"})") << "messages: Field required";
        QTest::newRow("messages an object") << patched(R"({"messages":{}})") << "messages: Input should be a valid list";
        QTest::newRow("messages empty") << patched(R"({"messages":[]})") << "messages: At least one message is required";
        QTest::newRow("message not an object") << withMessages("[\"Hi\"]") << "messages.0: Input should be an object";
        QTest::newRow("role missing") << withMessages(R"([{"content":"Hi"}])") << "messages.0.role: Field required";
        QTest::newRow("role tool") << withMessages(R"([{"role":"tool","content":"Hi"}])")
                                   << "messages.0.role: Input should be 'user', 'assistant' or 'system'";
        QTest::newRow("system message of images") << withMessages(R"([{"role":"system","content":[{"type":"image"}]}])")
                                                  << "messages.0.content.0.type: Input should be 'text'";
        QTest::newRow("content missing") << withMessages(R"([{"role":"user"}])") << "messages.0.content: Field required";
        QTest::newRow("content a number") << withMessages(R"([{"role":"user","content":1}])")
                                          << "messages.0.content: Input should be a valid string or a list";
        QTest::newRow("block not an object") << withMessages(R"([{"role":"user","content":["Hi"]}])")
                                             << "messages.0.content.0: Input should be a content block";
        QTest::newRow("block type missing") << withMessages(R"([{"role":"user","content":[{"text":"Hi"}]}])")
                                            << "messages.0.content.0.type: Field required";
        QTest::newRow("text missing") << withMessages(R"([{"role":"user","content":[{"type":"text"}]}])")
                                      << "messages.0.content.0.text: Field required";
        QTest::newRow("text a number") << withMessages(R"([{"role":"assistant","content":[{"type":"text","text":1}]}])")
                                       << "messages.0.content.0.text: Input should be a valid string";
        QTest::newRow("image source missing") << withMessages(R"([{"role":"user","content":[{"type":"image"}]}])")
                                              << "messages.0.content.0.source: Field required";
        QTest::newRow("image media_type") << withMessages(R"([{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/bmp","data":"Qk0="}}]}])")
                                          << "messages.0.content.0.source.media_type: Input should be 'image/jpeg'";
        QTest::newRow("image data missing") << withMessages(R"([{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png"}}]}])")
                                            << "messages.0.content.0.source.data: Field required";
        QTest::newRow("image source type") << withMessages(R"([{"role":"user","content":[{"type":"image","source":{"type":"ftp"}}]}])")
                                           << "messages.0.content.0.source.type: Input should be 'base64', 'url' or 'file'";
        QTest::newRow("image url missing") << withMessages(R"([{"role":"user","content":[{"type":"image","source":{"type":"url"}}]}])")
                                           << "messages.0.content.0.source.url: Field required";
        QTest::newRow("pdf media_type") << withMessages(R"([{"role":"user","content":[{"type":"document","source":{"type":"base64","media_type":"text/plain","data":"eA=="}}]}])")
                                        << "messages.0.content.0.source.media_type: Input should be 'application/pdf'";
        QTest::newRow("text document media_type") << withMessages(R"([{"role":"user","content":[{"type":"document","source":{"type":"text","media_type":"text/html","data":"x"}}]}])")
                                                  << "messages.0.content.0.source.media_type: Input should be 'text/plain'";
        QTest::newRow("document source type") << withMessages(R"([{"role":"user","content":[{"type":"document","source":{"type":"zip"}}]}])")
                                              << "messages.0.content.0.source.type: Input should be 'base64', 'text', 'content', 'url' or 'file'";
        QTest::newRow("document title a number") << withMessages(R"([{"role":"user","content":[{"type":"document","title":3,"source":{"type":"text","media_type":"text/plain","data":"x"}}]}])")
                                                 << "messages.0.content.0.title: Input should be a valid string";
        QTest::newRow("tool_result without id") << withMessages(R"([{"role":"user","content":[{"type":"tool_result","content":"15 degrees"}]}])")
                                                << "messages.0.content.0.tool_use_id: Field required";
        QTest::newRow("tool_result is_error") << withMessages(R"([{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","is_error":"yes"}]}])")
                                              << "messages.0.content.0.is_error: Input should be a valid boolean";
        QTest::newRow("tool_result content a number") << withMessages(R"([{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":5}]}])")
                                                      << "messages.0.content.0.content: Input should be a valid string or a list";
        QTest::newRow("tool_result block text missing") << withMessages(R"([{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text"}]}]}])")
                                                        << "messages.0.content.0.content.0.text: Field required";
        QTest::newRow("tool_use in a user turn") << withMessages(R"([{"role":"user","content":[{"type":"tool_use","id":"t","name":"f","input":{}}]}])")
                                                 << "messages.0.content.0.type: tool_use blocks belong in an assistant turn";
        QTest::newRow("tool_result in an assistant turn") << withMessages(R"([{"role":"user","content":"Hi"},{"role":"assistant","content":[{"type":"tool_result","tool_use_id":"t"}]}])")
                                                          << "messages.1.content.0.type: tool_result blocks belong in a user turn";
        QTest::newRow("tool_use without id") << withMessages(R"([{"role":"user","content":"Hi"},{"role":"assistant","content":[{"type":"tool_use","name":"f","input":{}}]}])")
                                             << "messages.1.content.0.id: Field required";
        QTest::newRow("tool_use without name") << withMessages(R"([{"role":"user","content":"Hi"},{"role":"assistant","content":[{"type":"tool_use","id":"t","input":{}}]}])")
                                               << "messages.1.content.0.name: Field required";
        QTest::newRow("tool_use without input") << withMessages(R"([{"role":"user","content":"Hi"},{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f"}]}])")
                                                << "messages.1.content.0.input: Field required";
        QTest::newRow("tool_use input a string") << withMessages(R"([{"role":"user","content":"Hi"},{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":"{}"}]}])")
                                                 << "messages.1.content.0.input: Input should be a valid dictionary";
        QTest::newRow("thinking without signature") << withMessages(R"([{"role":"user","content":"Hi"},{"role":"assistant","content":[{"type":"thinking","thinking":"hm"}]}])")
                                                    << "messages.1.content.0.signature: Field required";
        QTest::newRow("redacted_thinking without data") << withMessages(R"([{"role":"user","content":"Hi"},{"role":"assistant","content":[{"type":"redacted_thinking"}]}])")
                                                        << "messages.1.content.0.data: Field required";
        QTest::newRow("system a number") << patched(R"({"system":1})") << "system: Input should be a valid string or a list of text blocks";
        QTest::newRow("system image block") << patched(R"({"system":[{"type":"image","source":{}}]})") << "system.0.type: Input should be 'text'";
        QTest::newRow("system block text missing") << patched(R"({"system":[{"type":"text"}]})") << "system.0.text: Field required";
        QTest::newRow("stop_sequences a string") << patched(R"({"stop_sequences":"END"})") << "stop_sequences: Input should be a valid list";
        QTest::newRow("stop_sequences a number") << patched(R"({"stop_sequences":["END",1]})") << "stop_sequences.1: Input should be a valid string";
        QTest::newRow("temperature above 1") << patched(R"({"temperature":1.5})") << "temperature: Input should be less than or equal to 1";
        QTest::newRow("temperature a string") << patched(R"({"temperature":"hot"})") << "temperature: Input should be a valid number";
        QTest::newRow("top_p below 0") << patched(R"({"top_p":-0.1})") << "top_p: Input should be greater than or equal to 0";
        QTest::newRow("top_k negative") << patched(R"({"top_k":-1})") << "top_k: Input should be greater than or equal to 0";
        QTest::newRow("top_k fraction") << patched(R"({"top_k":2.5})") << "top_k: Input should be a valid integer";
        QTest::newRow("metadata a string") << patched(R"({"metadata":"x"})") << "metadata: Input should be a valid dictionary";
        QTest::newRow("metadata.user_id a number") << patched(R"({"metadata":{"user_id":5}})") << "metadata.user_id: Input should be a valid string";
        QTest::newRow("stream a string") << patched(R"({"stream":"yes"})") << "stream: Input should be a valid boolean";
        QTest::newRow("tools an object") << patched(R"({"tools":{}})") << "tools: Input should be a valid list";
        QTest::newRow("tool not an object") << patched(R"({"tools":["f"]})") << "tools.0: Input should be a tool object";
        QTest::newRow("tool name missing") << patched(R"({"tools":[{"input_schema":{"type":"object"}}]})") << "tools.0.name: Field required";
        QTest::newRow("tool input_schema missing") << patched(R"({"tools":[{"name":"f"}]})") << "tools.0.input_schema: Field required";
        QTest::newRow("tool input_schema a string") << patched(R"({"tools":[{"name":"f","input_schema":"object"}]})")
                                                    << "tools.0.input_schema: Input should be a valid dictionary";
        QTest::newRow("tool description a number") << patched(R"({"tools":[{"name":"f","description":1,"input_schema":{}}]})")
                                                   << "tools.0.description: Input should be a valid string";
        QTest::newRow("tool_choice a string") << patched(R"({"tool_choice":"auto"})") << "tool_choice: Input should be an object";
        QTest::newRow("tool_choice tool without name") << patched(R"({"tool_choice":{"type":"tool"}})") << "tool_choice.name: Field required";
        QTest::newRow("tool_choice type") << patched(R"({"tool_choice":{"type":"sometimes"}})") << "tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none'";
        QTest::newRow("tool_choice parallel a string") << patched(R"({"tool_choice":{"type":"auto","disable_parallel_tool_use":"yes"}})")
                                                       << "tool_choice.disable_parallel_tool_use: Input should be a valid boolean";
        QTest::newRow("thinking a boolean") << patched(R"({"thinking":true})") << "thinking: Input should be an object";
        QTest::newRow("thinking type") << patched(R"({"thinking":{"type":"on"}})") << "thinking.type: Input should be 'enabled', 'disabled' or 'adaptive'";
        QTest::newRow("thinking budget missing") << patched(R"({"thinking":{"type":"enabled"}})") << "thinking.budget_tokens: Field required";
        QTest::newRow("thinking budget small") << patched(R"({"max_tokens":4000,"thinking":{"type":"enabled","budget_tokens":512}})")
                                               << "thinking.budget_tokens: Input should be greater than or equal to 1024";
        QTest::newRow("thinking budget over max_tokens") << patched(R"({"max_tokens":2000,"thinking":{"type":"enabled","budget_tokens":2000}})")
                                                         << "thinking.budget_tokens: Input should be less than max_tokens (2000)";
    }
    void invalidRequests()
    {
        QFETCH(QByteArray, body);
        QFETCH(QString, message);
        AnthropicError error;
        error.status = 0;
        QVERIFY(!AnthropicRequest::parse(body, &error));
        QCOMPARE(error.status, 400);
        QCOMPARE(error.type, QStringLiteral("invalid_request_error"));
        QVERIFY2(error.message.startsWith(message), qPrintable(error.message));
        QVERIFY2(error.message.endsWith(QLatin1Char('.')), qPrintable(error.message));
        // The same body for count_tokens fails the same way, unless only max_tokens is wrong.
        if (!message.startsWith("max_tokens") && !message.contains("less than max_tokens"))
            QVERIFY(!AnthropicRequest::parse(body, &error, AnthropicRequest::Purpose::CountTokens));
    }

    void errorPointerMayBeNull()
    {
        QVERIFY(!AnthropicRequest::parse("{}", nullptr));
        QVERIFY(!AnthropicRequest::parse("nonsense", nullptr));
    }
};

QTEST_GUILESS_MAIN(tst_AnthropicRequest)
#include "tst_AnthropicRequest.moc"
