// Every gemini wire fixture (tests/fixtures/gemini/manifest.json) through the dialect's ErrorMap
// (ProviderAdapter::classify + chatResponse) and its StreamTranslator, the streams cut into 5-byte
// pieces and parsed by the real SseParser.
#include "providers/gemini/GeminiAdapter.h"
#include "stream/SseParser.h"

#include "TestPaths.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace sb;

namespace {

QByteArray readFixture(const QString &name)
{
    QFile f(test::sourcePath(QStringLiteral("tests/fixtures/gemini/") + name));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("missing fixture %s", qPrintable(f.fileName()));
    return f.readAll();
}

QJsonObject manifest()
{
    return QJsonDocument::fromJson(readFixture(QStringLiteral("manifest.json"))).object();
}

std::vector<SseEvent> parseEvents(const QByteArray &bytes)
{
    SseParser parser;
    std::vector<SseEvent> events;
    for (qsizetype at = 0; at < bytes.size(); at += 5) // upstreams cut anywhere; so do we
        for (SseEvent &e : parser.feed(bytes.mid(at, 5)))
            events.push_back(std::move(e));
    for (SseEvent &e : parser.finish())
        events.push_back(std::move(e));
    return events;
}

// What a client would have seen, plus everything that is wrong with the chunks' shape.
struct StreamRun {
    std::optional<Outcome> error;
    bool finished = false;
    QString content;
    QString reasoning;
    QString finishReason;
    int finishChunks = 0;
    QStringList toolNames;
    QString toolArguments;
    std::optional<TokenUsage> usage;
    QJsonObject usageChunk;
    int usageChunks = 0;
    int stepsWithoutChunks = 0; // events that produced nothing at once
    QStringList problems;
};

void collect(StreamRun &run, const StreamStep &step)
{
    for (const QByteArray &bytes : step.chunks) {
        QJsonParseError pe{};
        const QJsonObject chunk = QJsonDocument::fromJson(bytes, &pe).object();
        if (pe.error != QJsonParseError::NoError) {
            run.problems << QStringLiteral("chunk is not JSON: ") + QString::fromUtf8(bytes);
            continue;
        }
        if (chunk.value(QLatin1String("object")).toString() != QLatin1String("chat.completion.chunk"))
            run.problems << QStringLiteral("wrong object: ") + QString::fromUtf8(bytes);
        if (chunk.value(QLatin1String("created")).toInteger() <= 0)
            run.problems << QStringLiteral("created not set: ") + QString::fromUtf8(bytes);
        if (chunk.value(QLatin1String("id")).toString().isEmpty() || !chunk.contains(QLatin1String("created"))
            || !chunk.contains(QLatin1String("model")))
            run.problems << QStringLiteral("missing id/created/model: ") + QString::fromUtf8(bytes);
        const QJsonArray choices = chunk.value(QLatin1String("choices")).toArray();
        if (choices.isEmpty()) {
            if (!chunk.value(QLatin1String("usage")).isObject())
                run.problems << QStringLiteral("a chunk without choices must carry usage");
            run.usageChunk = chunk.value(QLatin1String("usage")).toObject();
            ++run.usageChunks;
            continue;
        }
        if (run.usageChunks > 0 || run.finishChunks > 0)
            run.problems << QStringLiteral("content after the finishing/usage chunk");
        const QJsonObject choice = choices.first().toObject();
        if (choice.value(QLatin1String("index")).toInt(-1) != 0 || !choice.value(QLatin1String("delta")).isObject())
            run.problems << QStringLiteral("choice without index 0 / delta: ") + QString::fromUtf8(bytes);
        const QJsonObject delta = choice.value(QLatin1String("delta")).toObject();
        run.content += delta.value(QLatin1String("content")).toString();
        run.reasoning += delta.value(QLatin1String("reasoning_content")).toString();
        for (const QJsonValue &c : delta.value(QLatin1String("tool_calls")).toArray()) {
            const QJsonObject call = c.toObject();
            if (!call.contains(QLatin1String("index")))
                run.problems << QStringLiteral("tool call delta without index");
            const QJsonObject fn = call.value(QLatin1String("function")).toObject();
            if (!fn.value(QLatin1String("name")).toString().isEmpty())
                run.toolNames << fn.value(QLatin1String("name")).toString();
            run.toolArguments += fn.value(QLatin1String("arguments")).toString();
        }
        if (!choice.value(QLatin1String("finish_reason")).isNull()) {
            run.finishReason = choice.value(QLatin1String("finish_reason")).toString();
            ++run.finishChunks;
        }
    }
    if (step.usage)
        run.usage = step.usage;
    run.finished = run.finished || step.finished;
}

StreamRun runStream(const std::vector<SseEvent> &events, bool includeUsage)
{
    QJsonObject body{{QStringLiteral("model"), QStringLiteral("logical-model")}, {QStringLiteral("stream"), true}};
    if (includeUsage)
        body.insert(QStringLiteral("stream_options"), QJsonObject{{QStringLiteral("include_usage"), true}});
    const GeminiAdapter adapter;
    std::unique_ptr<StreamTranslator> translator = adapter.streamTranslator(body);
    translator->setCreated(1764460800); // what the caller does from Clock::wallMillis()
    StreamRun run;
    for (const SseEvent &event : events) {
        const StreamStep step = translator->onEvent(event);
        if (step.chunks.empty() && !step.error)
            ++run.stepsWithoutChunks;
        collect(run, step);
        if (step.error) {
            run.error = step.error;
            return run; // the caller stops reading at an error
        }
    }
    const StreamStep end = translator->onEnd();
    collect(run, end);
    if (end.error)
        run.error = end.error;
    return run;
}

OutcomeKind expectedKind(const QJsonObject &c)
{
    const auto kind = outcomeKindFromString(c.value(QLatin1String("expect")).toString());
    if (!kind)
        qFatal("bad expect in manifest");
    return *kind;
}

void addRows(const char *section)
{
    QTest::addColumn<QJsonObject>("c");
    const QJsonArray cases = manifest().value(QLatin1String(section)).toArray();
    QVERIFY(cases.size() >= 5);
    int i = 0;
    for (const QJsonValue &v : cases) {
        const QJsonObject c = v.toObject();
        QTest::addRow("%d:%s@%d", i++, qPrintable(c.value(QLatin1String("file")).toString()), c.value(QLatin1String("status")).toInt(200)) << c;
    }
}

} // namespace

