// Cost end to end: a real Gateway on loopback in front of the simulator's fake providers, one per
// dialect. Every finished request's token usage (streamed usage included) and cost reach the
// request record and the route's spend; a spent hard budget answers 429 in OpenAI's error format;
// crossing a soft limit raises one budget event; prompt tokens an Anthropic upstream read from or
// wrote to its cache are recorded apart and billed at their own prices.
#include "FakeProviderSpecs.h"
#include "ProxyClient.h"
#include "ProxyConfigs.h"
#include "ProxyUnderTest.h"
#include "StreamText.h"
#include "net/HttpServer.h"
#include "net/ResponseWriter.h"

#include <QFile>
#include <QtTest>
#include <QJsonArray>
#include <QJsonDocument>

#include <mutex>

using namespace sb;
using namespace sb::sim;
using namespace sb::test;
using namespace std::chrono_literals;

namespace {

constexpr int kCompletionTokens = 12;

// What the Gateway hands to the history and the event stream, collected across worker threads.
struct Sink {
    std::mutex mutex;
    std::vector<RequestRecord> records;
    std::vector<HealthEvent> budgetEvents;

    std::size_t recordCount()
    {
        std::lock_guard lock(mutex);
        return records.size();
    }
    RequestRecord last()
    {
        std::lock_guard lock(mutex);
        return records.back();
    }
    std::vector<HealthEvent> events()
    {
        std::lock_guard lock(mutex);
        return budgetEvents;
    }
};

QByteArray chatBodyWithUsage(bool stream, bool includeUsage)
{
    QJsonObject body{{"model", "m"},
                     {"messages", QJsonArray{QJsonObject{{"role", "user"}, {"content", "Say something about the sea."}}}},
                     {"stream", stream}};
    if (includeUsage)
        body.insert("stream_options", QJsonObject{{"include_usage", true}});
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

QByteArray fixture(const QString &relative)
{
    QFile file(QStringLiteral(SB_SOURCE_DIR "/tests/fixtures/") + relative);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("missing fixture %s", qPrintable(relative));
    return file.readAll();
}

// An Anthropic upstream whose prompt cache is warm, which the simulator does not play: a whole
// answer reads 3,200 of its 3,242 prompt tokens from the cache; a stream reads 1,500 and writes
// 500 of its 2,030.
class PromptCachingUpstream : public HttpHandler {
public:
    void handle(const HttpRequest &request, std::shared_ptr<ResponseWriter> response) override
    {
        HttpHeaders headers;
        if (QJsonDocument::fromJson(request.body).object().value(QStringLiteral("stream")).toBool()) {
            headers.set("Content-Type", "text/event-stream");
            response->startStream(200, headers);
            response->write(fixture(QStringLiteral("anthropic/text_cache.sse")));
            response->finish();
            return;
        }
        headers.set("Content-Type", "application/json");
        response->send(200, headers, fixture(QStringLiteral("anthropic/message_cache_read_200.json")));
    }
};

} // namespace

class tst_CostTracking : public QObject {
    Q_OBJECT

private:
    SystemClock &m_clock = SystemClock::instance();
    SplitMixRandom m_random{4321};
    ProxyUnderTest m_proxy{m_clock, m_random};
    std::shared_ptr<Sink> m_sink;
    ProxyClient m_client;

    void startAll(const QString &dialect, std::function<void(EngineConfig &)> tweak = {})
    {
        ProviderSpec spec = fakeProviderSpec(dialect);
        spec.dialect = dialect;
        spec.models = {QStringLiteral("up-model")};
        spec.completionTokens = kCompletionTokens;
        QString error;
        QVERIFY2(m_proxy.startProviders(spec, &error), qPrintable(error));

        auto config = oneChannelConfig(dialect, m_proxy.primary->baseUrl(), QStringLiteral("m"));
        config->providers.front().dialect = dialect;
        config->channels.front().upstreamModel = QStringLiteral("up-model-2024-11-20"); // priced through its undated name
        config->prices = {ModelPrice{QStringLiteral("up-model"), 3.0, 15.0}};
        if (tweak)
            tweak(*config);
        startGateway(config);
    }

    // The Gateway over `config`, its finished requests and budget events collected in m_sink.
    void startGateway(const std::shared_ptr<EngineConfig> &config)
    {
        QString error;
        QVERIFY2(config->validate().isEmpty(), qPrintable(config->validate().join(' ')));
        m_proxy.gateway = std::make_unique<Gateway>(m_clock, m_random, config);
        m_sink = std::make_shared<Sink>();
        std::weak_ptr<Sink> weak = m_sink;
        m_proxy.gateway->context().setRequestSink([weak](RequestRecord &&record) {
            if (auto sink = weak.lock()) {
                std::lock_guard lock(sink->mutex);
                sink->records.push_back(std::move(record));
            }
        });
        connect(m_proxy.gateway.get(), &Gateway::healthEvent, this, [weak](const HealthEvent &event) {
            if (event.type != HealthEvent::Type::Budget)
                return;
            if (auto sink = weak.lock()) {
                std::lock_guard lock(sink->mutex);
                sink->budgetEvents.push_back(event);
            }
        }, Qt::DirectConnection);
        QVERIFY2(m_proxy.gateway->start(&error), qPrintable(error));
    }

