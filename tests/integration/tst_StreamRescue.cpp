// Streams that survive: the primary breaks a stream after part of the answer reached the client
// (cut, error event, stall; in English and inside Chinese characters; with a fallback that takes
// a prefill and one that is asked in words), and the client still gets one well-formed stream
// with the whole answer — checked against the simulator's own record of what each attempt sent.
#include "FakeProviderSpecs.h"
#include "ProxyClient.h"
#include "ProxyUnderTest.h"
#include "RequestRecords.h"
#include "StreamText.h"

#include "sim/SimText.h"

#include <QtTest>
#include <QJsonArray>
#include <QJsonDocument>

using namespace sb;
using namespace sb::sim;
using namespace sb::test;
using namespace std::chrono_literals;

namespace {

FaultSpec breakAfter(SimError error, int chars)
{
    FaultSpec fault = always(error);
    fault.afterChars = chars;
    return fault;
}

QByteArray streamBody(bool withUsage)
{
    QJsonObject body{{"model", "gpt-4o"},
                     {"stream", true},
                     {"messages", QJsonArray{QJsonObject{{"role", "user"}, {"content", "Tell me about the router."}}}}};
    if (withUsage)
        body.insert("stream_options", QJsonObject{{"include_usage", true}});
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

} // namespace

class tst_StreamRescue : public QObject {
    Q_OBJECT

private:
    SystemClock &m_clock = SystemClock::instance();
    SplitMixRandom m_random{4321};
    ProxyUnderTest m_proxy{m_clock, m_random};
    ProxyClient m_client;
    RequestRecords m_records;

    // The fallback answers in `language` too unless `fallbackLanguage` says otherwise.
    void start(const QString &dialect, FaultSpec primaryFault, ProviderSpec fallback, Language language = Language::English,
               std::function<void(EngineConfig &)> tweak = {}, std::optional<Language> fallbackLanguage = std::nullopt)
    {
        ProviderSpec primary = fakeProviderSpec("primary", {primaryFault});
        primary.language = language;
        primary.completionTokens = 24;
        fallback.language = fallbackLanguage.value_or(language);
        fallback.completionTokens = 24;
        QString error;
        QVERIFY2(m_proxy.startInDialect(dialect, std::move(primary), std::move(fallback), tweak, &error), qPrintable(error));
        m_records.attach(*m_proxy.gateway);
    }

    Reply stream(bool withUsage = false)
    {
        return m_client.request(m_proxy.gateway->port(), "POST", "/v1/chat/completions", streamBody(withUsage));
    }

    // What the primary sent before it broke, and the whole answer that begins with it.
    static std::pair<QString, QString> partAndWhole(const FakeProvider &primary, Language language)
    {
        const auto answers = primary.stats().answers;
        if (answers.empty())
            return {};
        const QByteArray part = answers.back().text;
        const QByteArray rest = SimText::join(SimText::continuation(language, 24, part, 0).value_or(std::vector<QByteArray>()));
        return {QString::fromUtf8(part), QString::fromUtf8(part + rest)};
    }

private slots:
    void cleanup()
    {
        m_proxy.stop();
        m_records.clear();
    }

    void aBrokenStreamIsContinuedOnTheFallback_data()
    {
        QTest::addColumn<QString>("dialect");
        QTest::addColumn<int>("error");
        QTest::addColumn<int>("afterChars");
        QTest::addColumn<int>("language");
        QTest::addColumn<int>("overlap");
        QTest::addColumn<int>("fallbackLanguage");
        using enum Language;
        for (const char *dialect : {"openai_compat", "anthropic"}) {
            const auto row = [dialect](const char *name, SimError error, int afterChars, Language language, int overlap,
                                       Language fallbackLanguage) {
                QTest::addRow("%s: %s", dialect, name)
                    << QString::fromLatin1(dialect) << int(error) << afterChars << int(language) << overlap << int(fallbackLanguage);
            };
            row("cut after 20 characters", SimError::StreamCut, 20, English, 0, English);
            row("error event after 20", SimError::MidStreamError, 20, English, 0, English);
            row("cut after the first token", SimError::StreamCut, 1, English, 0, English);
            row("cut inside a Chinese character", SimError::StreamCut, 7, Chinese, 0, Chinese);
            row("the fallback repeats 12 characters", SimError::StreamCut, 30, English, 12, English);
            row("mixed languages, repeat of 9", SimError::MidStreamError, 25, Mixed, 9, Mixed);
            // The fallback would answer in Vietnamese itself; asked to go on, it goes on in English.
            row("a fallback of another language", SimError::StreamCut, 30, English, 0, Vietnamese);
        }
    }