class tst_GeminiFixtures : public QObject {
    Q_OBJECT
private slots:
    void responsesThroughErrorMap_data() { addRows("responses"); }
    void responsesThroughErrorMap()
    {
        QFETCH(QJsonObject, c);
        const QByteArray body = readFixture(c.value(QLatin1String("file")).toString());
        HttpHeaders headers;
        const QJsonObject h = c.value(QLatin1String("headers")).toObject();
        for (auto it = h.begin(); it != h.end(); ++it)
            headers.add(it.key().toUtf8(), it.value().toString().toUtf8());
        const int status = c.value(QLatin1String("status")).toInt(200);

        const GeminiAdapter adapter;
        const Outcome o = adapter.classify(status, headers, body);
        QCOMPARE(toString(o.kind), toString(expectedKind(c)));
        QCOMPARE(o.httpStatus, status);
        if (c.contains(QLatin1String("providerCode")))
            QCOMPARE(o.providerCode, c.value(QLatin1String("providerCode")).toString());
        if (c.contains(QLatin1String("retryAfterMs"))) {
            QVERIFY(o.retryAfter.has_value());
            QCOMPARE(qint64(o.retryAfter->count()), qint64(c.value(QLatin1String("retryAfterMs")).toInt()));
        }
        if (!o.isSuccess()) {
            QVERIFY2(!o.message.isEmpty(), "an error must explain itself");
            return;
        }
        if (!c.contains(QLatin1String("finishReason")))
            return; // e.g. an embeddings body: success is all the manifest claims

        TokenUsage usage;
        const QJsonObject completion = adapter.chatResponse(body, &usage);
        QCOMPARE(completion.value(QLatin1String("object")).toString(), QStringLiteral("chat.completion"));
        const QJsonObject choice = completion.value(QLatin1String("choices")).toArray().first().toObject();
        QCOMPARE(choice.value(QLatin1String("finish_reason")).toString(), c.value(QLatin1String("finishReason")).toString());
        const QJsonObject message = choice.value(QLatin1String("message")).toObject();
        QCOMPARE(message.value(QLatin1String("role")).toString(), QStringLiteral("assistant"));
        if (c.contains(QLatin1String("content")))
            QCOMPARE(message.value(QLatin1String("content")).toString(), c.value(QLatin1String("content")).toString());
        if (c.contains(QLatin1String("toolCalls"))) {
            const QJsonArray calls = message.value(QLatin1String("tool_calls")).toArray();
            QCOMPARE(calls.size(), c.value(QLatin1String("toolCalls")).toArray().size());
            const QJsonObject fn = calls.first().toObject().value(QLatin1String("function")).toObject();
            QCOMPARE(fn.value(QLatin1String("name")).toString(), c.value(QLatin1String("toolCalls")).toArray().first().toString());
            QVERIFY(QJsonDocument::fromJson(fn.value(QLatin1String("arguments")).toString().toUtf8()).isObject());
            QVERIFY(!calls.first().toObject().value(QLatin1String("id")).toString().isEmpty());
        }
        if (c.contains(QLatin1String("usage"))) {
            const QJsonArray u = c.value(QLatin1String("usage")).toArray();
            QCOMPARE(usage.promptTokens, u.at(0).toInt());
            QCOMPARE(usage.completionTokens, u.at(1).toInt());
            QCOMPARE(usage.totalTokens, u.at(2).toInt());
            QCOMPARE(completion.value(QLatin1String("usage")).toObject().value(QLatin1String("total_tokens")).toInt(), u.at(2).toInt());
        }
    }

