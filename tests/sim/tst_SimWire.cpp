#include "sim/ChunkSplitter.h"
#include "sim/DialectWire.h"
#include "sim/SimText.h"

#include "FakeRandom.h"
#include "../unit/frontends/ResponsesWire.h" // the Responses stream grammar the front door's tests hold streams to

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace sb::sim;

namespace {

struct Event {
    QByteArray name;
    QByteArray data;
};

// A deliberately small SSE reader (blank line ends an event; CRLF or LF), independent of the code
// under test, so the test checks the bytes the simulator writes rather than trusting it.
std::vector<Event> events(QByteArray stream)
{
    stream.replace("\r\n", "\n");
    std::vector<Event> out;
    qsizetype start = 0;
    while (start < stream.size()) {
        qsizetype end = stream.indexOf("\n\n", start);
        if (end < 0)
            end = stream.size();
        Event e;
        for (const QByteArray &line : stream.mid(start, end - start).split('\n')) {
            if (line.startsWith("event:"))
                e.name = line.mid(6).trimmed();
            else if (line.startsWith("data:"))
                e.data = line.mid(5).startsWith(' ') ? line.mid(6) : line.mid(5);
        }
        if (!e.data.isEmpty() || !e.name.isEmpty())
            out.push_back(e);
        start = end + 2;
    }
    return out;
}

QJsonObject json(const QByteArray &bytes)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &error);
    if (error.error != QJsonParseError::NoError)
        qWarning() << "bad JSON" << bytes << error.errorString();
    return doc.object();
}

// The answer text carried by one event of a dialect's stream, and whether it is the end marker.
QString deltaText(Dialect d, const Event &e, bool *end)
{
    const QJsonObject o = json(e.data);
    switch (d) {
    case Dialect::OpenAiCompat: {
        const QJsonArray choices = o.value("choices").toArray();
        if (!choices.isEmpty() && choices[0].toObject().value("finish_reason").toString() == QLatin1String("stop"))
            *end = true;
        return choices.isEmpty() ? QString() : choices[0].toObject().value("delta").toObject().value("content").toString();
    }
    case Dialect::Anthropic:
        if (e.name == "message_stop")
            *end = true;
        return e.name == "content_block_delta" ? o.value("delta").toObject().value("text").toString() : QString();
    case Dialect::Gemini: {
        const QJsonObject c = o.value("candidates").toArray().at(0).toObject();
        if (c.value("finishReason").toString() == QLatin1String("STOP"))
            *end = true;
        return c.value("content").toObject().value("parts").toArray().at(0).toObject().value("text").toString();
    }
    case Dialect::DashScope: {
        const QJsonObject choice = o.value("output").toObject().value("choices").toArray().at(0).toObject();
        if (choice.value("finish_reason").toString() == QLatin1String("stop"))
            *end = true;
        return choice.value("message").toObject().value("content").toString();
    }
    case Dialect::Ernie:
        if (o.value("is_end").toBool())
            *end = true;
        return o.value("result").toString();
    }
    return {};
}

} // namespace

Q_DECLARE_METATYPE(sb::sim::Dialect)

class tst_SimWire : public QObject {
    Q_OBJECT

private slots:
    void dialects_data()
    {
        QTest::addColumn<Dialect>("dialect");
        QTest::newRow("openai_compat") << Dialect::OpenAiCompat;
        QTest::newRow("anthropic") << Dialect::Anthropic;
        QTest::newRow("gemini") << Dialect::Gemini;
        QTest::newRow("dashscope") << Dialect::DashScope;
        QTest::newRow("ernie") << Dialect::Ernie;
    }

