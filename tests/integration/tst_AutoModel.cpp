// The task-based model end to end: a request for `auto` through a real Gateway is classified by
// the rules and served by the small or the large route (two fake providers behind them), and the
// x-switchboard-auto-tier header and the request record say which tier.
#include "sim/FakeProvider.h"
#include "FakeProviderSpecs.h"
#include "ProxyClient.h"
#include "ProxyConfigs.h"
#include "control/Gateway.h"

#include <QtTest>
#include <QJsonArray>
#include <QJsonDocument>

#include <mutex>

using namespace sb;
using namespace sb::sim;
using namespace sb::test;
using namespace std::chrono_literals;

namespace {

// A fake provider that serves the model named like itself.
ProviderSpec spec(const QString &name)
{
    ProviderSpec s = fakeProviderSpec(name);
    s.models = {name};
    return s;
}

QJsonObject autoRequest(const QString &text, bool stream = false)
{
    return QJsonObject{{"model", "auto"},
                       {"messages", QJsonArray{QJsonObject{{"role", "user"}, {"content", text}}}},
                       {"stream", stream}};
}

} // namespace

class tst_AutoModel : public QObject {
    Q_OBJECT

private:
    SystemClock &m_clock = SystemClock::instance();
    SplitMixRandom m_random{99};
    std::unique_ptr<ScenarioClock> m_scenarioClock;
    std::unique_ptr<FakeProvider> m_small;
    std::unique_ptr<FakeProvider> m_large;
    std::unique_ptr<Gateway> m_gateway;
    ProxyClient m_client;
    std::mutex m_mutex;
    std::vector<RequestRecord> m_records;

    void startAll(std::function<void(EngineConfig &)> tweak = {})
    {
        m_scenarioClock = std::make_unique<ScenarioClock>(m_clock, 1.0);
        m_small = std::make_unique<FakeProvider>(spec(QStringLiteral("small-up")), *m_scenarioClock, m_random);
        m_large = std::make_unique<FakeProvider>(spec(QStringLiteral("large-up")), *m_scenarioClock, m_random);
        QString error;
        QVERIFY2(m_small->start(&error), qPrintable(error));
        QVERIFY2(m_large->start(&error), qPrintable(error));

        auto config = loopbackConfig();
        addSingleChannelRoute(*config, QStringLiteral("small-provider"), m_small->baseUrl(), QStringLiteral("gpt-4o-mini"),
                              QStringLiteral("mini/A"), QStringLiteral("small-up"));
        addSingleChannelRoute(*config, QStringLiteral("large-provider"), m_large->baseUrl(), QStringLiteral("gpt-4o"),
                              QStringLiteral("big/A"), QStringLiteral("large-up"));
        config->autoModel.tiers = {AutoTier{QStringLiteral("small"), QStringLiteral("gpt-4o-mini")},
                                   AutoTier{QStringLiteral("large"), QStringLiteral("gpt-4o")}};
        if (tweak)
            tweak(*config);
        QVERIFY2(config->validate().isEmpty(), qPrintable(config->validate().join(' ')));
        m_gateway = std::make_unique<Gateway>(m_clock, m_random, config);
        m_gateway->context().setRequestSink([this](RequestRecord &&record) {
            std::lock_guard lock(m_mutex);
            m_records.push_back(std::move(record));
        });
        QVERIFY2(m_gateway->start(&error), qPrintable(error));
    }

    Reply chat(const QJsonObject &body, const RawHeaders &headers = {})
    {
        return m_client.postChat(m_gateway->port(), QJsonDocument(body).toJson(QJsonDocument::Compact), headers);
    }

    std::size_t recordCount()
    {
        std::lock_guard lock(m_mutex);
        return m_records.size();
    }
    RequestRecord lastRecord()
    {
        std::lock_guard lock(m_mutex);
        return m_records.back();
    }

private slots:
    void cleanup()
    {
        if (m_gateway)
            m_gateway->stop(500ms);
        m_gateway.reset();
        m_small.reset();
        m_large.reset();
        std::lock_guard lock(m_mutex);
        m_records.clear();
    }

    void routesByTheDefaultRules_data()
    {
        QTest::addColumn<QJsonObject>("body");
        QTest::addColumn<QByteArray>("tier");
        QTest::addColumn<QByteArray>("channel");
        QTest::addColumn<bool>("stream");
        QTest::newRow("short plain prompt") << autoRequest(QStringLiteral("What is the capital of France?")) << QByteArray("small")
                                            << QByteArray("mini/A") << false;
        QTest::newRow("short plain prompt, streamed") << autoRequest(QStringLiteral("Hello there"), true) << QByteArray("small")
                                                      << QByteArray("mini/A") << true;
        QTest::newRow("code block") << autoRequest(QStringLiteral("Why does this crash?\n```c\nint *p = 0; *p = 1;\n```"))
                                    << QByteArray("large") << QByteArray("big/A") << false;
        QJsonObject tools = autoRequest(QStringLiteral("Weather in Hanoi?"), true);
        tools.insert("tools", QJsonArray{QJsonObject{{"type", "function"},
                                                     {"function", QJsonObject{{"name", "weather"}, {"parameters", QJsonObject{{"type", "object"}}}}}}});
        QTest::newRow("tools, streamed") << tools << QByteArray("large") << QByteArray("big/A") << true;
        QTest::newRow("long prompt") << autoRequest(QString(10000, QLatin1Char('w'))) << QByteArray("large") << QByteArray("big/A") << false;
    }

