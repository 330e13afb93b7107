// A client error from one provider is not final for the route, end to end in every upstream
// dialect: a real Gateway on a loopback port in front of two of the simulator's providers of one
// dialect (gpt-4o/A on the primary, tried first; gpt-4o/B on the fallback, another ProviderConfig)
// and a real HTTP client. The promises (ARCHITECTURE.md, "Errors and outcomes"): a 400 for a
// parameter or limit of the primary's own is tried once on the fallback, whose answer the client
// gets; when the fallback refuses too, or fails, or there is no other provider, or the route turns
// the try off, the client gets the primary's error; and the history shows every attempt.
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

// Words of each dialect's provider_param_error that its other refusals (body_invalid_request) lack:
// they tell whose error the client got.
QString primaryRefusalWords(const QString &dialect)
{
    if (dialect == u"openai_compat")
        return QStringLiteral("max_completion_tokens");
    if (dialect == u"anthropic")
        return QStringLiteral("16384 > 8192");
    if (dialect == u"gemini")
        return QStringLiteral("frequency_penalty");
    if (dialect == u"dashscope")
        return QStringLiteral("parameters.max_tokens");
    return QStringLiteral("penalty_score");
}

} // namespace

class tst_ClientErrorElsewhere : public QObject {
    Q_OBJECT

    SystemClock &m_clock = SystemClock::instance();
    SplitMixRandom m_random{5151};
    ProxyUnderTest m_proxy{m_clock, m_random};
    ProxyClient m_client;
    RequestRecords m_records;

    // Primary and fallback both of `dialect`, each with its own faults; `adjust` changes the
    // configuration after the dialects are set.
    void startPair(const QString &dialect, std::vector<FaultSpec> primaryFaults, std::vector<FaultSpec> fallbackFaults = {},
                   const std::function<void(EngineConfig &)> &adjust = {})
    {
        QString error;
        const bool started = m_proxy.startInDialect(dialect, fakeProviderSpec(QStringLiteral("primary"), std::move(primaryFaults)),
                                                    fakeProviderSpec(QStringLiteral("fallback"), std::move(fallbackFaults)), adjust, &error);
        QVERIFY2(started, qPrintable(error));
        m_records.attach(*m_proxy.gateway);
    }

    std::optional<RequestRecord> onlyRecord() { return m_records.waitForOnly(); }

    Reply chat(bool stream) { return m_client.postChat(m_proxy.gateway->port(), chatBody(stream)); }

    Reply anthropicMessages(bool stream)
    {
        QJsonObject body{{"model", "gpt-4o"}, {"max_tokens", 64}, {"messages", QJsonArray{QJsonObject{{"role", "user"}, {"content", "Hi"}}}}};
        if (stream)
            body.insert("stream", true);
        return m_client.request(m_proxy.gateway->port(), "POST", QStringLiteral("/v1/messages"),
                                QJsonDocument(body).toJson(QJsonDocument::Compact), kAnthropicHeaders);
    }

    // The client got the primary's refusal, in OpenAI's error shape, after `attempts` attempts.
    void checkPrimarysError(const Reply &reply, const QString &dialect, int attempts)
    {
        QVERIFY2(reply.status == 400, reply.body.left(800).constData());
        QVERIFY(reply.headers.value("content-type").startsWith("application/json")); // an error, not a stream
        QCOMPARE(reply.error().value("type").toString(), QStringLiteral("invalid_request_error"));
        const QString message = reply.error().value("message").toString();
        QVERIFY2(message.contains(primaryRefusalWords(dialect)), qPrintable(message));
        QCOMPARE(reply.headers.value("x-switchboard-channel"), QByteArray("gpt-4o/A"));
        QCOMPARE(reply.headers.value("x-switchboard-attempts"), QByteArray::number(attempts));
    }

    // The history row of a request the client got the primary's refusal for.
    void checkHistoryOfPrimarysError(std::size_t attempts)
    {
        const std::optional<RequestRecord> record = onlyRecord();
        QVERIFY(record);
        QCOMPARE(record->status, RequestStatus::Error);
        QCOMPARE(record->httpStatus, 400);
        QCOMPARE(toString(record->outcome), toString(OutcomeKind::NonRetryableParamError));
        QCOMPARE(record->channelName, QStringLiteral("gpt-4o/A")); // whose error it is
        QCOMPARE(record->attempts.size(), attempts);
        QCOMPARE(record->attempts.front().channelName, QStringLiteral("gpt-4o/A"));
        QCOMPARE(toString(record->attempts.front().outcome), toString(OutcomeKind::NonRetryableParamError));
        if (attempts > 1)
            QCOMPARE(record->attempts.back().channelName, QStringLiteral("gpt-4o/B"));
    }

    // Neither channel counted a refusal against itself.
    void checkChannelsUnharmed()
    {
        for (const ChannelSnapshot &s : m_proxy.gateway->router().snapshots()) {
            QVERIFY2(s.errorRate5m == 0.0, qPrintable(s.name));
            QVERIFY2(s.routable, qPrintable(s.name));
        }
    }

private slots:
    void cleanup() { m_proxy.stop(); }