    void streamCarriesTheWholeTextAndEndsWithTheDialectsMarker_data() { dialects_data(); }
    void streamCarriesTheWholeTextAndEndsWithTheDialectsMarker()
    {
        QFETCH(Dialect, dialect);
        const DialectWire wire(dialect);
        SimRequest request;
        request.kind = SimRequest::Kind::Chat;
        request.model = QStringLiteral("m");
        request.promptTokens = 5;
        const auto tokens = SimText::tokens(Language::Mixed, 20, 3);
        QByteArray stream = wire.streamHead(request, "id1");
        for (int i = 0; i < int(tokens.size()); ++i)
            stream += wire.streamDelta(request, "id1", tokens[std::size_t(i)], i);
        stream += wire.streamTail(request, "id1", int(tokens.size()));
        QString text;
        bool end = false;
        for (const Event &e : events(stream)) {
            if (e.data == "[DONE]")
                continue;
            QVERIFY2(!end || dialect == Dialect::OpenAiCompat, "nothing but usage may follow the end marker");
            text += deltaText(dialect, e, &end);
        }
        QVERIFY(end);
        QCOMPARE(text, QString::fromUtf8(SimText::join(tokens)));
        if (dialect == Dialect::OpenAiCompat)
            QVERIFY(stream.endsWith("data: [DONE]\n\n"));
        if (dialect == Dialect::Gemini)
            QVERIFY(stream.endsWith("\r\n\r\n"));
    }

    void theResponsesApiStreamsInOpenAisGrammar()
    {
        const DialectWire wire(Dialect::OpenAiCompat);
        const SimRequest request = wire.parse("POST", "/v1/responses", {}, sb::HttpHeaders(), R"({"model":"m","input":"Hi","stream":true})");
        QVERIFY(request.responses);
        const auto tokens = SimText::tokens(Language::Mixed, 20, 3);
        QByteArray stream = wire.streamHead(request, "id1");
        for (int i = 0; i < int(tokens.size()); ++i)
            stream += wire.streamDelta(request, "id1", tokens[std::size_t(i)], i);
        const QByteArray half = stream;
        stream += wire.streamTail(request, "id1", int(tokens.size()), SimText::join(tokens));
        const QList<sb::test::WireEvent> events = sb::test::parseEvents(stream);
        QCOMPARE(sb::test::responsesGrammarViolation(events), QString());
        const QJsonObject final = sb::test::accumulateResponse(events);
        QCOMPARE(final.value("output")[0]["content"][0]["text"].toString(), QString::fromUtf8(SimText::join(tokens)));
        QCOMPARE(events.last().data.value("response")["usage"]["output_tokens"].toInt(), int(tokens.size()));

        // Its failures: response.failed after the stream's start, an error event mid-stream, OpenAI's error bodies.
        const QList<sb::test::WireEvent> failed = sb::test::parseEvents(wire.firstEventError(request, "id1"));
        QCOMPARE(sb::test::responsesGrammarViolation(failed), QString());
        QCOMPARE(failed.last().data.value("response")["error"]["code"].toString(), QStringLiteral("server_error"));
        QCOMPARE(sb::test::parseEvents(wire.firstEventRateLimit(request, "id1")).last().data.value("response")["error"]["code"].toString(),
                 QStringLiteral("rate_limit_exceeded"));
        const QList<sb::test::WireEvent> broken = sb::test::parseEvents(half + wire.midStreamError(request, "id1", int(tokens.size())));
        QCOMPARE(broken.last().name, QByteArray("error"));
        QCOMPARE(broken.last().data.value("sequence_number").toInt(), int(broken.size()) - 1);
        QCOMPARE(broken.last().data.value("code").toString(), QStringLiteral("server_error"));
        const QJsonObject whole = QJsonDocument::fromJson(wire.complete(request, "id1", "Hi", 1).body).object();
        QCOMPARE(whole.value("object").toString(), QStringLiteral("response"));
        QCOMPARE(whole.value("output")[0]["content"][0]["text"].toString(), QStringLiteral("Hi"));
        QVERIFY(!DialectWire(Dialect::OpenAiCompat).parse("POST", "/v1/chat/completions", {}, sb::HttpHeaders(), "{}").responses);
    }

