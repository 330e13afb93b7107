// What counts as "the same request" for the exact cache and "the same scope" for the semantic one.
#include "cache/CacheFront.h"
#include "cache/CacheKey.h"

#include <QtTest>
#include <QJsonArray>
#include <QJsonDocument>

using namespace sb;

namespace {

QJsonObject parse(const char *json)
{
    return QJsonDocument::fromJson(QByteArray(json)).object();
}

QJsonObject base()
{
    return parse(R"({"model":"gpt-4o","temperature":0.2,"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Capital of France?"}]})");
}

} // namespace

class tst_CacheKey : public QObject {
    Q_OBJECT
private slots:
    void keyIgnoresDeliveryAndCallerFields()
    {
        QJsonObject a = base();
        QJsonObject b = base();
        b.insert("stream", true);
        b.insert("stream_options", QJsonObject{{"include_usage", true}});
        b.insert("user", "alice");
        QCOMPARE(CacheKey::exact(a), CacheKey::exact(b));
        QCOMPARE(CacheKey::exact(a).size(), 32); // SHA-256
    }

    void keyIgnoresKeyOrderAndWhitespace()
    {
        const QJsonObject a = parse(R"({"model":"m","temperature":1,"messages":[{"role":"user","content":"hi"}]})");
        const QJsonObject b = parse(R"({ "messages" : [ { "content":"hi", "role":"user" } ],
                                         "temperature": 1.0, "model":"m" })");
        QCOMPARE(CacheKey::exact(a), CacheKey::exact(b));
    }

    void everyOutputAffectingFieldChangesTheKey_data()
    {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QJsonValue>("value");
        QTest::newRow("model") << "model" << QJsonValue("gpt-4o-mini");
        QTest::newRow("temperature") << "temperature" << QJsonValue(0.9);
        QTest::newRow("top_p") << "top_p" << QJsonValue(0.5);
        QTest::newRow("max_tokens") << "max_tokens" << QJsonValue(10);
        QTest::newRow("seed") << "seed" << QJsonValue(7);
        QTest::newRow("n") << "n" << QJsonValue(2);
        QTest::newRow("tools") << "tools" << QJsonValue(QJsonArray{QJsonObject{{"type", "function"}}});
        QTest::newRow("response_format") << "response_format" << QJsonValue(QJsonObject{{"type", "json_object"}});
        QTest::newRow("messages") << "messages" << QJsonValue(QJsonArray{QJsonObject{{"role", "user"}, {"content", "Capital of Spain?"}}});
    }
    void everyOutputAffectingFieldChangesTheKey()
    {
        QFETCH(QString, field);
        QFETCH(QJsonValue, value);
        QJsonObject changed = base();
        changed.insert(field, value);
        QVERIFY(CacheKey::exact(changed) != CacheKey::exact(base()));
    }

    void contentWhitespaceIsMeaningful()
    {
        // Normalising the text itself would be a guess about what the model ignores; it is not done.
        QJsonObject changed = base();
        changed.insert("messages", QJsonArray{QJsonObject{{"role", "system"}, {"content", "Be brief."}},
                                              QJsonObject{{"role", "user"}, {"content", "Capital of France? "}}});
        QVERIFY(CacheKey::exact(changed) != CacheKey::exact(base()));
    }

    void semanticScopeIgnoresTheQuestionButNotTheSystemPrompt()
    {
        QJsonObject other = base();
        other.insert("messages", QJsonArray{QJsonObject{{"role", "system"}, {"content", "Be brief."}},
                                            QJsonObject{{"role", "user"}, {"content", "What is France's capital?"}}});
        QCOMPARE(CacheKey::semanticScope("r", other), CacheKey::semanticScope("r", base()));
        other.insert("stream", true);
        QCOMPARE(CacheKey::semanticScope("r", other), CacheKey::semanticScope("r", base()));

        QJsonObject otherSystem = base();
        otherSystem.insert("messages", QJsonArray{QJsonObject{{"role", "system"}, {"content", "Answer in French."}},
                                                  QJsonObject{{"role", "user"}, {"content", "Capital of France?"}}});
        QVERIFY(CacheKey::semanticScope("r", otherSystem) != CacheKey::semanticScope("r", base()));
        QVERIFY(CacheKey::semanticScope("other-route", base()) != CacheKey::semanticScope("r", base()));
        QJsonObject hotter = base();
        hotter.insert("temperature", 1.5);
        QVERIFY(CacheKey::semanticScope("r", hotter) != CacheKey::semanticScope("r", base()));
    }

    void semanticTextIsTheConversationWithoutSystem()
    {
        QCOMPARE(CacheKey::semanticText(base()), QStringLiteral("user: Capital of France?"));
        const QJsonObject parts = parse(R"({"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}]})");
        QCOMPARE(CacheKey::semanticText(parts), QStringLiteral("user: a\nb"));
    }

    void imagesAndToolExchangesAreNotSemanticallyCached()
    {
        const QJsonObject image = parse(R"({"messages":[{"role":"user","content":[{"type":"text","text":"what is this?"},
                                           {"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}]}]})");
        QVERIFY(CacheKey::semanticText(image).isEmpty());
        const QJsonObject tool = parse(R"({"messages":[{"role":"user","content":"weather?"},
                                          {"role":"assistant","content":null,"tool_calls":[{"id":"1"}]},
                                          {"role":"tool","tool_call_id":"1","content":"sunny"}]})");
        QVERIFY(CacheKey::semanticText(tool).isEmpty());
    }

    void bypassHeaders_data()
    {
        QTest::addColumn<QByteArray>("name");
        QTest::addColumn<QByteArray>("value");
        QTest::addColumn<bool>("bypass");
        QTest::newRow("no-cache") << QByteArray("Cache-Control") << QByteArray("no-cache") << true;
        QTest::newRow("no-store among others") << QByteArray("cache-control") << QByteArray("max-age=0, No-Store") << true;
        QTest::newRow("max-age only") << QByteArray("Cache-Control") << QByteArray("max-age=60") << false;
        QTest::newRow("skip") << QByteArray("X-Switchboard-Cache") << QByteArray("skip") << true;
        QTest::newRow("skip upper") << QByteArray("x-switchboard-cache") << QByteArray(" SKIP ") << true;
        QTest::newRow("other value") << QByteArray("x-switchboard-cache") << QByteArray("use") << false;
        QTest::newRow("unrelated") << QByteArray("Pragma") << QByteArray("no-cache") << false;
    }
    void bypassHeaders()
    {
        QFETCH(QByteArray, name);
        QFETCH(QByteArray, value);
        QFETCH(bool, bypass);
        HttpHeaders headers;
        headers.add("Content-Type", "application/json");
        headers.add(name, value);
        QCOMPARE(CacheFront::bypassRequested(headers), bypass);
        QVERIFY(!CacheFront::bypassRequested(HttpHeaders{}));
    }
};

QTEST_GUILESS_MAIN(tst_CacheKey)
#include "tst_CacheKey.moc"
