// The task-based model end to end: a request for `auto` through a real Gateway is classified by
// the rules and served by the small or the large route (two fake providers behind them), and the
// x-switchboard-auto-tier header and the request record say which tier.
#include "FakeProvider.h"
#include "engine/Gateway.h"

#include <QtTest>
#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>

#include <mutex>

using namespace sb;
using namespace sb::sim;
using namespace std::chrono_literals;

namespace {

struct Reply {
    int status = 0;
    QByteArray body;
    QHash<QByteArray, QByteArray> headers; // lower-case names
    QJsonObject json() const { return QJsonDocument::fromJson(body).object(); }
};

ProviderSpec spec(const QString &name)
{
    ProviderSpec s;
    s.name = name;
    s.dialect = QStringLiteral("openai_compat");
    s.models = {name};
    s.ttftMs = Distribution::constant(5);
    s.tokensPerSecond = Distribution::constant(5000);
    s.completionTokens = 8;
    return s;
}

QJsonObject chatBody(const QString &text, bool stream = false)
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
    QNetworkAccessManager m_http;
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

        auto config = std::make_shared<EngineConfig>();
        config->proxy.listenPort = 0;
        ProviderConfig a;
        a.id = 1;
        a.name = QStringLiteral("small-provider");
        a.dialect = QStringLiteral("openai_compat");
        a.baseUrl = m_small->baseUrl();
        a.keys = {ApiKeyConfig{1, QStringLiteral("k"), QStringLiteral("sk-small-0001"), true, {}}};
        ProviderConfig b = a;
        b.id = 2;
        b.name = QStringLiteral("large-provider");
        b.baseUrl = m_large->baseUrl();
        b.keys = {ApiKeyConfig{2, QStringLiteral("k"), QStringLiteral("sk-large-0002"), true, {}}};
        config->providers = {a, b};
        config->channels = {ChannelConfig{1, QStringLiteral("mini/A"), 1, QStringLiteral("small-up"), 1.0, true, {}, {}, {}},
                            ChannelConfig{2, QStringLiteral("big/A"), 2, QStringLiteral("large-up"), 1.0, true, {}, {}, {}}};
        RouteConfig mini;
        mini.id = 1;
        mini.logicalModel = QStringLiteral("gpt-4o-mini");
        mini.channelIds = {1};
        RouteConfig big;
        big.id = 2;
        big.logicalModel = QStringLiteral("gpt-4o");
        big.channelIds = {2};
        config->routes = {mini, big};
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

    Reply send(const QByteArray &method, const QString &path, const QByteArray &body, QList<QPair<QByteArray, QByteArray>> headers = {})
    {
        QNetworkRequest req(QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(m_gateway->port()).arg(path)));
        req.setHeader(QNetworkRequest::ContentTypeHeader, "application/json");
        for (const auto &h : headers)
            req.setRawHeader(h.first, h.second);
        QNetworkReply *reply = m_http.sendCustomRequest(req, method, body);
        QSignalSpy finished(reply, &QNetworkReply::finished);
        if (!reply->isFinished())
            finished.wait(20000);
        Reply out;
        out.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        out.body = reply->readAll();
        for (const auto &pair : reply->rawHeaderPairs())
            out.headers.insert(pair.first.toLower(), pair.second);
        reply->deleteLater();
        return out;
    }

    Reply chat(const QJsonObject &body, QList<QPair<QByteArray, QByteArray>> headers = {})
    {
        return send("POST", QStringLiteral("/v1/chat/completions"), QJsonDocument(body).toJson(QJsonDocument::Compact), std::move(headers));
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
        QTest::newRow("short plain prompt") << chatBody(QStringLiteral("What is the capital of France?")) << QByteArray("small")
                                            << QByteArray("mini/A") << false;
        QTest::newRow("short plain prompt, streamed") << chatBody(QStringLiteral("Hello there"), true) << QByteArray("small")
                                                      << QByteArray("mini/A") << true;
        QTest::newRow("code block") << chatBody(QStringLiteral("Why does this crash?\n```c\nint *p = 0; *p = 1;\n```"))
                                    << QByteArray("large") << QByteArray("big/A") << false;
        QJsonObject tools = chatBody(QStringLiteral("Weather in Hanoi?"), true);
        tools.insert("tools", QJsonArray{QJsonObject{{"type", "function"},
                                                     {"function", QJsonObject{{"name", "weather"}, {"parameters", QJsonObject{{"type", "object"}}}}}}});
        QTest::newRow("tools, streamed") << tools << QByteArray("large") << QByteArray("big/A") << true;
        QTest::newRow("long prompt") << chatBody(QString(10000, QLatin1Char('w'))) << QByteArray("large") << QByteArray("big/A") << false;
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
        Reply reply = chat(chatBody(QStringLiteral("hi")), {{"x-switchboard-tier", "large"}});
        QCOMPARE(reply.status, 200);
        QCOMPARE(reply.headers.value("x-switchboard-auto-tier"), QByteArray("large"));
        QCOMPARE(m_large->stats().chat, 1u);

        // So does metadata.tier in the body (and the provider is not sent it).
        QJsonObject body = chatBody(QStringLiteral("```\ncode\n```"));
        body.insert("metadata", QJsonObject{{"tier", "small"}});
        reply = chat(body);
        QCOMPARE(reply.status, 200);
        QCOMPARE(reply.headers.value("x-switchboard-auto-tier"), QByteArray("small"));
        QCOMPARE(m_small->stats().chat, 1u);
    }

    void anUnknownTierHintIs400()
    {
        startAll();
        const Reply reply = chat(chatBody(QStringLiteral("hi")), {{"x-switchboard-tier", "gigantic"}});
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

        QJsonObject body = chatBody(QStringLiteral("PROVE that 2 is prime"));
        body.insert("model", "smart");
        Reply reply = chat(body);
        QCOMPARE(reply.status, 200);
        QCOMPARE(reply.headers.value("x-switchboard-auto-tier"), QByteArray("large"));
        // The old name is now just an unknown model.
        reply = chat(chatBody(QStringLiteral("hi")));
        QCOMPARE(reply.status, 404);
        QVERIFY(!reply.headers.contains("x-switchboard-auto-tier"));
    }

    void theModelListShowsTheTaskBasedModel()
    {
        startAll();
        const Reply reply = send("GET", QStringLiteral("/v1/models"), {});
        QCOMPARE(reply.status, 200);
        QStringList ids;
        for (const QJsonValue &m : reply.json().value("data").toArray())
            ids << m.toObject().value("id").toString();
        QVERIFY2(ids.contains(QStringLiteral("auto")), qPrintable(ids.join(',')));
    }
};

QTEST_GUILESS_MAIN(tst_AutoModel)
#include "tst_AutoModel.moc"
