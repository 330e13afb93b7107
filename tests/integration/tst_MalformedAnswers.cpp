// A 2xx that is not an answer, and an error inside a 200, end to end in every upstream dialect: a
// real Gateway on a loopback port in front of two of the simulator's providers of one dialect
// (gpt-4o/A the primary, tried first; gpt-4o/B the fallback) and a real HTTP client. The promises:
// a malformed 200 is the primary's failure and the client gets the fallback's whole answer; an
// error whose fields disagree fails over instead of reaching the client as a 400, while one that
// is plainly the caller's does reach it (after its one try on the other provider); and with
// nothing healthy left the client gets a 5xx in its API's error shape, never an empty 200
// (ARCHITECTURE.md, "Errors and outcomes").
#include "DialectRows.h"
#include "FakeProviderSpecs.h"
#include "ProxyClient.h"
#include "ProxyUnderTest.h"
#include "RequestRecords.h"
#include "StreamText.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>


using namespace sb;
using namespace sb::sim;
using namespace sb::test;

namespace {

const RawHeaders kAnthropicHeaders{{"content-type", "application/json"}, {"anthropic-version", "2023-06-01"}};

QString contentOf(const Reply &reply)
{
    return reply.json().value("choices").toArray().first().toObject().value("message").toObject().value("content").toString();
}

} // namespace

class tst_MalformedAnswers : public QObject {
    Q_OBJECT

    SystemClock &m_clock = SystemClock::instance();
    SplitMixRandom m_random{4242};
    ProxyUnderTest m_proxy{m_clock, m_random};
    ProxyClient m_client;
    RequestRecords m_records;

    // Primary and fallback both of `dialect`, each with its own faults.
    void startPair(const QString &dialect, std::vector<FaultSpec> primaryFaults, std::vector<FaultSpec> fallbackFaults = {})
    {
        QString error;
        const bool started = m_proxy.startInDialect(dialect, fakeProviderSpec(QStringLiteral("primary"), std::move(primaryFaults)),
                                                    fakeProviderSpec(QStringLiteral("fallback"), std::move(fallbackFaults)), {}, &error);
        QVERIFY2(started, qPrintable(error));
        m_records.attach(*m_proxy.gateway);
    }

    std::optional<RequestRecord> onlyRecord() { return m_records.waitForOnly(); }

    Reply chat(bool stream) { return m_client.postChat(m_proxy.gateway->port(), chatBody(stream)); }

    // The client got the fallback's complete answer, and the history shows the primary's attempt
    // as the provider's failure.
    void checkFailedOverToTheFallback(const Reply &reply, bool stream)
    {
        QCOMPARE(reply.status, 200);
        QVERIFY2(reply.headers.value("x-switchboard-channel") == "gpt-4o/B", reply.body.left(800).constData());
        QCOMPARE(reply.headers.value("x-switchboard-failover"), QByteArray("true"));
        QCOMPARE(reply.headers.value("x-switchboard-attempts"), QByteArray("2"));
        if (stream) {
            const StreamText text = parseStream(reply.body);
            QVERIFY2(text.done && text.error.isEmpty(), reply.body.left(800).constData());
            QVERIFY(!text.content.isEmpty());
        } else {
            QCOMPARE(reply.json().value("object").toString(), QStringLiteral("chat.completion"));
            QVERIFY2(!contentOf(reply).isEmpty(), reply.body.left(800).constData());
        }
        const std::optional<RequestRecord> record = onlyRecord();
        QVERIFY(record);
        QCOMPARE(record->status, RequestStatus::Ok);
        QCOMPARE(record->attempts.size(), std::size_t(2));
        const AttemptRecord &failed = record->attempts.front();
        QCOMPARE(failed.channelName, QStringLiteral("gpt-4o/A"));
        QCOMPARE(toString(failed.outcome), toString(OutcomeKind::ProviderDown));
        QCOMPARE(failed.phase, OutcomePhase::BeforeFirstByte);
        QVERIFY(!failed.message.isEmpty());
        QCOMPARE(record->attempts.back().channelName, QStringLiteral("gpt-4o/B"));
        QCOMPARE(toString(record->attempts.back().outcome), toString(OutcomeKind::Success));
    }

private slots:
    void cleanup() { m_proxy.stop(); }