    void streamsThroughTranslator_data() { addRows("streams"); }
    void streamsThroughTranslator()
    {
        QFETCH(QJsonObject, c);
        const std::vector<SseEvent> events = parseEvents(readFixture(c.value(QLatin1String("file")).toString()));
        QVERIFY(!events.empty());
        const StreamRun run = runStream(events, true);
        QVERIFY2(run.problems.isEmpty(), qPrintable(run.problems.join(QLatin1Char('\n'))));
        const OutcomeKind expected = expectedKind(c);
        QCOMPARE(toString(run.error ? run.error->kind : OutcomeKind::Success), toString(expected));
        if (c.contains(QLatin1String("content")))
            QCOMPARE(run.content, c.value(QLatin1String("content")).toString());
        if (c.contains(QLatin1String("reasoning")))
            QCOMPARE(run.reasoning, c.value(QLatin1String("reasoning")).toString());
        if (expected != OutcomeKind::Success) {
            QVERIFY(!run.finished);
            QCOMPARE(run.finishChunks, 0);
            QVERIFY(!run.error->message.isEmpty());
            if (c.contains(QLatin1String("providerCode")))
                QCOMPARE(run.error->providerCode, c.value(QLatin1String("providerCode")).toString());
            return;
        }
        QVERIFY(run.finished);
        QCOMPARE(run.finishChunks, 1);
        QCOMPARE(run.finishReason, c.value(QLatin1String("finishReason")).toString());
        // Each event is forwarded as soon as it is whole: no event may be held back.
        QCOMPARE(run.stepsWithoutChunks, 0);
        if (c.contains(QLatin1String("toolCalls"))) {
            QStringList expectedNames;
            for (const QJsonValue &n : c.value(QLatin1String("toolCalls")).toArray())
                expectedNames << n.toString();
            QCOMPARE(run.toolNames, expectedNames);
        }
        if (c.contains(QLatin1String("toolArguments")))
            QCOMPARE(run.toolArguments, c.value(QLatin1String("toolArguments")).toString());
        if (c.contains(QLatin1String("usage"))) {
            const QJsonArray u = c.value(QLatin1String("usage")).toArray();
            QVERIFY(run.usage.has_value());
            QCOMPARE(run.usage->promptTokens, u.at(0).toInt());
            QCOMPARE(run.usage->completionTokens, u.at(1).toInt());
            QCOMPARE(run.usage->totalTokens, u.at(2).toInt());
            QCOMPARE(run.usageChunks, 1);
            QCOMPARE(run.usageChunk.value(QLatin1String("prompt_tokens")).toInt(), u.at(0).toInt());
            QCOMPARE(run.usageChunk.value(QLatin1String("completion_tokens")).toInt(), u.at(1).toInt());
            QCOMPARE(run.usageChunk.value(QLatin1String("total_tokens")).toInt(), u.at(2).toInt());
        }
    }

