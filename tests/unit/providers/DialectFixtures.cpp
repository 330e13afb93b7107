#include "DialectFixtures.h"

#include "providers/ProviderRegistry.h"
#include "providers/common/ProviderText.h"
#include "stream/SseParser.h"

#include "TestPaths.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMap>
#include <QtTest>

namespace sb::test {

namespace {

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

StreamRun runManifestStream(const ProviderAdapter &adapter, const std::vector<SseEvent> &events, bool includeUsage)
{
    QJsonObject body{{QStringLiteral("model"), QStringLiteral("logical-model")}, {QStringLiteral("stream"), true}};
    if (includeUsage)
        body.insert(QStringLiteral("stream_options"), QJsonObject{{QStringLiteral("include_usage"), true}});
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

HttpHeaders headersOf(const QJsonObject &object)
{
    HttpHeaders headers;
    for (auto it = object.begin(); it != object.end(); ++it)
        headers.add(it.key().toUtf8(), it.value().toString().toUtf8());
    return headers;
}

// classifyAnswer() is what the proxy calls on a buffered answer (one parse of the body, or none
// where the answer passes through): it must judge as classify() does, except that a success of
// classify() that is no answer of the kind asked for (answerProblem(): a chat completion to an
// embeddings request, an event stream to a request for a whole answer) is PROVIDER_DOWN; and for a
// success it must write what chatResponse() / embeddingsResponse() give with the client's model
// and a "created". A body classify() calls a success that is not an event stream must be an answer
// of one kind or the other.
void answerAgreesWithClassify(const ProviderAdapter &adapter, int status, const HttpHeaders &headers,
                              const QByteArray &body, const Outcome &classified)
{
    const QByteArray start = body.left(16).trimmed();
    const bool eventStream = headers.value("content-type").contains("text/event-stream") || start.startsWith("data:")
                             || start.startsWith("event:");
    int answers = 0;
    for (const bool embeddings : {false, true}) {
        OpenAiAnswer answer;
        TokenUsage usage;
        const Outcome outcome = adapter.classifyAnswer(status, headers, body, embeddings, &answer, &usage);
        if (classified.isSuccess() && adapter.answerProblem(headers, body, embeddings)) {
            QCOMPARE(QString::fromLatin1(toString(outcome.kind)), QString::fromLatin1(toString(OutcomeKind::ProviderDown)));
            QCOMPARE(outcome.providerCode, QStringLiteral("malformed_answer"));
            QVERIFY2(answer.isEmpty(), "a malformed answer converts to nothing");
            continue;
        }
        answers += classified.isSuccess() ? 1 : 0;
        QCOMPARE(QString::fromLatin1(toString(outcome.kind)), QString::fromLatin1(toString(classified.kind)));
        QCOMPARE(outcome.httpStatus, classified.httpStatus);
        QCOMPARE(outcome.providerCode, classified.providerCode);
        QCOMPARE(outcome.message, classified.message);
        QCOMPARE(outcome.retryAfter.has_value(), classified.retryAfter.has_value());
        if (!outcome.isSuccess()) {
            QVERIFY2(answer.isEmpty(), "a failed answer converts to nothing");
            continue;
        }
        TokenUsage expectedUsage;
        QJsonObject expected = embeddings ? adapter.embeddingsResponse(body, &expectedUsage)
                                          : adapter.chatResponse(body, &expectedUsage);
        expected.insert(QStringLiteral("model"), QStringLiteral("client-model"));
        if (expected.value(QStringLiteral("created")).toInteger() <= 0)
            expected.insert(QStringLiteral("created"), 1234);
        QJsonParseError error;
        const QJsonDocument written = QJsonDocument::fromJson(answer.toJson(QStringLiteral("client-model"), 1234), &error);
        QCOMPARE(error.error, QJsonParseError::NoError);
        QCOMPARE(written.object(), expected);
        QCOMPARE(usage.promptTokens, expectedUsage.promptTokens);
        QCOMPARE(usage.completionTokens, expectedUsage.completionTokens);
        QCOMPARE(usage.totalTokens, expectedUsage.totalTokens);
        QCOMPARE(usage.cacheReadTokens, expectedUsage.cacheReadTokens);
        QCOMPARE(usage.cacheWriteTokens, expectedUsage.cacheWriteTokens);
    }
    if (classified.isSuccess() && !eventStream)
        QVERIFY2(answers > 0, "a success of the ErrorMap that is no answer at all");
}

// A case's "cacheUsage": [cache reads, cache writes] as TokenUsage holds them (-1: not reported),
// and, when the client's usage object is given, the cache reads it tells the client.
void compareCacheUsage(const QJsonObject &fixture, const TokenUsage &usage, const QJsonObject &clientUsage)
{
    if (!fixture.contains(QLatin1String("cacheUsage")))
        return;
    const QJsonArray cache = fixture.value(QLatin1String("cacheUsage")).toArray();
    QCOMPARE(usage.cacheReadTokens, cache.at(0).toInt());
    QCOMPARE(usage.cacheWriteTokens, cache.at(1).toInt());
    if (clientUsage.isEmpty())
        return;
    // An OpenAI-compatible answer passes through as written: DeepSeek's name is as good (the
    // front doors read both).
    QJsonValue cached = clientUsage.value(QLatin1String("prompt_tokens_details")).toObject().value(QLatin1String("cached_tokens"));
    if (!cached.isDouble())
        cached = clientUsage.value(QLatin1String("prompt_cache_hit_tokens"));
    if (cache.at(0).toInt() >= 0)
        QCOMPARE(cached.toInt(-1), cache.at(0).toInt());
}

} // namespace

DialectFixtures::DialectFixtures(QString dialect, const ProviderAdapter *adapter)
    : m_dialect(std::move(dialect)), m_adapter(adapter)
{
    if (!m_adapter)
        m_adapter = ProviderRegistry::find(m_dialect);
    if (!m_adapter)
        qFatal("dialect %s not registered", qPrintable(m_dialect));
}

QByteArray DialectFixtures::readFixture(const QString &name) const
{
    QFile file(sourcePath(QStringLiteral("tests/fixtures/%1/%2").arg(m_dialect, name)));
    if (!file.open(QIODevice::ReadOnly))
        qFatal("missing fixture %s", qPrintable(file.fileName()));
    return file.readAll();
}

QJsonObject DialectFixtures::manifest(const QString &file) const
{
    return QJsonDocument::fromJson(readFixture(file)).object();
}

void DialectFixtures::addManifestRows(const char *section) const
{
    QTest::addColumn<QJsonObject>("c");
    const QJsonArray cases = manifest(QStringLiteral("manifest.json")).value(QLatin1String(section)).toArray();
    QVERIFY(cases.size() >= 5);
    int i = 0;
    for (const QJsonValue &v : cases) {
        const QJsonObject c = v.toObject();
        QTest::addRow("%d:%s@%d", i++, qPrintable(c.value(QLatin1String("file")).toString()), c.value(QLatin1String("status")).toInt(200)) << c;
    }
}

void DialectFixtures::responsesThroughErrorMap(const QJsonObject &c) const
{
    const QByteArray body = readFixture(c.value(QLatin1String("file")).toString());
    HttpHeaders headers;
    const QJsonObject h = c.value(QLatin1String("headers")).toObject();
    for (auto it = h.begin(); it != h.end(); ++it)
        headers.add(it.key().toUtf8(), it.value().toString().toUtf8());
    const int status = c.value(QLatin1String("status")).toInt(200);

    const ProviderAdapter &adapter = *m_adapter;
    const Outcome o = adapter.classify(status, headers, body);
    QCOMPARE(toString(o.kind), toString(expectedKind(c)));
    answerAgreesWithClassify(adapter, status, headers, body, o);
    if (QTest::currentTestFailed())
        return;
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

void DialectFixtures::streamsThroughTranslator(const QJsonObject &c) const
{
    const std::vector<SseEvent> events = parseEvents(readFixture(c.value(QLatin1String("file")).toString()));
    QVERIFY(!events.empty());
    const StreamRun run = runManifestStream(*m_adapter, events, true);
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
void DialectFixtures::usageChunkOnlyWhenAsked(const QJsonObject &c) const
{
    if (!c.contains(QLatin1String("usage")))
        QSKIP("no usage in this fixture");
    const StreamRun run = runManifestStream(*m_adapter, parseEvents(readFixture(c.value(QLatin1String("file")).toString())), false);
    QVERIFY(!run.error);
    QCOMPARE(run.usageChunks, 0);
    QVERIFY(run.usage.has_value());
    QCOMPARE(run.usage->totalTokens, c.value(QLatin1String("usage")).toArray().at(2).toInt());
}

// Every complete stream, cut before its last event, must end as PROVIDER_DOWN from onEnd():
// a cut stream is never a clean finish.
void DialectFixtures::cutBeforeEndMarkerIsProviderDown(const QJsonObject &c) const
{
    if (expectedKind(c) != OutcomeKind::Success)
        QSKIP("not a complete stream");
    std::vector<SseEvent> events = parseEvents(readFixture(c.value(QLatin1String("file")).toString()));
    events.pop_back();
    const StreamRun run = runManifestStream(*m_adapter, events, true);
    QVERIFY(run.error.has_value());
    QCOMPARE(toString(run.error->kind), toString(OutcomeKind::ProviderDown));
    QVERIFY(!run.finished);
    QCOMPARE(run.finishChunks, 0);
}

void DialectFixtures::nothingAfterTheFinish() const
{
    const QJsonArray streams = manifest(QStringLiteral("manifest.json")).value(QLatin1String("streams")).toArray();
    const std::vector<SseEvent> events = parseEvents(readFixture(streams.first().toObject().value(QLatin1String("file")).toString()));
    auto translator = m_adapter->streamTranslator(QJsonObject{{QStringLiteral("model"), QStringLiteral("m")}});
    for (const SseEvent &e : events)
        QVERIFY(!translator->onEvent(e).error);
    // A late duplicate event must not add content after the finishing chunk.
    QVERIFY(translator->onEvent(events.front()).chunks.empty());
    const StreamStep end = translator->onEnd();
    QVERIFY(!end.error);
    QVERIFY(end.finished);
}

void DialectFixtures::garbageEventIsProviderDown() const
{
    auto translator = m_adapter->streamTranslator(QJsonObject{{QStringLiteral("model"), QStringLiteral("m")}});
    SseEvent e;
    e.data = "{not json";
    const StreamStep step = translator->onEvent(e);
    QVERIFY(step.error.has_value());
    QCOMPARE(toString(step.error->kind), toString(OutcomeKind::ProviderDown));
    QVERIFY(step.chunks.empty());
}

DialectFixtures::StreamResult DialectFixtures::runStream(const QJsonObject &request, const QList<QByteArray> &pieces) const
{
    StreamResult result;
    SseParser parser;
    auto translator = m_adapter->streamTranslator(request);
    translator->setCreated(1790000000);
    auto take = [&](const StreamStep &step) {
        for (const QByteArray &chunk : step.chunks)
            result.chunks << chunk;
        if (step.usage)
            result.usage = step.usage;
        if (step.error)
            result.error = step.error;
        result.finished = result.finished || step.finished;
    };
    for (const QByteArray &piece : pieces) {
        for (const SseEvent &event : parser.feed(piece)) {
            if (!result.error)
                take(translator->onEvent(event));
        }
    }
    for (const SseEvent &event : parser.finish()) {
        if (!result.error)
            take(translator->onEvent(event));
    }
    if (!result.error)
        take(translator->onEnd());
    return result;
}

void DialectFixtures::addCaseRows(const char *section, qsizetype minimumRows) const
{
    QTest::addColumn<QJsonObject>("fixture");
    const QJsonArray cases = manifest(QStringLiteral("cases.json")).value(QLatin1String(section)).toArray();
    QVERIFY(cases.size() >= minimumRows);
    for (const QJsonValue &c : cases)
        QTest::newRow(qPrintable(c.toObject().value(QLatin1String("name")).toString())) << c.toObject();
}

void DialectFixtures::errorFixture(const QJsonObject &fixture) const
{
    const QByteArray body = fixture.contains(QLatin1String("bodyInline"))
                                ? fixture.value(QLatin1String("bodyInline")).toString().toUtf8()
                                : readFixture(fixture.value(QLatin1String("body")).toString());
    const int status = fixture.value(QLatin1String("status")).toInt();
    const HttpHeaders headers = headersOf(fixture.value(QLatin1String("headers")).toObject());
    const Outcome outcome = m_adapter->classify(status, headers, body);
    answerAgreesWithClassify(*m_adapter, status, headers, body, outcome);
    if (QTest::currentTestFailed())
        return;

    QCOMPARE(QString::fromLatin1(toString(outcome.kind)), fixture.value(QLatin1String("expect")).toString());
    QCOMPARE(outcome.httpStatus, status);
    QCOMPARE(outcome.origin, OutcomeOrigin::Upstream);
    if (fixture.contains(QLatin1String("retryAfterMs"))) {
        QVERIFY(outcome.retryAfter.has_value());
        QCOMPARE(qint64(outcome.retryAfter->count()), qint64(fixture.value(QLatin1String("retryAfterMs")).toInt()));
    } else if (!outcome.isSuccess()) {
        QVERIFY2(!outcome.retryAfter.has_value(), "no header asked for a wait");
    }
    if (fixture.contains(QLatin1String("providerCode")))
        QCOMPARE(outcome.providerCode, fixture.value(QLatin1String("providerCode")).toString());
    if (fixture.contains(QLatin1String("messageMustNotContain")))
        QVERIFY(!outcome.message.contains(fixture.value(QLatin1String("messageMustNotContain")).toString()));
    if (!outcome.isSuccess())
        QVERIFY2(!outcome.message.isEmpty(), "an error must say something a person can read");
    if (outcome.isSuccess() && fixture.contains(QLatin1String("usage"))) {
        TokenUsage usage;
        const QJsonObject completion = m_adapter->chatResponse(body, &usage);
        const QJsonArray u = fixture.value(QLatin1String("usage")).toArray();
        QCOMPARE(usage.promptTokens, u.at(0).toInt());
        QCOMPARE(usage.completionTokens, u.at(1).toInt());
        QCOMPARE(usage.totalTokens, u.at(2).toInt());
        compareCacheUsage(fixture, usage, completion.value(QLatin1String("usage")).toObject());
    }
}

void DialectFixtures::streamFixture(const QJsonObject &fixture) const
{
    const QByteArray sse = readFixture(fixture.value(QLatin1String("file")).toString());
    const QJsonObject request = fixture.value(QLatin1String("request")).toObject();
    const StreamResult result = runStream(request, {sse});

    QCOMPARE(result.chunks.size(), fixture.value(QLatin1String("chunks")).toInt());
    QCOMPARE(result.finished, fixture.value(QLatin1String("finished")).toBool());
    const QString expectedError = fixture.value(QLatin1String("error")).toString();
    QCOMPARE(result.error ? QString::fromLatin1(toString(result.error->kind)) : QString(), expectedError);

    QString content, reasoning, finishReason;
    bool sawUsageChunk = false;
    QJsonObject clientUsage;
    QMap<int, QJsonObject> tools; // index → {id, name, arguments}
    for (const QByteArray &bytes : result.chunks) {
        QJsonObject chunk;
        QVERIFY2(parseJsonObject(bytes, &chunk), bytes.constData());
        QCOMPARE(chunk.value(QLatin1String("object")).toString(), QStringLiteral("chat.completion.chunk"));
        // The client sees the model it asked for, whatever the upstream called it.
        QCOMPARE(chunk.value(QLatin1String("model")).toString(), request.value(QLatin1String("model")).toString());
        if (chunk.value(QLatin1String("usage")).isObject()) {
            sawUsageChunk = true;
            clientUsage = chunk.value(QLatin1String("usage")).toObject();
        }
        for (const QJsonValue &c : chunk.value(QLatin1String("choices")).toArray()) {
            const QJsonObject delta = c.toObject().value(QLatin1String("delta")).toObject();
            content += delta.value(QLatin1String("content")).toString();
            reasoning += delta.value(QLatin1String("reasoning_content")).toString();
            if (c.toObject().value(QLatin1String("finish_reason")).isString())
                finishReason = c.toObject().value(QLatin1String("finish_reason")).toString();
            for (const QJsonValue &t : delta.value(QLatin1String("tool_calls")).toArray()) {
                const QJsonObject call = t.toObject();
                QJsonObject &acc = tools[call.value(QLatin1String("index")).toInt()];
                if (call.contains(QLatin1String("id")))
                    acc.insert(QStringLiteral("id"), call.value(QLatin1String("id")));
                const QJsonObject f = call.value(QLatin1String("function")).toObject();
                if (f.contains(QLatin1String("name")))
                    acc.insert(QStringLiteral("name"), f.value(QLatin1String("name")));
                acc.insert(QStringLiteral("arguments"), acc.value(QLatin1String("arguments")).toString()
                                                            + f.value(QLatin1String("arguments")).toString());
            }
        }
    }
    if (fixture.contains(QLatin1String("content")))
        QCOMPARE(content, fixture.value(QLatin1String("content")).toString());
    QCOMPARE(reasoning, fixture.value(QLatin1String("reasoning")).toString());
    QCOMPARE(finishReason, fixture.value(QLatin1String("finishReason")).toString());
    if (fixture.contains(QLatin1String("usageChunk")))
        QCOMPARE(sawUsageChunk, fixture.value(QLatin1String("usageChunk")).toBool());
    if (fixture.contains(QLatin1String("usage"))) {
        const QJsonArray u = fixture.value(QLatin1String("usage")).toArray();
        QVERIFY(result.usage.has_value());
        QCOMPARE(result.usage->promptTokens, u.at(0).toInt());
        QCOMPARE(result.usage->completionTokens, u.at(1).toInt());
        QCOMPARE(result.usage->totalTokens, u.at(2).toInt());
        compareCacheUsage(fixture, *result.usage, clientUsage);
    }
    const QJsonArray expectedTools = fixture.value(QLatin1String("toolCalls")).toArray();
    QCOMPARE(tools.size(), expectedTools.size());
    for (const QJsonValue &t : expectedTools) {
        const QJsonObject want = t.toObject();
        const QJsonObject got = tools.value(want.value(QLatin1String("index")).toInt());
        QCOMPARE(got.value(QLatin1String("id")).toString(), want.value(QLatin1String("id")).toString());
        QCOMPARE(got.value(QLatin1String("name")).toString(), want.value(QLatin1String("name")).toString());
        QCOMPARE(got.value(QLatin1String("arguments")).toString(), want.value(QLatin1String("arguments")).toString());
    }

    // The same bytes cut at every offset give exactly the same chunks (each event is
    // translated when whole, never earlier and never differently).
    for (qsizetype cut = 1; cut < sse.size(); ++cut) {
        const StreamResult split = runStream(request, {sse.left(cut), sse.mid(cut)});
        if (split.chunks != result.chunks || split.finished != result.finished
            || bool(split.error) != bool(result.error))
            QFAIL(qPrintable(QStringLiteral("split at byte %1 changed the output").arg(cut)));
    }
}

ManifestFixtureTest::ManifestFixtureTest(const QString &dialect, std::unique_ptr<const ProviderAdapter> adapter)
    : m_adapter(std::move(adapter)), m_fixtures(dialect, m_adapter.get())
{
}

void ManifestFixtureTest::responsesThroughErrorMap_data() { m_fixtures.addManifestRows("responses"); }
void ManifestFixtureTest::responsesThroughErrorMap()
{
    QFETCH(QJsonObject, c);
    m_fixtures.responsesThroughErrorMap(c);
}

void ManifestFixtureTest::streamsThroughTranslator_data() { m_fixtures.addManifestRows("streams"); }
void ManifestFixtureTest::streamsThroughTranslator()
{
    QFETCH(QJsonObject, c);
    m_fixtures.streamsThroughTranslator(c);
}

void ManifestFixtureTest::usageChunkOnlyWhenAsked_data() { m_fixtures.addManifestRows("streams"); }
void ManifestFixtureTest::usageChunkOnlyWhenAsked()
{
    QFETCH(QJsonObject, c);
    m_fixtures.usageChunkOnlyWhenAsked(c);
}

void ManifestFixtureTest::cutBeforeEndMarkerIsProviderDown_data() { m_fixtures.addManifestRows("streams"); }
void ManifestFixtureTest::cutBeforeEndMarkerIsProviderDown()
{
    QFETCH(QJsonObject, c);
    m_fixtures.cutBeforeEndMarkerIsProviderDown(c);
}

void ManifestFixtureTest::nothingAfterTheFinish() { m_fixtures.nothingAfterTheFinish(); }
void ManifestFixtureTest::garbageEventIsProviderDown() { m_fixtures.garbageEventIsProviderDown(); }

} // namespace sb::test
