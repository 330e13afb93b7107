// One misconfigured channel does not take a route down, end to end in every upstream dialect: a
// real Gateway on a loopback port in front of two of the simulator's providers of one dialect
// (gpt-4o/A the primary, tried first; gpt-4o/B the fallback) and a real HTTP client. A 404 for the
// endpoint itself (the simulator's wrong_path), every key refused, a host name that does not
// resolve and TLS spoken to a plain-HTTP port each mark A misconfigured with the upstream's words,
// the request fails over to B unseen, the next one goes to B at once, and the admin API and
// /metrics say so; a 404 for the model, and one key refused among good ones, mark nothing; saving
// the provider with the fix lets A back (ARCHITECTURE.md, "Errors and outcomes").
#include "DialectRows.h"
#include "FakeProviderSpecs.h"
#include "ProxyClient.h"
#include "ProxyUnderTest.h"
#include "StreamText.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace sb;
using namespace sb::sim;
using namespace sb::test;

namespace {


} // namespace

class tst_MisconfiguredChannels : public QObject {
    Q_OBJECT

    SystemClock &m_clock = SystemClock::instance();
    SplitMixRandom m_random{5151};
    ProxyUnderTest m_proxy{m_clock, m_random};
    ProxyClient m_client;

    // Primary and fallback both of `dialect`; `adjust` may change the configuration further.
    void startPair(const QString &dialect, ProviderSpec primary, const std::function<void(EngineConfig &)> &adjust = {})
    {
        QString error;
        const bool started =
            m_proxy.startInDialect(dialect, std::move(primary), fakeProviderSpec(QStringLiteral("fallback")), adjust, &error);
        QVERIFY2(started, qPrintable(error));
    }

    Reply chat(bool stream) { return m_client.postChat(m_proxy.gateway->port(), chatBody(stream)); }
    Reply admin(const QString &path) { return m_client.request(m_proxy.gateway->port(), "GET", path); }
    QJsonObject channelA() { return admin(QStringLiteral("/admin/channels/1")).json(); }

    void checkAnsweredByB(const Reply &reply, bool stream, bool failover)
    {
        QVERIFY2(reply.status == 200, reply.body.left(800).constData());
        QCOMPARE(reply.headers.value("x-switchboard-channel"), QByteArray("gpt-4o/B"));
        QCOMPARE(reply.headers.value("x-switchboard-attempts"), QByteArray(failover ? "2" : "1"));
        if (stream) {
            const StreamText text = parseStream(reply.body);
            QVERIFY2(text.done && text.error.isEmpty() && !text.content.isEmpty(), reply.body.left(800).constData());
        } else {
            QCOMPARE(reply.json().value("object").toString(), QStringLiteral("chat.completion"));
        }
    }

    // A is misconfigured for `cause`, says `words` about it, the next request skips it, and the
    // admin API and /metrics show it.
    void checkAMarked(const QString &cause, const QString &words, bool stream)
    {
        const QJsonObject a = channelA();
        QCOMPARE(a.value("state").toString(), QStringLiteral("misconfigured"));
        QCOMPARE(a.value("pool").toString(), QStringLiteral("misconfigured"));
        QCOMPARE(a.value("misconfiguration").toString(), cause);
        QVERIFY(!a.value("routable").toBool(true));
        const QString reason = a.value("poolReason").toString();
        QVERIFY2(reason.contains(words), qPrintable(reason));
        QVERIFY2(!reason.contains(QStringLiteral("sk-")), qPrintable(reason)); // keys never shown
        QVERIFY(a.value("misconfiguredRetryInS").toDouble() > 30);

        checkAnsweredByB(chat(stream), stream, false);

        // /metrics may read the snapshot of the last control tick (every second).
        QByteArray metrics;
        const QByteArray line = "switchboard_channel_misconfigured{channel=\"gpt-4o/A\"";
        QTRY_VERIFY_WITH_TIMEOUT((metrics = admin(QStringLiteral("/metrics")).body).contains(line), 5000);
        const qsizetype at = metrics.indexOf(line);
        const QByteArray sample = metrics.mid(at, metrics.indexOf('\n', at) - at);
        QVERIFY2(sample.contains("cause=\"" + cause.toUtf8() + "\"") && sample.endsWith(" 1"), sample.constData());
        QVERIFY(metrics.contains("switchboard_channel_pool_state{channel=\"gpt-4o/A\""));
        QVERIFY(!metrics.contains("switchboard_channel_misconfigured{channel=\"gpt-4o/B\""));
    }

