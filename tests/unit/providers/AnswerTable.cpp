#include "AnswerTable.h"

#include "stream/SseParser.h"

#include <QtTest>

namespace sb::test {

void addAnswerRows(const std::vector<AnswerRow> &rows)
{
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QByteArray>("contentType");
    QTest::addColumn<bool>("embeddings");
    QTest::addColumn<QString>("expect");
    for (const AnswerRow &row : rows)
        QTest::newRow(row.name) << row.body << row.contentType << row.embeddings << QString::fromLatin1(toString(row.expect));
}

void checkAnswerRow(const ProviderAdapter &adapter)
{
    QFETCH(QByteArray, body);
    QFETCH(QByteArray, contentType);
    QFETCH(bool, embeddings);
    QFETCH(QString, expect);
    HttpHeaders headers;
    headers.add("content-type", contentType);
    OpenAiAnswer answer;
    TokenUsage usage;
    const Outcome outcome = adapter.classifyAnswer(200, headers, body, embeddings, &answer, &usage);
    QCOMPARE(QString::fromLatin1(toString(outcome.kind)), expect);
    if (outcome.isSuccess()) {
        QVERIFY(!answer.isEmpty());
        return;
    }
    QVERIFY(answer.isEmpty());
    QVERIFY2(!outcome.message.isEmpty(), "a failure says what it was");
    QCOMPARE(outcome.httpStatus, 200);
}

void addStreamRows(const std::vector<StreamRow> &rows)
{
    QTest::addColumn<QByteArray>("sse");
    QTest::addColumn<QString>("expect");
    for (const StreamRow &row : rows)
        QTest::newRow(row.name) << row.sse << QString::fromLatin1(toString(row.expect));
}

void checkStreamRow(const ProviderAdapter &adapter)
{
    QFETCH(QByteArray, sse);
    QFETCH(QString, expect);
    auto translator = adapter.streamTranslator(QJsonObject{{QStringLiteral("model"), QStringLiteral("m")}, {QStringLiteral("stream"), true}});
    translator->setCreated(1790000000);
    SseParser parser;
    std::vector<SseEvent> events;
    for (qsizetype at = 0; at < sse.size(); at += 7) // cut anywhere, as upstreams do
        for (SseEvent &e : parser.feed(sse.mid(at, 7)))
            events.push_back(std::move(e));
    for (SseEvent &e : parser.finish())
        events.push_back(std::move(e));

    bool contentOut = false; // a chunk the client would have seen
    std::optional<Outcome> error;
    bool finished = false;
    const auto take = [&](const StreamStep &step) {
        if (step.error) {
            error = step.error;
            return;
        }
        if (!step.chunks.empty() && (!step.preamble || step.finished))
            contentOut = true;
        finished = finished || step.finished;
    };
    for (const SseEvent &event : events) {
        if (error || finished)
            break;
        take(translator->onEvent(event));
    }
    if (!error && !finished)
        take(translator->onEnd());
    QCOMPARE(QString::fromLatin1(error ? toString(error->kind) : toString(OutcomeKind::Success)), expect);
    if (!error) {
        QVERIFY2(finished, "a stream that did not fail must have finished");
        return;
    }
    QVERIFY2(!contentOut, "the failure came after content reached the client: it could not fail over");
    QVERIFY(!error->message.isEmpty());
}

} // namespace sb::test