    void aBrokenStreamIsContinuedOnTheFallback()
    {
        QFETCH(QString, dialect);
        QFETCH(int, error);
        QFETCH(int, afterChars);
        QFETCH(int, language);
        QFETCH(int, overlap);
        QFETCH(int, fallbackLanguage);
        ProviderSpec fallback = fakeProviderSpec("fallback");
        fallback.continuationOverlap = overlap;
        start(dialect, breakAfter(static_cast<SimError>(error), afterChars), fallback, static_cast<Language>(language), {},
              static_cast<Language>(fallbackLanguage));

        const Reply reply = stream();
        QCOMPARE(reply.status, 200);
        const StreamText text = parseStream(reply.body);
        QVERIFY2(text.error.isEmpty(), reply.body.constData());
        QVERIFY2(text.done, reply.body.constData()); // one stream, one [DONE]
        QCOMPARE(reply.body.count("data: [DONE]"), 1);

        const auto [part, whole] = partAndWhole(*m_proxy.primary, static_cast<Language>(language));
        QVERIFY(!part.isEmpty());
        QCOMPARE(text.content, whole); // nothing twice, nothing missing

        // The fallback was asked to go on from exactly what the client had.
        const auto fallbackAnswers = m_proxy.fallback->stats().answers;
        QCOMPARE(fallbackAnswers.size(), std::size_t(1));
        const QByteArray asked = fallbackAnswers.front().partial;
        if (dialect == QLatin1String("anthropic"))
            QCOMPARE(QString::fromUtf8(asked), part.trimmed()); // a prefill, without its trailing space
        else
            QCOMPARE(QString::fromUtf8(asked), part);
        QVERIFY(fallbackAnswers.front().complete);

        // One chunk identity throughout, and no second role.
        QSet<QString> ids;
        int roles = 0;
        for (const QByteArray &data : sseData(reply.body)) {
            if (data == "[DONE]")
                continue;
            const QJsonObject chunk = QJsonDocument::fromJson(data).object();
            ids.insert(chunk["id"].toString());
            roles += chunk["choices"][0]["delta"].toObject().contains("role");
        }
        QCOMPARE(ids.size(), 1);
        QVERIFY(roles <= 1);

        // The history keeps both attempts, and where the answer was spliced.
        const auto record = m_records.waitForOnly();
        QVERIFY(record);
        QCOMPARE(record->status, RequestStatus::Ok);
        QCOMPARE(int(record->attempts.size()), 2);
        QCOMPARE(record->attempts[0].phase, OutcomePhase::MidStream);
        QVERIFY2(record->attempts[1].message.startsWith(QStringLiteral("continued the answer after %1 characters").arg(part.toUcs4().size())),
                 qPrintable(record->attempts[1].message));
        QVERIFY(record->failover);
    }