    void checkANotMarked()
    {
        const QJsonObject a = channelA();
        QVERIFY2(a.value("pool").toString() != QStringLiteral("misconfigured"), QJsonDocument(a).toJson().constData());
        QVERIFY(!a.contains("misconfiguration"));
    }

private slots:
    void cleanup() { m_proxy.stop(); }

    void aWrongPathMarksTheChannelAndFailsOverUnseen_data() { addDialectStreamRows(); }
    void aWrongPathMarksTheChannelAndFailsOverUnseen()
    {
        QFETCH(QString, dialect);
        QFETCH(bool, stream);
        startPair(dialect, fakeProviderSpec(QStringLiteral("primary"), {always(SimError::WrongPath)}));
        const Reply reply = chat(stream);
        checkAnsweredByB(reply, stream, true);
        QCOMPARE(reply.headers.value("x-switchboard-failover"), QByteArray("true"));
        checkAMarked(QStringLiteral("endpoint_not_found"),
                     QStringLiteral("Check the base URL of provider primary: POST http://127.0.0.1:%1/").arg(m_proxy.primary->port()),
                     stream);
        QVERIFY(channelA().value("poolReason").toString().contains(QStringLiteral("answered HTTP 404 '404 Not Found'")));
    }

    void theClientsUnknownModelDoesNotMarkIt_data() { addDialectStreamRows(); }
    void theClientsUnknownModelDoesNotMarkIt()
    {
        QFETCH(QString, dialect);
        QFETCH(bool, stream);
        startPair(dialect, fakeProviderSpec(QStringLiteral("primary"), {always(SimError::UnknownModel)}));
        const Reply reply = chat(stream);
        QVERIFY(reply.status != 0);
        checkANotMarked();
        QVERIFY(!reply.body.contains("misconfigured"));
    }

    void everyKeyRefusedMarksIt_data() { addDialectStreamRows(); }
    void everyKeyRefusedMarksIt()
    {
        QFETCH(QString, dialect);
        QFETCH(bool, stream);
        ProviderSpec primary = fakeProviderSpec(QStringLiteral("primary"));
        primary.keys = {KeySpec{"sk-the-only-good-key-0001", 0}};
        startPair(dialect, std::move(primary), [](EngineConfig &config) {
            config.providers[0].keys = {ApiKeyConfig{101, QStringLiteral("old"), QStringLiteral("sk-revoked-key-0001"), true, {}},
                                        ApiKeyConfig{102, QStringLiteral("older"), QStringLiteral("sk-revoked-key-0002"), true, {}}};
        });
        // Each refused key fails over to B; the second refusal leaves no key, and marks A.
        checkAnsweredByB(chat(stream), stream, true);
        checkAnsweredByB(chat(stream), stream, true);
        checkAMarked(QStringLiteral("keys_refused"), QStringLiteral("Every key of primary was refused ("), stream);
        QVERIFY(channelA().value("poolReason").toString().endsWith(QStringLiteral("replace the keys in Providers")));

        // Saving the provider with a good key lets it back, and it answers.
        auto fixed = std::make_shared<EngineConfig>(*m_proxy.gateway->context().config());
        fixed->providers[0].keys = {ApiKeyConfig{103, QStringLiteral("new"), QStringLiteral("sk-the-only-good-key-0001"), true, {}}};
        m_proxy.gateway->applyConfig(fixed);
        QTRY_COMPARE_WITH_TIMEOUT(channelA().value("pool").toString(), QStringLiteral("active"), 5000);
        const Reply back = chat(stream);
        QVERIFY2(back.status == 200, back.body.left(800).constData());
        QCOMPARE(back.headers.value("x-switchboard-channel"), QByteArray("gpt-4o/A"));
    }