    void aRefusalOfThePrimarysOwnIsAnsweredByTheOtherProvider_data() { addDialectStreamRows(); }
    void aRefusalOfThePrimarysOwnIsAnsweredByTheOtherProvider()
    {
        QFETCH(QString, dialect);
        QFETCH(bool, stream);
        startPair(dialect, {always(SimError::ProviderParamError)});
        const Reply reply = chat(stream);
        QVERIFY2(reply.status == 200, reply.body.left(800).constData());
        QCOMPARE(reply.headers.value("x-switchboard-channel"), QByteArray("gpt-4o/B"));
        QCOMPARE(reply.headers.value("x-switchboard-attempts"), QByteArray("2"));
        QCOMPARE(reply.headers.value("x-switchboard-failover"), QByteArray("true"));
        if (stream) {
            const StreamText text = parseStream(reply.body);
            QVERIFY2(text.done && text.error.isEmpty() && !text.content.isEmpty(), reply.body.left(800).constData());
        } else {
            QCOMPARE(reply.json().value("object").toString(), QStringLiteral("chat.completion"));
        }
        QCOMPARE(m_proxy.primary->stats().injected[std::size_t(SimError::ProviderParamError)], quint64(1));
        QTRY_COMPARE_WITH_TIMEOUT(m_proxy.fallback->stats().succeeded, quint64(1), 5000); // counted after its last byte

        const std::optional<RequestRecord> record = onlyRecord();
        QVERIFY(record);
        QCOMPARE(record->status, RequestStatus::Ok);
        QVERIFY(record->failover);
        QCOMPARE(record->channelName, QStringLiteral("gpt-4o/B"));
        QCOMPARE(record->attempts.size(), std::size_t(2));
        const AttemptRecord &refused = record->attempts.front();
        QCOMPARE(refused.channelName, QStringLiteral("gpt-4o/A"));
        QCOMPARE(toString(refused.outcome), toString(OutcomeKind::NonRetryableParamError));
        QCOMPARE(refused.httpStatus, dialect == u"ernie" ? 200 : 400); // Qianfan's errors come inside a 200
        QVERIFY2(refused.message.contains(primaryRefusalWords(dialect)), qPrintable(refused.message));
        QCOMPARE(record->attempts.back().channelName, QStringLiteral("gpt-4o/B"));
        QCOMPARE(toString(record->attempts.back().outcome), toString(OutcomeKind::Success));
        checkChannelsUnharmed();
    }

    void whenTheOtherProviderRefusesTooTheClientGetsTheFirstError_data() { addDialectStreamRows(); }
    void whenTheOtherProviderRefusesTooTheClientGetsTheFirstError()
    {
        QFETCH(QString, dialect);
        QFETCH(bool, stream);
        // B refuses in its own words (the prompt is too long), so whose error the client got shows.
        startPair(dialect, {always(SimError::ProviderParamError)}, {always(SimError::BodyInvalidRequest)});
        const Reply reply = chat(stream);
        checkPrimarysError(reply, dialect, 2);
        QCOMPARE(m_proxy.fallback->stats().injected[std::size_t(SimError::BodyInvalidRequest)], quint64(1));
        checkHistoryOfPrimarysError(2);
        const std::optional<RequestRecord> record = onlyRecord();
        QVERIFY(record);
        QCOMPARE(toString(record->attempts.back().outcome), toString(OutcomeKind::NonRetryableParamError));
        checkChannelsUnharmed();
    }

    void whenTheOtherProviderFailsTheClientStillGetsTheFirstError_data() { addDialectStreamRows(); }
    void whenTheOtherProviderFailsTheClientStillGetsTheFirstError()
    {
        QFETCH(QString, dialect);
        QFETCH(bool, stream);
        // The one try elsewhere is the only one: B's 503 is B's trouble, recorded as such, and the
        // request the primary refused is not sent round the route again.
        startPair(dialect, {always(SimError::ProviderParamError)}, {always(SimError::Http503)});
        const Reply reply = chat(stream);
        checkPrimarysError(reply, dialect, 2);
        checkHistoryOfPrimarysError(2);
        QCOMPARE(m_proxy.primary->stats().chat, quint64(1));
        QCOMPARE(m_proxy.fallback->stats().chat, quint64(1));
        const std::optional<RequestRecord> record = onlyRecord();
        QVERIFY(record);
        QCOMPARE(toString(record->attempts.back().outcome), toString(OutcomeKind::ProviderDown));
    }

    void withTheRouteSwitchOffTheFirstErrorComesBackAtOnce_data() { addDialectStreamRows(); }
    void withTheRouteSwitchOffTheFirstErrorComesBackAtOnce()
    {
        QFETCH(QString, dialect);
        QFETCH(bool, stream);
        startPair(dialect, {always(SimError::ProviderParamError)}, {},
                  [](EngineConfig &config) { config.routes.front().retryClientErrorsElsewhere = false; });
        const Reply reply = chat(stream);
        checkPrimarysError(reply, dialect, 1);
        QCOMPARE(m_proxy.fallback->stats().chat, quint64(0));
        checkHistoryOfPrimarysError(1);
    }