    void completeBodyCarriesTextAndUsage_data() { dialects_data(); }
    void completeBodyCarriesTextAndUsage()
    {
        QFETCH(Dialect, dialect);
        const DialectWire wire(dialect);
        SimRequest request;
        request.model = QStringLiteral("m");
        request.promptTokens = 7;
        const QByteArray text = "Xin chào, 你好";
        const SimReply reply = wire.complete(request, "id2", text, 4);
        QCOMPARE(reply.status, 200);
        const QJsonObject o = json(reply.body);
        QString got;
        int completion = -1;
        switch (dialect) {
        case Dialect::OpenAiCompat:
            got = o["choices"].toArray()[0].toObject()["message"].toObject()["content"].toString();
            completion = o["usage"].toObject()["completion_tokens"].toInt();
            break;
        case Dialect::Anthropic:
            got = o["content"].toArray()[0].toObject()["text"].toString();
            completion = o["usage"].toObject()["output_tokens"].toInt();
            QCOMPARE(o["stop_reason"].toString(), QStringLiteral("end_turn"));
            break;
        case Dialect::Gemini:
            got = o["candidates"].toArray()[0].toObject()["content"].toObject()["parts"].toArray()[0].toObject()["text"].toString();
            completion = o["usageMetadata"].toObject()["candidatesTokenCount"].toInt();
            break;
        case Dialect::DashScope:
            got = o["output"].toObject()["choices"].toArray()[0].toObject()["message"].toObject()["content"].toString();
            completion = o["usage"].toObject()["output_tokens"].toInt();
            break;
        case Dialect::Ernie:
            got = o["result"].toString();
            completion = o["usage"].toObject()["completion_tokens"].toInt();
            QVERIFY(!o.contains("error_code"));
            break;
        }
        QCOMPARE(got, QString::fromUtf8(text));
        QCOMPARE(completion, 4);
    }

    void parsesEachDialectsRequest()
    {
        sb::HttpHeaders bearer;
        bearer.add("Authorization", "Bearer sk-1");
        SimRequest r = DialectWire(Dialect::OpenAiCompat)
                           .parse("POST", "/v1/chat/completions", "", bearer, R"({"model":"gpt-4o","stream":true})");
        QCOMPARE(r.kind, SimRequest::Kind::Chat);
        QVERIFY(r.stream);
        QCOMPARE(r.model, QStringLiteral("gpt-4o"));
        QCOMPARE(r.apiKey, QByteArray("sk-1"));

        sb::HttpHeaders anthropic;
        anthropic.add("x-api-key", "ak-2");
        r = DialectWire(Dialect::Anthropic).parse("POST", "/v1/messages", "", anthropic, R"({"model":"claude","stream":false})");
        QCOMPARE(r.kind, SimRequest::Kind::Chat);
        QVERIFY(!r.stream);
        QCOMPARE(r.apiKey, QByteArray("ak-2"));

        r = DialectWire(Dialect::Gemini).parse("POST", "/v1beta/models/gemini-2.0-flash:streamGenerateContent", "alt=sse&key=g-3", {}, "{}");
        QCOMPARE(r.kind, SimRequest::Kind::Chat);
        QVERIFY(r.stream);
        QCOMPARE(r.model, QStringLiteral("gemini-2.0-flash"));
        QCOMPARE(r.apiKey, QByteArray("g-3"));
        sb::HttpHeaders goog;
        goog.add("x-goog-api-key", "g-4");
        r = DialectWire(Dialect::Gemini).parse("POST", "/v1beta/models/gemini-pro:generateContent", "", goog, "{}");
        QVERIFY(!r.stream);
        QCOMPARE(r.apiKey, QByteArray("g-4"));

        sb::HttpHeaders sse = bearer;
        sse.add("X-DashScope-SSE", "enable");
        r = DialectWire(Dialect::DashScope)
                .parse("POST", "/api/v1/services/aigc/text-generation/generation", "", sse, R"({"model":"qwen-plus"})");
        QCOMPARE(r.kind, SimRequest::Kind::Chat);
        QVERIFY(r.stream);
        QCOMPARE(r.model, QStringLiteral("qwen-plus"));

        r = DialectWire(Dialect::Ernie)
                .parse("POST", "/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/completions_pro", "access_token=e-5", {}, R"({"stream":true})");
        QCOMPARE(r.kind, SimRequest::Kind::Chat);
        QVERIFY(r.stream);
        QCOMPARE(r.model, QStringLiteral("completions_pro"));
        QCOMPARE(r.apiKey, QByteArray("e-5"));

        QCOMPARE(DialectWire(Dialect::Gemini).parse("GET", "/v1beta/models", "", {}, {}).kind, SimRequest::Kind::Probe);
        QCOMPARE(DialectWire(Dialect::OpenAiCompat).parse("POST", "/v1/nothing", "", {}, {}).kind, SimRequest::Kind::Unknown);
    }

