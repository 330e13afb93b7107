// The semantic cache with an embeddings channel of any dialect that has an embeddings endpoint: a
// real Gateway in front of the simulator's chat provider (openai_compat) and a second simulator
// provider serving embeddings in Gemini's, DashScope's or OpenAI's own shape. The second asking of a
// question with the same words is a semantic hit whatever the dialect (the adapter reads the answer,
// not an OpenAI parser); and the embeddings call is made as the router makes every call: a key the
// provider refuses rotates to the next one at once and stays out of rotation, and an embeddings
// channel whose circuit is open is not waited on (the request goes on as a miss).
#include "FakeProviderSpecs.h"
#include "ProxyClient.h"
#include "ProxyConfigs.h"
#include "ProxyUnderTest.h"

#include "routing/Router.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace sb;
using namespace sb::sim;
using namespace sb::test;
using namespace std::chrono_literals;

namespace {

QByteArray question(const QString &text)
{
    const QJsonArray messages{QJsonObject{{"role", "user"}, {"content", text}}};
    return QJsonDocument(QJsonObject{{"model", "gpt-4o"}, {"messages", messages}}).toJson(QJsonDocument::Compact);
}

constexpr int kEmbeddingsChannel = 2;
const QByteArray kGoodKey = "sk-embeddings-good-key-0002";

} // namespace

class tst_SemanticCacheDialects : public QObject {
    Q_OBJECT

    SystemClock &m_clock = SystemClock::instance();
    SplitMixRandom m_random{9090};
    ProxyUnderTest m_proxy{m_clock, m_random};
    std::unique_ptr<FakeProvider> m_embeddings;
    ProxyClient m_client;

    // gpt-4o over the chat provider, its semantic cache asking the `dialect` provider for embeddings,
    // which knows only kGoodKey; the configuration gives it `keys`.
    void start(const QString &dialect, const std::vector<ApiKeyConfig> &keys)
    {
        QString error;
        QVERIFY2(m_proxy.startProviders(fakeProviderSpec(QStringLiteral("chat")), &error), qPrintable(error));
        ProviderSpec spec = fakeProviderSpec(QStringLiteral("embeddings"));
        spec.dialect = dialect;
        spec.keys = {KeySpec{kGoodKey, 0}};
        m_embeddings = std::make_unique<FakeProvider>(spec, *m_proxy.scenarioClock, m_random);
        QVERIFY2(m_embeddings->start(&error), qPrintable(error));

        auto config = m_proxy.config();
        QCOMPARE(addEmbeddingsChannel(*config, m_embeddings->baseUrl()), kEmbeddingsChannel);
        ProviderConfig &provider = config->providers.back();
        provider.dialect = dialect;
        provider.keys = keys;
        RouteConfig &route = config->routes.front();
        route.cache.semantic = true;
        route.cache.embeddingsChannelId = kEmbeddingsChannel;
        QVERIFY2(m_proxy.startGateway(config, &error), qPrintable(error));
    }

    Reply ask(const QString &text) { return m_client.postChat(m_proxy.gateway->port(), question(text)); }

private slots:
    void cleanup()
    {
        m_proxy.stop();
        m_embeddings.reset();
    }

    void aSameWordsQuestionIsASemanticHitInEveryEmbeddingsDialect_data()
    {
        QTest::addColumn<QString>("dialect");
        QTest::newRow("gemini") << QStringLiteral("gemini");
        QTest::newRow("dashscope") << QStringLiteral("dashscope");
        QTest::newRow("openai_compat") << QStringLiteral("openai_compat");
    }
    void aSameWordsQuestionIsASemanticHitInEveryEmbeddingsDialect()
    {
        QFETCH(QString, dialect);
        start(dialect, {ApiKeyConfig{20, QStringLiteral("key"), QString::fromLatin1(kGoodKey), true, {}}});
        const Reply miss = ask(QStringLiteral("What is the capital of France?"));
        QCOMPARE(miss.status, 200);
        QCOMPARE(miss.headers.value("x-switchboard-cache"), QByteArray("miss"));
        const Reply hit = ask(QStringLiteral("the capital of France: what is it"));
        QCOMPARE(hit.status, 200);
        QCOMPARE(hit.headers.value("x-switchboard-cache"), QByteArray("hit"));
        QCOMPARE(hit.headers.value("x-switchboard-cache-kind"), QByteArray("semantic"));
        QCOMPARE(m_proxy.primary->stats().chat, 1u); // the second never reached the chat provider
        QCOMPARE(m_embeddings->stats().embeddings, 2u);
        QCOMPARE(m_proxy.gateway->context().cache().stats().embeddingFailures, 0u);
    }

    void aRefusedEmbeddingsKeyRotatesToTheNextAndStaysOut()
    {
        start(QStringLiteral("gemini"), {ApiKeyConfig{20, QStringLiteral("old"), QStringLiteral("sk-embeddings-revoked-0001"), true, {}},
                                         ApiKeyConfig{21, QStringLiteral("new"), QString::fromLatin1(kGoodKey), true, {}}});
        QCOMPARE(ask(QStringLiteral("Name three rivers in Europe.")).headers.value("x-switchboard-cache"), QByteArray("miss"));
        const Reply hit = ask(QStringLiteral("Three rivers in Europe? Name!"));
        QCOMPARE(hit.headers.value("x-switchboard-cache"), QByteArray("hit"));
        QCOMPARE(m_proxy.gateway->context().cache().stats().embeddingFailures, 0u); // the refusal cost no lookup
        const auto ring = m_proxy.gateway->router().keyRing(m_proxy.gateway->config()->channel(kEmbeddingsChannel)->providerId);
        QVERIFY(ring);
        QCOMPARE(ring->status().at(0).state, KeyRing::KeyState::Disabled);
        QCOMPARE(ring->status().at(1).state, KeyRing::KeyState::Active);
        const quint64 rejected = m_embeddings->stats().keyRejected;
        QCOMPARE(rejected, 1u);
        for (int i = 0; i < 3; ++i)
            QCOMPARE(ask(QStringLiteral("Name three rivers in Europe.")).status, 200);
        QCOMPARE(m_embeddings->stats().keyRejected, rejected); // the refused key was not sent again
    }

    void anEmbeddingsChannelWithAnOpenCircuitIsNotWaitedOn()
    {
        start(QStringLiteral("dashscope"), {ApiKeyConfig{20, QStringLiteral("key"), QString::fromLatin1(kGoodKey), true, {}}});
        auto health = m_proxy.gateway->router().pool().channel(kEmbeddingsChannel);
        QVERIFY(health);
        // The embeddings provider goes away: its failures reach the channel's breaker like a chat call's.
        m_embeddings->stop();
        for (int i = 0; i < 12 && health->routable(); ++i)
            QCOMPARE(ask(QStringLiteral("Question number %1 about the sea").arg(i)).status, 200);
        QVERIFY(!health->routable());
        const auto before = m_proxy.gateway->context().cache().stats();
        QElapsedTimer timer;
        timer.start();
        const Reply reply = ask(QStringLiteral("Another question about the sea"));
        QCOMPARE(reply.status, 200);
        QCOMPARE(reply.headers.value("x-switchboard-cache"), QByteArray("miss"));
        QVERIFY2(timer.elapsed() < 1000, qPrintable(QString::number(timer.elapsed())));
        QCOMPARE(m_proxy.gateway->context().cache().stats().embeddingFailures, before.embeddingFailures + 1);
    }
};

QTEST_GUILESS_MAIN(tst_SemanticCacheDialects)
#include "tst_SemanticCacheDialects.moc"