    Reply chat(const QByteArray &body) { return m_client.postChat(m_proxy.gateway->port(), body); }

private slots:
    void cleanup()
    {
        m_proxy.stop();
        m_sink.reset();
    }

    void usageAndCostAreRecordedForEveryDialect_data()
    {
        QTest::addColumn<QString>("dialect");
        QTest::addColumn<bool>("stream");
        QTest::addColumn<bool>("includeUsage");
        for (const char *d : {"openai_compat", "anthropic", "gemini", "dashscope", "ernie"}) {
            QTest::addRow("%s non-stream", d) << QString::fromLatin1(d) << false << false;
            QTest::addRow("%s stream with include_usage", d) << QString::fromLatin1(d) << true << true;
            // The client did not ask for usage; the proxy still needs it for the cost.
            QTest::addRow("%s stream without include_usage", d) << QString::fromLatin1(d) << true << false;
        }
    }

    void usageAndCostAreRecordedForEveryDialect()
    {
        QFETCH(QString, dialect);
        QFETCH(bool, stream);
        QFETCH(bool, includeUsage);
        startAll(dialect);
        const Reply reply = chat(chatBodyWithUsage(stream, includeUsage));
        QCOMPARE(reply.status, 200);
        QTRY_COMPARE(m_sink->recordCount(), std::size_t(1));
        const RequestRecord r = m_sink->last();
        QCOMPARE(r.status, RequestStatus::Ok);
        QCOMPARE(r.outputTokens, kCompletionTokens);
        QVERIFY2(r.inputTokens > 0, qPrintable(QString::number(r.inputTokens)));
        QVERIFY(r.costKnown);
        const double expected = (r.inputTokens * 3.0 + r.outputTokens * 15.0) / 1e6;
        QVERIFY2(qAbs(r.costUsd - expected) < 1e-12, qPrintable(QStringLiteral("%1 vs %2").arg(r.costUsd).arg(expected)));
        QVERIFY(r.costUsd > 0);

        // The route's spend and the day's total carry it; the gateway's token totals too.
        const qint64 now = m_clock.wallMillis();
        QVERIFY(qAbs(m_proxy.gateway->context().costMeter().spent(QStringLiteral("m"), BudgetPeriod::Day, now) - r.costUsd) < 1e-12);
        QVERIFY(qAbs(m_proxy.gateway->context().costMeter().stats(now).todayUsd - r.costUsd) < 1e-12);
        const MetricsSnapshot snapshot = m_proxy.gateway->snapshot(); // what the console's "Cost today" tile reads
        QCOMPARE(snapshot.outputTokens, std::uint64_t(kCompletionTokens));
        QVERIFY(qAbs(snapshot.costTodayUsd - r.costUsd) < 1e-12);

        if (stream) {
            const QJsonObject usage = parseStream(reply.body).usage;
            QCOMPARE(usage.isEmpty(), !includeUsage); // only a client that asked gets the usage chunk
            if (includeUsage) {
                QCOMPARE(usage.value("completion_tokens").toInt(), kCompletionTokens);
                QCOMPARE(usage.value("prompt_tokens").toInt(), r.inputTokens);
            }
        } else {
            QCOMPARE(reply.json().value("usage").toObject().value("completion_tokens").toInt(), kCompletionTokens);
        }
    }

    void cachedPromptTokensAreRecordedAndBilledAtTheCachePrice_data()
    {
        QTest::addColumn<bool>("stream");
        QTest::addColumn<int>("prompt");
        QTest::addColumn<int>("cacheRead");
        QTest::addColumn<int>("cacheWrite");
        QTest::addColumn<int>("completion");
        QTest::newRow("whole answer") << false << 3242 << 3200 << 0 << 18;
        QTest::newRow("stream") << true << 2030 << 1500 << 500 << 8;
    }