    void theUsageIsSummedOverBothAttempts()
    {
        start("openai_compat", breakAfter(SimError::StreamCut, 20), fakeProviderSpec("fallback"));
        const Reply reply = stream(true);
        const StreamText text = parseStream(reply.body);
        QVERIFY2(text.done && text.error.isEmpty(), reply.body.constData());
        const auto [part, whole] = partAndWhole(*m_proxy.primary, Language::English);
        QCOMPARE(text.content, whole);
        // The cut attempt reported nothing: its text is estimated at four characters a token.
        const int restTokens = int(SimText::continuation(Language::English, 24, part.toUtf8(), 0).value_or(std::vector<QByteArray>()).size());
        const int estimated = int((part.size() + 3) / 4);
        QCOMPARE(text.usage["completion_tokens"].toInt(), restTokens + estimated);
        const auto record = m_records.waitForOnly();
        QVERIFY(record);
        QCOMPARE(record->outputTokens, restTokens + estimated);
        QVERIFY(record->inputTokens > text.usage["prompt_tokens"].toInt() / 2); // both prompts counted
    }

    void aStallAfterContentIsContinued()
    {
        start("openai_compat", breakAfter(SimError::StreamStall, 20), fakeProviderSpec("fallback"), Language::English,
              [](EngineConfig &c) { c.retry.streamIdleTimeout = 300ms; });
        const Reply reply = stream();
        const StreamText text = parseStream(reply.body);
        QVERIFY2(text.done && text.error.isEmpty(), reply.body.constData());
        QCOMPARE(text.content, partAndWhole(*m_proxy.primary, Language::English).second);
    }

    void aBreakBeforeTheFirstContentFailsOverUnseen_data()
    {
        QTest::addColumn<QString>("dialect");
        QTest::addColumn<int>("error");
        for (const char *dialect : {"openai_compat", "anthropic"}) {
            QTest::addRow("%s: an error event right after the start", dialect) << dialect << int(SimError::ErrorAfterStart);
            QTest::addRow("%s: a cut inside the first content event", dialect) << dialect << int(SimError::StreamCut);
        }
    }

    void aBreakBeforeTheFirstContentFailsOverUnseen()
    {
        QFETCH(QString, dialect);
        QFETCH(int, error);
        start(dialect, breakAfter(static_cast<SimError>(error), 0), fakeProviderSpec("fallback"));
        const Reply reply = stream();
        const StreamText text = parseStream(reply.body);
        QVERIFY2(text.done && text.error.isEmpty(), reply.body.constData());
        QCOMPARE(reply.headers.value("x-switchboard-channel"), QByteArray("gpt-4o/B")); // chosen before a byte went out
        const auto record = m_records.waitForOnly();
        QVERIFY(record);
        QCOMPARE(record->attempts[0].phase, OutcomePhase::BeforeFirstByte);
        QVERIFY(!record->attempts[1].message.startsWith(QStringLiteral("continued")));
        QVERIFY(m_proxy.fallback->stats().answers.front().partial.isEmpty()); // a fresh answer
    }

    void continuationTurnedOffEndsWithTheErrorEvent_data()
    {
        QTest::addColumn<bool>("inSettings");
        QTest::addRow("in Settings") << true;
        QTest::addRow("for the route") << false;
    }

    void continuationTurnedOffEndsWithTheErrorEvent()
    {
        QFETCH(bool, inSettings);
        start("openai_compat", breakAfter(SimError::StreamCut, 20), fakeProviderSpec("fallback"), Language::English,
              [inSettings](EngineConfig &c) {
                  if (inSettings)
                      c.retry.continueStreams = false;
                  else
                      for (RouteConfig &r : c.routes)
                          r.continueStreams = false;
              });
        const Reply reply = stream();
        const StreamText text = parseStream(reply.body);
        QVERIFY(!text.content.isEmpty());
        QVERIFY(!text.done);
        QVERIFY2(!text.error.isEmpty(), reply.body.constData());
        QCOMPARE(m_proxy.fallback->stats().chat, 0u);
        const auto record = m_records.waitForOnly();
        QVERIFY(record);
        QCOMPARE(record->status, RequestStatus::MidStream);
        QVERIFY2(record->error.contains(inSettings ? QStringLiteral("not continued: continuation is turned off in Settings")
                                                   : QStringLiteral("not continued: continuation is turned off for this route")),
                 qPrintable(record->error));
    }