    void aRouteOfOneProviderGivesTheFirstErrorAtOnce_data() { addDialectStreamRows(); }
    void aRouteOfOneProviderGivesTheFirstErrorAtOnce()
    {
        QFETCH(QString, dialect);
        QFETCH(bool, stream);
        // Both channels on the primary's ProviderConfig: another channel, or another key, of the
        // provider that refused is no other provider.
        startPair(dialect, {always(SimError::ProviderParamError)}, {}, [](EngineConfig &config) {
            config.channels[1].providerId = config.providers[0].id;
            config.providers[0].keys.push_back(ApiKeyConfig{99, QStringLiteral("second"), QStringLiteral("sk-primary-second-key"), true, {}});
        });
        const Reply reply = chat(stream);
        checkPrimarysError(reply, dialect, 1);
        QCOMPARE(m_proxy.primary->stats().chat, quint64(1));
        QCOMPARE(m_proxy.fallback->stats().chat, quint64(0));
        checkHistoryOfPrimarysError(1);
    }

    void theTryElsewhereKeepsToTheAttemptLimit()
    {
        startPair(QStringLiteral("openai_compat"), {always(SimError::ProviderParamError)}, {},
                  [](EngineConfig &config) { config.retry.maxAttempts = 1; });
        checkPrimarysError(chat(false), QStringLiteral("openai_compat"), 1);
        QCOMPARE(m_proxy.fallback->stats().chat, quint64(0));
    }

    void anOtherProviderOutOfThePoolIsNotTried()
    {
        startPair(QStringLiteral("gemini"), {always(SimError::ProviderParamError)});
        const ChannelConfig *b = m_proxy.gateway->router().config()->channel(2);
        QVERIFY(b && b->name == u"gpt-4o/B");
        QVERIFY(m_proxy.gateway->router().drain(b->id, QStringLiteral("maintenance")));
        checkPrimarysError(chat(true), QStringLiteral("gemini"), 1);
        QCOMPARE(m_proxy.fallback->stats().chat, quint64(0));
    }

    // The other front door words the same outcomes in its own API's shape.
    void anAnthropicClientGetsTheOtherProvidersMessage_data()
    {
        QTest::addColumn<QString>("dialect");
        QTest::addColumn<bool>("stream");
        for (const char *dialect : {"openai_compat", "anthropic"}) // the second passes the client's request through
            for (bool stream : {false, true})
                QTest::addRow("%s %s", dialect, stream ? "stream" : "whole") << QString::fromLatin1(dialect) << stream;
    }
    void anAnthropicClientGetsTheOtherProvidersMessage()
    {
        QFETCH(QString, dialect);
        QFETCH(bool, stream);
        startPair(dialect, {always(SimError::ProviderParamError)});
        const Reply reply = anthropicMessages(stream);
        QVERIFY2(reply.status == 200, reply.body.left(800).constData());
        QCOMPARE(reply.headers.value("x-switchboard-channel"), QByteArray("gpt-4o/B"));
        QCOMPARE(reply.headers.value("x-switchboard-attempts"), QByteArray("2"));
        if (stream) {
            QVERIFY(reply.body.contains("event: message_stop"));
            QVERIFY(!reply.body.contains("event: error"));
        } else {
            QCOMPARE(reply.json().value("type").toString(), QStringLiteral("message"));
        }
        const std::optional<RequestRecord> record = onlyRecord();
        QVERIFY(record);
        QCOMPARE(record->attempts.size(), std::size_t(2));
        QCOMPARE(toString(record->attempts.front().outcome), toString(OutcomeKind::NonRetryableParamError));
    }

    void anAnthropicClientGetsTheFirstErrorInItsShape_data() { anAnthropicClientGetsTheOtherProvidersMessage_data(); }
    void anAnthropicClientGetsTheFirstErrorInItsShape()
    {
        QFETCH(QString, dialect);
        QFETCH(bool, stream);
        startPair(dialect, {always(SimError::ProviderParamError)}, {always(SimError::BodyInvalidRequest)});
        const Reply reply = anthropicMessages(stream);
        QVERIFY2(reply.status == 400, reply.body.left(800).constData());
        QCOMPARE(reply.json().value("type").toString(), QStringLiteral("error"));
        const QJsonObject error = reply.json().value("error").toObject();
        QCOMPARE(error.value("type").toString(), QStringLiteral("invalid_request_error"));
        QVERIFY2(error.value("message").toString().contains(primaryRefusalWords(dialect)), reply.body.left(800).constData());
        QCOMPARE(reply.headers.value("x-switchboard-attempts"), QByteArray("2"));
        checkHistoryOfPrimarysError(2);
    }
};

QTEST_GUILESS_MAIN(tst_ClientErrorElsewhere)
#include "tst_ClientErrorElsewhere.moc"