    // Usage still reaches the engine (StreamStep.usage), but the client gets the extra chunk only
    // when it asked for it, as with OpenAI.
    void usageChunkOnlyWhenAsked_data() { addRows("streams"); }
    void usageChunkOnlyWhenAsked()
    {
        QFETCH(QJsonObject, c);
        if (!c.contains(QLatin1String("usage")))
            QSKIP("no usage in this fixture");
        const StreamRun run = runStream(parseEvents(readFixture(c.value(QLatin1String("file")).toString())), false);
        QVERIFY(!run.error);
        QCOMPARE(run.usageChunks, 0);
        QVERIFY(run.usage.has_value());
        QCOMPARE(run.usage->totalTokens, c.value(QLatin1String("usage")).toArray().at(2).toInt());
    }

    // Every complete stream, cut before its last event, must end as PROVIDER_DOWN from onEnd():
    // a cut stream is never a clean finish.
    void cutBeforeEndMarkerIsProviderDown_data() { addRows("streams"); }
    void cutBeforeEndMarkerIsProviderDown()
    {
        QFETCH(QJsonObject, c);
        if (expectedKind(c) != OutcomeKind::Success)
            QSKIP("not a complete stream");
        std::vector<SseEvent> events = parseEvents(readFixture(c.value(QLatin1String("file")).toString()));
        events.pop_back();
        const StreamRun run = runStream(events, true);
        QVERIFY(run.error.has_value());
        QCOMPARE(toString(run.error->kind), toString(OutcomeKind::ProviderDown));
        QVERIFY(!run.finished);
        QCOMPARE(run.finishChunks, 0);
    }

    void nothingAfterTheFinish()
    {
        const QJsonArray streams = manifest().value(QLatin1String("streams")).toArray();
        const std::vector<SseEvent> events = parseEvents(readFixture(streams.first().toObject().value(QLatin1String("file")).toString()));
        const GeminiAdapter adapter;
        auto translator = adapter.streamTranslator(QJsonObject{{QStringLiteral("model"), QStringLiteral("m")}});
        for (const SseEvent &e : events)
            QVERIFY(!translator->onEvent(e).error);
        // A late duplicate event must not add content after the finishing chunk.
        QVERIFY(translator->onEvent(events.front()).chunks.empty());
        const StreamStep end = translator->onEnd();
        QVERIFY(!end.error);
        QVERIFY(end.finished);
    }

    void garbageEventIsProviderDown()
    {
        const GeminiAdapter adapter;
        auto translator = adapter.streamTranslator(QJsonObject{{QStringLiteral("model"), QStringLiteral("m")}});
        SseEvent e;
        e.data = "{not json";
        const StreamStep step = translator->onEvent(e);
        QVERIFY(step.error.has_value());
        QCOMPARE(toString(step.error->kind), toString(OutcomeKind::ProviderDown));
        QVERIFY(step.chunks.empty());
    }
};

QTEST_APPLESS_MAIN(tst_GeminiFixtures)
#include "tst_GeminiFixtures.moc"