    // The other front doors word the continuation with the same writer as the beginning: one
    // Anthropic message, one Responses response, their indexes and ids unbroken.
    void anAnthropicClientGetsOneMessage_data()
    {
        QTest::addColumn<QString>("dialect");
        QTest::addRow("translated from an OpenAI-compatible upstream") << "openai_compat";
        QTest::addRow("passed through from an Anthropic upstream") << "anthropic"; // Claude Code's path
    }

    void anAnthropicClientGetsOneMessage()
    {
        QFETCH(QString, dialect);
        start(dialect, breakAfter(SimError::StreamCut, 20), fakeProviderSpec("fallback"));
        const QByteArray body = R"({"model":"gpt-4o","max_tokens":256,"stream":true,"messages":[{"role":"user","content":"Tell me."}]})";
        const Reply reply = m_client.request(m_proxy.gateway->port(), "POST", "/v1/messages", body,
                                             RawHeaders{{"anthropic-version", "2023-06-01"}});
        QCOMPARE(reply.status, 200);
        QString text;
        int stops = 0, starts = 0, blockStarts = 0;
        for (const QByteArray &data : sseData(reply.body)) {
            const QJsonObject event = QJsonDocument::fromJson(data).object();
            const QString type = event["type"].toString();
            QVERIFY2(type != QLatin1String("error"), data.constData());
            stops += type == QLatin1String("message_stop");
            starts += type == QLatin1String("message_start");
            blockStarts += type == QLatin1String("content_block_start");
            if (type == QLatin1String("content_block_delta")) {
                QCOMPARE(event["index"].toInt(), 0);
                text += event["delta"]["text"].toString();
            }
        }
        QCOMPARE(starts, 1);
        QCOMPARE(blockStarts, 1);
        QCOMPARE(stops, 1);
        QCOMPARE(text, partAndWhole(*m_proxy.primary, Language::English).second);
        const auto record = m_records.waitForOnly();
        QVERIFY(record);
        QCOMPARE(record->status, RequestStatus::Ok);
        QCOMPARE(int(record->attempts.size()), 2);
    }

    void aResponsesClientGetsOneResponse_data()
    {
        QTest::addColumn<bool>("passedThrough");
        QTest::addColumn<int>("error");
        QTest::addRow("translated from chat completions") << false << int(SimError::MidStreamError);
        // A provider that speaks the Responses API itself: its events, ids and numbering, taken up.
        QTest::addRow("passed through, an error event") << true << int(SimError::MidStreamError);
        QTest::addRow("passed through, a cut") << true << int(SimError::StreamCut);
    }

    void aResponsesClientGetsOneResponse()
    {
        QFETCH(bool, passedThrough);
        QFETCH(int, error);
        start("openai_compat", breakAfter(static_cast<SimError>(error), 20), fakeProviderSpec("fallback"), Language::English,
              [passedThrough](EngineConfig &c) {
                  for (ProviderConfig &p : c.providers)
                      p.responsesApi = passedThrough;
              });
        const QByteArray body = R"({"model":"gpt-4o","stream":true,"store":false,"input":"Tell me."})";
        const Reply reply = m_client.request(m_proxy.gateway->port(), "POST", "/v1/responses", body);
        QCOMPARE(reply.status, 200);
        QString text, done, completedText;
        int completed = 0, lastSequence = -1;
        QSet<QString> itemIds, addedIds;
        for (const QByteArray &data : sseData(reply.body)) {
            const QJsonObject event = QJsonDocument::fromJson(data).object();
            const QString type = event["type"].toString();
            QVERIFY2(type != QLatin1String("error") && type != QLatin1String("response.failed"), data.constData());
            QCOMPARE(event["sequence_number"].toInt(), lastSequence + 1); // one numbering, no gap
            lastSequence = event["sequence_number"].toInt();
            completed += type == QLatin1String("response.completed");
            if (type == QLatin1String("response.output_item.added"))
                addedIds.insert(event["item"]["id"].toString());
            if (type == QLatin1String("response.completed"))
                completedText = event["response"]["output"][0]["content"][0]["text"].toString();
            if (type == QLatin1String("response.output_text.delta")) {
                text += event["delta"].toString();
                itemIds.insert(event["item_id"].toString());
            }
            if (type == QLatin1String("response.output_text.done"))
                done = event["text"].toString();
        }
        QCOMPARE(completed, 1);
        QCOMPARE(itemIds.size(), 1);
        QCOMPARE(addedIds, itemIds); // the item the deltas name is the one that was added
        const QString whole = partAndWhole(*m_proxy.primary, Language::English).second;
        QCOMPARE(text, whole);
        QCOMPARE(done, whole);
        QCOMPARE(completedText, whole);
        const auto record = m_records.waitForOnly();
        QVERIFY(record);
        QCOMPARE(record->status, RequestStatus::Ok);
        QCOMPARE(int(record->attempts.size()), 2);
        if (passedThrough)
            QVERIFY(itemIds.values().front().startsWith(QStringLiteral("msg_sim"))); // the upstream's own id
    }