    void errorsUseEachDialectsShape()
    {
        // 429 with Retry-After, in every dialect's error body.
        QCOMPARE(DialectWire(Dialect::OpenAiCompat).httpError(429, 3).headers.value("retry-after"), QByteArray("3"));
        QVERIFY(!DialectWire(Dialect::OpenAiCompat).httpError(429, 0).headers.contains("retry-after"));
        QCOMPARE(json(DialectWire(Dialect::Anthropic).httpError(503).body)["error"].toObject()["type"].toString(),
                 QStringLiteral("overloaded_error"));
        const QJsonObject gemini = json(DialectWire(Dialect::Gemini).httpError(429).body)["error"].toObject();
        QCOMPARE(gemini["status"].toString(), QStringLiteral("RESOURCE_EXHAUSTED"));
        QCOMPARE(gemini["code"].toInt(), 429);
        QCOMPARE(json(DialectWire(Dialect::DashScope).httpError(429).body)["code"].toString(), QStringLiteral("Throttling.RateQuota"));
        QCOMPARE(json(DialectWire(Dialect::Ernie).httpError(500).body)["error_code"].toInt(), 336100);

        // Rate limits buried in a 200 body: Qwen's code, ERNIE's error_code 18.
        SimReply body = DialectWire(Dialect::DashScope).bodyRateLimit();
        QCOMPARE(body.status, 200);
        QCOMPARE(json(body.body)["code"].toString(), QStringLiteral("Throttling.RateQuota"));
        body = DialectWire(Dialect::Ernie).bodyRateLimit();
        QCOMPARE(body.status, 200);
        QCOMPARE(json(body.body)["error_code"].toInt(), 18);
        QCOMPARE(DialectWire(Dialect::Ernie).keyRateLimited(5).status, 200);
        QCOMPARE(DialectWire(Dialect::OpenAiCompat).keyRateLimited(5).status, 429);

        // Error events: Anthropic names them, DashScope carries the status in a comment.
        QVERIFY(DialectWire(Dialect::Anthropic).errorEvent("x").startsWith("event: error\ndata: "));
        QVERIFY(DialectWire(Dialect::DashScope).rateLimitEvent("x").contains(":HTTP_STATUS/429\n"));
        const auto evs = events(DialectWire(Dialect::OpenAiCompat).errorEvent("x"));
        QCOMPARE(evs.size(), std::size_t(1));
        QVERIFY(json(evs[0].data).contains("error"));

        QCOMPARE(DialectWire(Dialect::OpenAiCompat).unknownKey().status, 401);
        QCOMPARE(json(DialectWire(Dialect::Ernie).unknownKey().body)["error_code"].toInt(), 110);
    }

    void probesListModelsAndFailWhileDown()
    {
        const QStringList models{"a", "b"};
        QCOMPARE(json(DialectWire(Dialect::OpenAiCompat).probe(models, false).body)["data"].toArray().size(), 2);
        QCOMPARE(json(DialectWire(Dialect::Gemini).probe(models, false).body)["models"].toArray()[0].toObject()["name"].toString(),
                 QStringLiteral("models/a"));
        QCOMPARE(DialectWire(Dialect::Anthropic).probe(models, true).status, 503);
    }