    void aMalformed200FailsOverToTheFallback_data()
    {
        QTest::addColumn<QString>("dialect");
        QTest::addColumn<int>("fault");
        QTest::addColumn<bool>("stream");
        const std::pair<SimError, bool> faults[] = {
            {SimError::MalformedAnswer, false}, {SimError::MalformedAnswer, true}, {SimError::EmptyObject, false},
            {SimError::EmptyObject, true},      {SimError::NotJson, false},        {SimError::TruncatedAnswer, false},
            {SimError::SseAnswer, false},       {SimError::EmptyStream, false},    {SimError::EmptyStream, true},
        };
        for (const QString &dialect : simDialects())
            for (const auto &[fault, stream] : faults)
                QTest::addRow("%s %s %s", qPrintable(dialect), toString(fault), stream ? "stream" : "whole") << dialect << int(fault) << stream;
    }
    void aMalformed200FailsOverToTheFallback()
    {
        QFETCH(QString, dialect);
        QFETCH(int, fault);
        QFETCH(bool, stream);
        startPair(dialect, {always(static_cast<SimError>(fault))});
        checkFailedOverToTheFallback(chat(stream), stream);
    }

    void anErrorWhoseFieldsDisagreeFailsOverInsteadOfA400_data()
    {
        addDialectStreamRows();
    }
    void anErrorWhoseFieldsDisagreeFailsOverInsteadOfA400()
    {
        QFETCH(QString, dialect);
        QFETCH(bool, stream);
        startPair(dialect, {always(SimError::DisagreeingError)});
        const Reply reply = chat(stream);
        QVERIFY2(!reply.body.contains("invalid_request_error") && !reply.body.contains("INVALID_ARGUMENT")
                     && !reply.body.contains("InvalidParameter"),
                 reply.body.left(800).constData());
        checkFailedOverToTheFallback(reply, stream);
    }

    // Tried once on the other provider (a context limit differs by provider), then the caller's.
    void anErrorThatIsTheCallersComesBackAfterOneTryElsewhere_data() { anErrorWhoseFieldsDisagreeFailsOverInsteadOfA400_data(); }
    void anErrorThatIsTheCallersComesBackAfterOneTryElsewhere()
    {
        QFETCH(QString, dialect);
        QFETCH(bool, stream);
        startPair(dialect, {always(SimError::BodyInvalidRequest)}, {always(SimError::BodyInvalidRequest)});
        const Reply reply = chat(stream);
        QCOMPARE(reply.status, 400);
        QCOMPARE(reply.error().value("type").toString(), QStringLiteral("invalid_request_error"));
        QCOMPARE(reply.headers.value("x-switchboard-attempts"), QByteArray("2"));
        const std::optional<RequestRecord> record = onlyRecord();
        QVERIFY(record);
        QCOMPARE(record->attempts.size(), std::size_t(2));
        for (const AttemptRecord &attempt : record->attempts)
            QCOMPARE(toString(attempt.outcome), toString(OutcomeKind::NonRetryableParamError));
    }

    void withNothingHealthyLeftTheClientGetsA5xxNotAnEmpty200_data() { anErrorWhoseFieldsDisagreeFailsOverInsteadOfA400_data(); }
    void withNothingHealthyLeftTheClientGetsA5xxNotAnEmpty200()
    {
        QFETCH(QString, dialect);
        QFETCH(bool, stream);
        const SimError fault = stream ? SimError::EmptyStream : SimError::MalformedAnswer;
        startPair(dialect, {always(fault)}, {always(fault)});
        const Reply reply = chat(stream);
        QCOMPARE(reply.status, 502);
        QVERIFY(reply.headers.value("content-type").startsWith("application/json"));
        QCOMPARE(reply.errorCode(), QStringLiteral("upstream_unavailable"));
        QVERIFY(!reply.error().value("message").toString().isEmpty());
        const std::optional<RequestRecord> record = onlyRecord();
        QVERIFY(record);
        QCOMPARE(record->status, RequestStatus::Error);
        QVERIFY(record->attempts.size() >= 2);
        for (const AttemptRecord &attempt : record->attempts)
            QCOMPARE(toString(attempt.outcome), toString(OutcomeKind::ProviderDown));
    }