    void oneKeyRefusedWithAGoodOneDoesNotMarkIt_data() { addDialectStreamRows(); }
    void oneKeyRefusedWithAGoodOneDoesNotMarkIt()
    {
        QFETCH(QString, dialect);
        QFETCH(bool, stream);
        ProviderSpec primary = fakeProviderSpec(QStringLiteral("primary"));
        primary.keys = {KeySpec{"sk-the-only-good-key-0001", 0}};
        startPair(dialect, std::move(primary), [](EngineConfig &config) {
            config.providers[0].keys = {ApiKeyConfig{101, QStringLiteral("old"), QStringLiteral("sk-revoked-key-0001"), true, {}},
                                        ApiKeyConfig{102, QStringLiteral("good"), QStringLiteral("sk-the-only-good-key-0001"), true, {}}};
        });
        for (int i = 0; i < 3; ++i)
            QCOMPARE(chat(stream).status, 200);
        checkANotMarked();
        QCOMPARE(chat(stream).headers.value("x-switchboard-channel"), QByteArray("gpt-4o/A"));
    }

    void aNameThatDoesNotResolveMarksItAndSavingTheFixLetsItBack_data() { addDialectStreamRows(); }
    void aNameThatDoesNotResolveMarksItAndSavingTheFixLetsItBack()
    {
        QFETCH(QString, dialect);
        QFETCH(bool, stream);
        QString goodUrl;
        startPair(dialect, fakeProviderSpec(QStringLiteral("primary")), [&](EngineConfig &config) {
            goodUrl = config.providers[0].baseUrl;
            config.providers[0].baseUrl = QStringLiteral("http://nonexistent.invalid:9/v1");
        });
        checkAnsweredByB(chat(stream), stream, true);
        checkAMarked(QStringLiteral("name_not_resolved"),
                     QStringLiteral("Check the base URL (and egress proxy) of provider primary: its host name does not resolve"), stream);

        auto fixed = std::make_shared<EngineConfig>(*m_proxy.gateway->context().config());
        fixed->providers[0].baseUrl = goodUrl;
        m_proxy.gateway->applyConfig(fixed);
        QTRY_COMPARE_WITH_TIMEOUT(channelA().value("pool").toString(), QStringLiteral("active"), 5000);
        const Reply back = chat(stream);
        QVERIFY2(back.status == 200, back.body.left(800).constData());
        QCOMPARE(back.headers.value("x-switchboard-channel"), QByteArray("gpt-4o/A"));
        QCOMPARE(back.headers.value("x-switchboard-attempts"), QByteArray("1"));
    }

    void tlsToAPlainHttpPortMarksIt_data() { addDialectStreamRows(); }
    void tlsToAPlainHttpPortMarksIt()
    {
        QFETCH(QString, dialect);
        QFETCH(bool, stream);
        startPair(dialect, fakeProviderSpec(QStringLiteral("primary")), [](EngineConfig &config) {
            config.providers[0].baseUrl.replace(QStringLiteral("http://"), QStringLiteral("https://"));
        });
        checkAnsweredByB(chat(stream), stream, true);
        checkAMarked(QStringLiteral("tls_failed"), QStringLiteral("TLS failed with provider primary ("), stream);
    }

    void withNothingElseTheClientIsToldWhichChannelIsMisconfigured()
    {
        startPair(QStringLiteral("openai_compat"), fakeProviderSpec(QStringLiteral("primary"), {always(SimError::WrongPath)}),
                  [](EngineConfig &config) { config.routes.front().channelIds = {1}; });
        const Reply first = chat(false);
        QVERIFY2(first.status == 502 || first.status == 503, first.body.constData());
        const Reply second = chat(false);
        QCOMPARE(second.status, 503);
        const QString message = second.error().value("message").toString();
        QVERIFY2(message.contains(QStringLiteral("gpt-4o/A: misconfigured (Check the base URL of provider primary")), qPrintable(message));
    }
};

QTEST_MAIN(tst_MisconfiguredChannels)
#include "tst_MisconfiguredChannels.moc"