    void cachedPromptTokensAreRecordedAndBilledAtTheCachePrice()
    {
        QFETCH(bool, stream);
        QFETCH(int, prompt);
        QFETCH(int, cacheRead);
        QFETCH(int, cacheWrite);
        QFETCH(int, completion);
        HttpServer upstream(HttpServerLimits(), [](int) { return std::make_unique<PromptCachingUpstream>(); }, 1);
        QString error;
        QVERIFY2(upstream.listen(QHostAddress::LocalHost, 0, &error), qPrintable(error));
        auto config = oneChannelConfig(QStringLiteral("claude"), QStringLiteral("http://127.0.0.1:%1/v1").arg(upstream.serverPort()),
                                       QStringLiteral("m"));
        config->providers.front().dialect = QStringLiteral("anthropic");
        config->channels.front().upstreamModel = QStringLiteral("up-model");
        // Reads at 10% of the input price and writes at 125%, as Anthropic bills them.
        config->prices = {ModelPrice{QStringLiteral("up-model"), 3.0, 15.0, 0.30, 3.75}};
        startGateway(config);

        const Reply reply = chat(chatBodyWithUsage(stream, true));
        QCOMPARE(reply.status, 200);
        QTRY_COMPARE(m_sink->recordCount(), std::size_t(1));
        const RequestRecord r = m_sink->last();
        QCOMPARE(r.status, RequestStatus::Ok);
        QCOMPARE(r.inputTokens, prompt); // the whole prompt, cached parts included
        QCOMPARE(r.cacheReadTokens, cacheRead);
        QCOMPARE(r.cacheWriteTokens, cacheWrite);
        QCOMPARE(r.outputTokens, completion);
        QVERIFY(r.costKnown);
        const double expected = ((prompt - cacheRead - cacheWrite) * 3.0 + cacheRead * 0.30 + cacheWrite * 3.75 + completion * 15.0) / 1e6;
        QVERIFY2(qAbs(r.costUsd - expected) < 1e-12, qPrintable(QStringLiteral("%1 vs %2").arg(r.costUsd).arg(expected)));
        const double fullPrice = (prompt * 3.0 + completion * 15.0) / 1e6;
        QVERIFY2(r.costUsd < fullPrice, qPrintable(QStringLiteral("%1 vs %2").arg(r.costUsd).arg(fullPrice)));

        // The client hears of the cache in OpenAI's words.
        const QJsonObject usage = stream ? parseStream(reply.body).usage : reply.json().value("usage").toObject();
        QCOMPARE(usage.value("prompt_tokens").toInt(), prompt);
        QCOMPARE(usage.value("prompt_tokens_details").toObject().value("cached_tokens").toInt(), cacheRead);
        QCOMPARE(usage.value("prompt_tokens_details").toObject().value("cache_write_tokens").toInt(), cacheWrite);
        m_proxy.stop();
        upstream.shutdown(500ms);
    }

    void anUnpricedModelHasUnknownCostNotZero()
    {
        startAll(QStringLiteral("openai_compat"), [](EngineConfig &c) { c.prices.clear(); });
        QCOMPARE(chat(chatBodyWithUsage(false, false)).status, 200);
        QTRY_COMPARE(m_sink->recordCount(), std::size_t(1));
        const RequestRecord r = m_sink->last();
        QCOMPARE(r.outputTokens, kCompletionTokens);
        QVERIFY(!r.costKnown);
        QCOMPARE(r.costUsd, 0.0);
        QCOMPARE(m_proxy.gateway->context().costMeter().stats(m_clock.wallMillis()).unpricedToday, 1u);
        QCOMPARE(m_proxy.gateway->snapshot().unpricedToday, 1u);
        QCOMPARE(m_proxy.gateway->snapshot().costTodayUsd, 0.0);
    }

    void aSpentHardBudgetAnswers429InOpenAiFormat()
    {
        // Limits far below one request's cost: the first request spends the budget.
        startAll(QStringLiteral("openai_compat"), [](EngineConfig &c) {
            c.budgets = {BudgetConfig{QStringLiteral("m"), BudgetPeriod::Day, 0.0000001, 0.0000002}};
        });
        QCOMPARE(chat(chatBodyWithUsage(false, false)).status, 200);
        QTRY_COMPARE(m_sink->recordCount(), std::size_t(1));
        QTRY_COMPARE(m_sink->events().size(), std::size_t(2));
        const auto events = m_sink->events();
        QCOMPARE(events[0].to, QStringLiteral("over_soft_limit"));
        QCOMPARE(events[1].to, QStringLiteral("hard_stop"));
        QCOMPARE(events[0].channelName, QStringLiteral("m"));

        const quint64 upstreamBefore = m_proxy.primary->stats().chat;
        for (bool stream : {false, true}) {
            const Reply refused = chat(chatBodyWithUsage(stream, false));
            QCOMPARE(refused.status, 429);
            QVERIFY(refused.headers.value("content-type").startsWith("application/json"));
            const QJsonObject error = refused.json().value("error").toObject();
            QCOMPARE(error.value("type").toString(), QStringLiteral("insufficient_quota"));
            QCOMPARE(error.value("code").toString(), QStringLiteral("insufficient_quota"));
            QVERIFY2(error.value("message").toString().contains(QStringLiteral("daily budget of route \"m\"")),
                     qPrintable(error.value("message").toString()));
            const int retryAfter = refused.headers.value("retry-after").toInt();
            QVERIFY(retryAfter >= 1 && retryAfter <= 24 * 3600);
        }
        QCOMPARE(m_proxy.primary->stats().chat, upstreamBefore); // refused before any provider was asked
        QTRY_COMPARE(m_sink->recordCount(), std::size_t(3));
        QCOMPARE(m_sink->last().httpStatus, 429);
        QCOMPARE(m_sink->events().size(), std::size_t(2)); // alerts once per period, not per refusal

        // Raising the limit applies live.
        auto raised = std::make_shared<EngineConfig>(*m_proxy.gateway->config());
        raised->budgets[0].hardLimitUsd = 100.0;
        m_proxy.gateway->applyConfig(raised);
        QCOMPARE(chat(chatBodyWithUsage(false, false)).status, 200);
    }
};

QTEST_GUILESS_MAIN(tst_CostTracking)
#include "tst_CostTracking.moc"