    // The other front doors word the same failure in their own API's shape.
    void anAnthropicClientGetsOverloadedErrorNotAnEmptyMessage_data()
    {
        QTest::addColumn<QString>("dialect");
        QTest::addColumn<bool>("stream");
        for (const char *dialect : {"openai_compat", "anthropic"}) // the second passes the client's request through
            for (bool stream : {false, true})
                QTest::addRow("%s %s", dialect, stream ? "stream" : "whole") << QString::fromLatin1(dialect) << stream;
    }
    void anAnthropicClientGetsOverloadedErrorNotAnEmptyMessage()
    {
        QFETCH(QString, dialect);
        QFETCH(bool, stream);
        const SimError fault = stream ? SimError::EmptyStream : SimError::MalformedAnswer;
        startPair(dialect, {always(fault)}, {always(fault)});
        QJsonObject body{{"model", "gpt-4o"}, {"max_tokens", 64}, {"messages", QJsonArray{QJsonObject{{"role", "user"}, {"content", "Hi"}}}}};
        if (stream)
            body.insert("stream", true);
        const Reply reply = m_client.request(m_proxy.gateway->port(), "POST", QStringLiteral("/v1/messages"),
                                             QJsonDocument(body).toJson(QJsonDocument::Compact), kAnthropicHeaders);
        QVERIFY2(reply.status >= 500, reply.body.left(500).constData());
        QCOMPARE(reply.json().value("type").toString(), QStringLiteral("error"));
        QCOMPARE(reply.json().value("error").toObject().value("type").toString(), QStringLiteral("overloaded_error"));
    }

    void anAnthropicClientGetsTheFallbacksMessage_data() { anAnthropicClientGetsOverloadedErrorNotAnEmptyMessage_data(); }
    void anAnthropicClientGetsTheFallbacksMessage()
    {
        QFETCH(QString, dialect);
        QFETCH(bool, stream);
        startPair(dialect, {always(stream ? SimError::EmptyStream : SimError::MalformedAnswer)});
        QJsonObject body{{"model", "gpt-4o"}, {"max_tokens", 64}, {"messages", QJsonArray{QJsonObject{{"role", "user"}, {"content", "Hi"}}}}};
        if (stream)
            body.insert("stream", true);
        const Reply reply = m_client.request(m_proxy.gateway->port(), "POST", QStringLiteral("/v1/messages"),
                                             QJsonDocument(body).toJson(QJsonDocument::Compact), kAnthropicHeaders);
        QCOMPARE(reply.status, 200);
        QCOMPARE(reply.headers.value("x-switchboard-channel"), QByteArray("gpt-4o/B"));
        if (stream) {
            QVERIFY(reply.body.contains("event: message_stop"));
            QVERIFY(reply.body.contains("text_delta"));
            QVERIFY(!reply.body.contains("event: error"));
        } else {
            QCOMPARE(reply.json().value("type").toString(), QStringLiteral("message"));
            QVERIFY(!reply.json().value("content").toArray().isEmpty());
        }
        const std::optional<RequestRecord> record = onlyRecord();
        QVERIFY(record);
        QCOMPARE(record->attempts.size(), std::size_t(2));
        QCOMPARE(toString(record->attempts.front().outcome), toString(OutcomeKind::ProviderDown));
    }

    void aResponsesClientGetsAnErrorInOpenAisShape()
    {
        startPair(QStringLiteral("openai_compat"), {always(SimError::MalformedAnswer)}, {always(SimError::MalformedAnswer)});
        const QJsonObject body{{"model", "gpt-4o"}, {"input", "Say something."}};
        const Reply reply = m_client.request(m_proxy.gateway->port(), "POST", QStringLiteral("/v1/responses"),
                                             QJsonDocument(body).toJson(QJsonDocument::Compact), {{"content-type", "application/json"}});
        QCOMPARE(reply.status, 502);
        QCOMPARE(reply.errorCode(), QStringLiteral("upstream_unavailable"));
    }
};

QTEST_GUILESS_MAIN(tst_MalformedAnswers)
#include "tst_MalformedAnswers.moc"
