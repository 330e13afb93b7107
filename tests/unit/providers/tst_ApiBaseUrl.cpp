// Every dialect reads its base URL the same way (CONFIG_FORMAT.md, "Base URLs"): the provider's
// documented base with or without its version path, with or without trailing slashes, builds the
// same upstream URLs; a base URL with a path of its own is used as given.
#include "providers/ProviderRegistry.h"
#include "providers/common/ApiBaseUrl.h"

#include <QJsonArray>
#include <QtTest>

using namespace sb;

namespace {

struct Built {
    QString chat, probe, embeddings;
};

Built urlsFor(const QString &dialect, const QString &baseUrl)
{
    ProviderConfig provider;
    provider.dialect = dialect;
    provider.baseUrl = baseUrl;
    ChannelConfig channel;
    channel.upstreamModel = QStringLiteral("the-model");
    const AdapterContext context{&provider, &channel, QStringLiteral("k-1234567890"), {}};
    const ProviderAdapter *adapter = ProviderRegistry::find(dialect);
    const QJsonObject chat{{QStringLiteral("model"), QStringLiteral("m")},
                           {QStringLiteral("messages"),
                            QJsonArray{QJsonObject{{QStringLiteral("role"), QStringLiteral("user")}, {QStringLiteral("content"), QStringLiteral("hi")}}}}};
    const QJsonObject embed{{QStringLiteral("model"), QStringLiteral("m")}, {QStringLiteral("input"), QStringLiteral("hi")}};
    Built b;
    // The key may travel in the query (ERNIE); the address is what is compared.
    b.chat = adapter->chatRequest(chat, context).url.toString(QUrl::RemoveQuery);
    b.probe = adapter->probeRequest(context).url.toString(QUrl::RemoveQuery);
    if (const auto e = adapter->embeddingsRequest(embed, context))
        b.embeddings = e->url.toString(QUrl::RemoveQuery);
    return b;
}

} // namespace

class tst_ApiBaseUrl : public QObject {
    Q_OBJECT
private slots:
    void theVersionPathAndTrailingSlashesAreOptional_data()
    {
        QTest::addColumn<QString>("dialect");
        QTest::addColumn<QStringList>("bases");
        QTest::addColumn<QString>("chat");
        QTest::newRow("openai_compat") << "openai_compat"
                                       << QStringList{"https://api.openai.com", "https://api.openai.com/", "https://api.openai.com/v1",
                                                      "https://api.openai.com/v1/", " https://api.openai.com/v1// "}
                                       << "https://api.openai.com/v1/chat/completions";
        QTest::newRow("anthropic") << "anthropic"
                                   << QStringList{"https://api.anthropic.com", "https://api.anthropic.com/", "https://api.anthropic.com/v1",
                                                  "https://api.anthropic.com/v1/"}
                                   << "https://api.anthropic.com/v1/messages";
        QTest::newRow("gemini") << "gemini"
                                << QStringList{"https://generativelanguage.googleapis.com", "https://generativelanguage.googleapis.com/",
                                               "https://generativelanguage.googleapis.com/v1beta",
                                               "https://generativelanguage.googleapis.com/v1beta/"}
                                << "https://generativelanguage.googleapis.com/v1beta/models/the-model:generateContent";
        QTest::newRow("dashscope") << "dashscope"
                                   << QStringList{"https://dashscope.aliyuncs.com", "https://dashscope.aliyuncs.com/",
                                                  "https://dashscope.aliyuncs.com/api/v1", "https://dashscope.aliyuncs.com/api/v1/"}
                                   << "https://dashscope.aliyuncs.com/api/v1/services/aigc/text-generation/generation";
        QTest::newRow("ernie") << "ernie"
                               << QStringList{"https://aip.baidubce.com", "https://aip.baidubce.com/",
                                              "https://aip.baidubce.com/rpc/2.0/ai_custom/v1/wenxinworkshop",
                                              "https://aip.baidubce.com/rpc/2.0/ai_custom/v1/wenxinworkshop/"}
                               << "https://aip.baidubce.com/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/the-model";
        QTest::newRow("a local port") << "anthropic" << QStringList{"http://127.0.0.1:18462", "http://127.0.0.1:18462/v1/"}
                                      << "http://127.0.0.1:18462/v1/messages";
    }

    void theVersionPathAndTrailingSlashesAreOptional()
    {
        QFETCH(QString, dialect);
        QFETCH(QStringList, bases);
        QFETCH(QString, chat);
        const Built first = urlsFor(dialect, bases.first());
        QCOMPARE(first.chat, chat);
        for (const QString &base : bases) {
            const Built b = urlsFor(dialect, base);
            QVERIFY2(b.chat == first.chat, qPrintable(base + " → " + b.chat));
            QVERIFY2(b.probe == first.probe, qPrintable(base + " → " + b.probe));
            QVERIFY2(b.embeddings == first.embeddings, qPrintable(base + " → " + b.embeddings));
        }
    }

    void aPathOfItsOwnIsUsedAsGiven_data()
    {
        QTest::addColumn<QString>("dialect");
        QTest::addColumn<QString>("base");
        QTest::addColumn<QString>("chat");
        // OpenAI-compatible APIs of other vendors carry their own version: nothing may be added.
        QTest::newRow("zhipu") << "openai_compat" << "https://open.bigmodel.cn/api/paas/v4/"
                               << "https://open.bigmodel.cn/api/paas/v4/chat/completions";
        QTest::newRow("gemini's openai mode") << "openai_compat" << "https://generativelanguage.googleapis.com/v1beta/openai"
                                              << "https://generativelanguage.googleapis.com/v1beta/openai/chat/completions";
        QTest::newRow("a relay") << "anthropic" << "https://llm-gateway.internal/anthropic"
                                 << "https://llm-gateway.internal/anthropic/messages";
        QTest::newRow("gemini v1") << "gemini" << "https://generativelanguage.googleapis.com/v1"
                                   << "https://generativelanguage.googleapis.com/v1/models/the-model:generateContent";
        QTest::newRow("gemini v1alpha") << "gemini" << "https://generativelanguage.googleapis.com/v1alpha"
                                        << "https://generativelanguage.googleapis.com/v1alpha/models/the-model:generateContent";
    }

    void aPathOfItsOwnIsUsedAsGiven()
    {
        QFETCH(QString, dialect);
        QFETCH(QString, base);
        QFETCH(QString, chat);
        QCOMPARE(urlsFor(dialect, base).chat, chat);
    }

    void theRootIsWhatPrecedesTheVersionPath()
    {
        // DashScope's probe asks the OpenAI-compatible mode beside its native API.
        QCOMPARE(readApiBaseUrl(QStringLiteral("https://dashscope.aliyuncs.com/api/v1/"), {u"/api/v1"}).root,
                 QStringLiteral("https://dashscope.aliyuncs.com"));
        QCOMPARE(readApiBaseUrl(QStringLiteral("https://dashscope.aliyuncs.com"), {u"/api/v1"}).api,
                 QStringLiteral("https://dashscope.aliyuncs.com/api/v1"));
        const ApiBaseUrl relay = readApiBaseUrl(QStringLiteral("https://relay.example/qwen"), {u"/api/v1"});
        QCOMPARE(relay.root, QStringLiteral("https://relay.example/qwen"));
        QCOMPARE(relay.api, QStringLiteral("https://relay.example/qwen"));
    }
};

QTEST_APPLESS_MAIN(tst_ApiBaseUrl)
#include "tst_ApiBaseUrl.moc"