    void noChannelLeftSaysSo()
    {
        start("openai_compat", breakAfter(SimError::StreamCut, 20), fakeProviderSpec("fallback", {breakAfter(SimError::StreamCut, 5)}),
              Language::English, [](EngineConfig &c) { c.retry.maxAttempts = 2; });
        const Reply reply = stream();
        const StreamText text = parseStream(reply.body);
        QVERIFY2(!text.error.isEmpty(), reply.body.constData()); // the continuation broke too, and no attempt is left
        QVERIFY(!text.done);
        const auto record = m_records.waitForOnly();
        QVERIFY(record);
        QCOMPARE(record->status, RequestStatus::MidStream);
        QCOMPARE(int(record->attempts.size()), 2);
        QVERIFY2(record->error.contains(QStringLiteral("not continued: the route's attempts were used up")), qPrintable(record->error));
        // What did reach the client is the passage's own text, spliced without a seam.
        const auto [part, whole] = partAndWhole(*m_proxy.primary, Language::English);
        QVERIFY2(whole.startsWith(text.content), qPrintable(text.content));
        QVERIFY(text.content.size() > part.size());
    }

    // A third channel the continuation could not use: the row says which and why, as an error
    // before the first byte would.
    void aChannelLeftOutOfTheContinuationIsNamedWithItsReason()
    {
        start("openai_compat", breakAfter(SimError::StreamCut, 20), fakeProviderSpec("fallback", {breakAfter(SimError::StreamCut, 5)}),
              Language::English, [](EngineConfig &c) {
                  c.retry.maxAttempts = 3;
                  ProviderConfig spare = c.providers.back();
                  spare.id = 90;
                  spare.name = QStringLiteral("spare");
                  for (ApiKeyConfig &key : spare.keys) {
                      key.id += 90;
                      key.enabled = false;
                      key.disabledReason = QStringLiteral("revoked by the team");
                  }
                  c.providers.push_back(spare);
                  ChannelConfig channel = c.channels.back();
                  channel.id = 90;
                  channel.name = QStringLiteral("spare/m");
                  channel.providerId = spare.id;
                  c.channels.push_back(channel);
                  c.routes.front().channelIds.push_back(channel.id);
              });
        const Reply reply = stream();
        QVERIFY2(!parseStream(reply.body).error.isEmpty(), reply.body.constData());
        const auto record = m_records.waitForOnly();
        QVERIFY(record);
        QCOMPARE(record->status, RequestStatus::MidStream);
        QVERIFY2(record->error.contains(QStringLiteral("not continued: ")), qPrintable(record->error));
        QVERIFY2(record->error.contains(QStringLiteral("not tried: spare/m: every API key is disabled")), qPrintable(record->error));
    }
};

QTEST_GUILESS_MAIN(tst_StreamRescue)
#include "tst_StreamRescue.moc"