    void textInEveryLanguageIsValidUtf8()
    {
        for (Language l : {Language::English, Language::Chinese, Language::Vietnamese, Language::Mixed}) {
            const QByteArray text = SimText::join(SimText::tokens(l, 50, 1));
            QVERIFY(!text.isEmpty());
            QCOMPARE(QString::fromUtf8(text).toUtf8(), text);
            QVERIFY(!QString::fromUtf8(text).contains(QChar::ReplacementCharacter));
        }
        QVERIFY(SimText::join(SimText::tokens(Language::Chinese, 5)).size() > 5 * 2); // multi-byte
        QVERIFY(SimText::tokens(Language::English, 3, 0) != SimText::tokens(Language::English, 3, 1));
    }

    void aContinuationGoesOnInTheLanguageOfTheAnswerItContinues()
    {
        const QByteArray english = SimText::join(SimText::tokens(Language::English, 24, 7));
        const QByteArray partial = english.left(30);
        // A Vietnamese provider asked to go on with an English answer finishes that answer.
        const auto rest = SimText::continuation(Language::Vietnamese, 24, partial, 0);
        QVERIFY(rest);
        QCOMPARE(partial + SimText::join(*rest), english);
        // With a repeat, the repeat comes from the English text too.
        const auto repeated = SimText::continuation(Language::Chinese, 24, partial, 5);
        QVERIFY(repeated);
        QCOMPARE(SimText::join(*repeated), english.mid(25));
        // A partial answer no passage begins with gets none.
        QVERIFY(!SimText::continuation(Language::English, 24, "Nothing the passages say", 0));
    }

    void bytesChunkingSplitsCharactersAndEventsAnywhere()
    {
        sb::test::FakeRandom random(11);
        ChunkingSpec spec;
        spec.mode = ChunkingSpec::Mode::Bytes;
        spec.minBytes = 1;
        spec.maxBytes = 7;
        ChunkSplitter splitter(spec, random);
        const DialectWire wire(Dialect::OpenAiCompat);
        SimRequest request;
        QByteArray input;
        std::vector<QByteArray> pieces;
        std::vector<qsizetype> eventEnds;
        const auto tokens = SimText::tokens(Language::Chinese, 40, 0);
        for (int i = 0; i < int(tokens.size()); ++i) {
            const QByteArray event = wire.streamDelta(request, "id", tokens[std::size_t(i)], i);
            input += event;
            eventEnds.push_back(input.size());
            for (QByteArray &p : splitter.feed(event)) {
                QVERIFY(p.size() >= 1 && p.size() <= 7);
                pieces.push_back(p);
            }
        }
        pieces.push_back(splitter.flush());
        QCOMPARE(splitter.pending(), qsizetype(0));
        QByteArray joined;
        int splitCharacters = 0;
        int splitEvents = 0;
        for (const QByteArray &p : pieces) {
            joined += p;
            const qsizetype boundary = joined.size();
            if (boundary < input.size() && (static_cast<unsigned char>(input[boundary]) & 0xC0) == 0x80)
                ++splitCharacters; // the next write starts with a UTF-8 continuation byte
            if (std::find(eventEnds.begin(), eventEnds.end(), boundary) == eventEnds.end())
                ++splitEvents;
        }
        QCOMPARE(joined, input);
        QVERIFY2(splitCharacters > 5, qPrintable(QString::number(splitCharacters)));
        QVERIFY(splitEvents > 20);
    }

    void eventChunkingWritesWholeEvents()
    {
        sb::test::FakeRandom random(1);
        ChunkSplitter splitter(ChunkingSpec{}, random);
        const auto pieces = splitter.feed("data: x\n\n");
        QCOMPARE(pieces.size(), std::size_t(1));
        QCOMPARE(pieces[0], QByteArray("data: x\n\n"));
        QVERIFY(splitter.flush().isEmpty());
    }
};

QTEST_APPLESS_MAIN(tst_SimWire)
#include "tst_SimWire.moc"