    void routesByTheDefaultRules()
    {
        QFETCH(QJsonObject, body);
        QFETCH(QByteArray, tier);
        QFETCH(QByteArray, channel);
        QFETCH(bool, stream);
        startAll();
        const Reply reply = chat(body);
        QCOMPARE(reply.status, 200);
        QCOMPARE(reply.headers.value("x-switchboard-auto-tier"), tier);
        QCOMPARE(reply.headers.value("x-switchboard-channel"), channel);
        QCOMPARE(reply.headers.value("x-switchboard-tier"), QByteArray("0")); // the fallback tier keeps its meaning
        if (stream)
            QVERIFY(reply.body.contains("data: [DONE]"));
        else
            QCOMPARE(reply.json().value("object").toString(), QStringLiteral("chat.completion"));
        FakeProvider &served = tier == "small" ? *m_small : *m_large;
        FakeProvider &idle = tier == "small" ? *m_large : *m_small;
        QCOMPARE(served.stats().chat, 1u);
        QCOMPARE(idle.stats().chat, 0u);

        QTRY_COMPARE(recordCount(), std::size_t(1));
        const RequestRecord r = lastRecord();
        QCOMPARE(r.autoTier, QString::fromLatin1(tier));
        QCOMPARE(r.logicalModel, tier == "small" ? QStringLiteral("gpt-4o-mini") : QStringLiteral("gpt-4o"));
    }

    void anExplicitHintWins()
    {
        startAll();
        // The header overrides the rules (a plain prompt would be small).
        Reply reply = chat(autoRequest(QStringLiteral("hi")), {{"x-switchboard-tier", "large"}});
        QCOMPARE(reply.status, 200);
        QCOMPARE(reply.headers.value("x-switchboard-auto-tier"), QByteArray("large"));
        QCOMPARE(m_large->stats().chat, 1u);

        // So does metadata.tier in the body (and the provider is not sent it).
        QJsonObject body = autoRequest(QStringLiteral("```\ncode\n```"));
        body.insert("metadata", QJsonObject{{"tier", "small"}});
        reply = chat(body);
        QCOMPARE(reply.status, 200);
        QCOMPARE(reply.headers.value("x-switchboard-auto-tier"), QByteArray("small"));
        QCOMPARE(m_small->stats().chat, 1u);
    }

    void anUnknownTierHintIs400()
    {
        startAll();
        const Reply reply = chat(autoRequest(QStringLiteral("hi")), {{"x-switchboard-tier", "gigantic"}});
        QCOMPARE(reply.status, 400);
        const QJsonObject error = reply.json().value("error").toObject();
        QCOMPARE(error.value("type").toString(), QStringLiteral("invalid_request_error"));
        QCOMPARE(error.value("code").toString(), QStringLiteral("unknown_tier"));
        QVERIFY2(error.value("message").toString().contains(QStringLiteral("small, large")), qPrintable(error.value("message").toString()));
        QCOMPARE(m_small->stats().chat + m_large->stats().chat, 0u);
    }

    void editedRulesAndNameApplyLive()
    {
        startAll();
        auto edited = std::make_shared<EngineConfig>(*m_gateway->config());
        edited->autoModel.modelName = QStringLiteral("smart");
        TierRule keyword;
        keyword.tier = QStringLiteral("large");
        keyword.keywords = {QStringLiteral("prove")};
        TierRule rest;
        rest.tier = QStringLiteral("small");
        edited->autoModel.rules = {keyword, rest};
        QVERIFY(edited->validate().isEmpty());
        m_gateway->applyConfig(edited);

        QJsonObject body = autoRequest(QStringLiteral("PROVE that 2 is prime"));
        body.insert("model", "smart");
        Reply reply = chat(body);
        QCOMPARE(reply.status, 200);
        QCOMPARE(reply.headers.value("x-switchboard-auto-tier"), QByteArray("large"));
        // The old name is now just an unknown model.
        reply = chat(autoRequest(QStringLiteral("hi")));
        QCOMPARE(reply.status, 404);
        QVERIFY(!reply.headers.contains("x-switchboard-auto-tier"));
    }

    void theModelListShowsTheTaskBasedModel()
    {
        startAll();
        const Reply reply = m_client.request(m_gateway->port(), "GET", QStringLiteral("/v1/models"));
        QCOMPARE(reply.status, 200);
        QStringList ids;
        for (const QJsonValue &m : reply.json().value("data").toArray())
            ids << m.toObject().value("id").toString();
        QVERIFY2(ids.contains(QStringLiteral("auto")), qPrintable(ids.join(',')));
    }
};

QTEST_GUILESS_MAIN(tst_AutoModel)
#include "tst_AutoModel.moc"
