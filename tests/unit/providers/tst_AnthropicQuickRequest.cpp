// The usual chat request written from its bytes into a Messages API body says what the object path
// (AnthropicAdapter::translateRequest) says, for every request it takes; every other request is
// left to that path. (Rows with backslashes are ordinary literals: moc misreads them in raw strings.)
#include "providers/anthropic/AnthropicAdapter.h"
#include "providers/anthropic/AnthropicQuickRequest.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace sb;

class tst_AnthropicQuickRequest : public QObject {
    Q_OBJECT
private slots:
    void writesWhatTheObjectPathTranslates_data()
    {
        QTest::addColumn<QByteArray>("chat");
        QTest::addColumn<QString>("upstreamModel");
        QTest::addColumn<bool>("onBytes"); // taken by the quick path
        const QString claude = QStringLiteral("claude-sonnet-4-5");
        QTest::newRow("one user turn") << QByteArray(R"({"model":"gpt-4o","messages":[{"role":"user","content":"Say hello."}],"max_tokens":16})")
                                       << claude << true;
        QTest::newRow("the client's model") << QByteArray(R"({"model":"claude-3","messages":[{"role":"user","content":"hi"}]})") << QString() << true;
        QTest::newRow("system, developer, alternating turns")
            << QByteArray(R"({"model":"m","messages":[{"role":"system","content":"Be brief."},{"role":"developer","content":"No lists."},)"
                          R"({"role":"user","content":"Hi"},{"role":"assistant","content":"Hello"},{"role":"user","content":"Bye"}],"max_completion_tokens":64,"max_tokens":8})")
            << claude << true;
        QTest::newRow("runs of one role merged, empty turns dropped")
            << QByteArray(R"({"model":"m","messages":[{"role":"user","content":"a"},{"role":"user","content":""},{"role":"system","content":"s"},)"
                          R"({"role":"user","content":"b","name":"lan"},{"role":"assistant","content":""},{"role":"assistant","content":"c"}]})")
            << claude << true;
        QTest::newRow("escapes and non-ASCII")
            << QByteArray("{\"model\":\"m\",\"messages\":[{\"role\":\"system\",\"content\":\"line\\none\"},{\"role\":\"system\",\"content\":\"\\\"q\\\" \\u00e9\"},"
                          "{\"role\":\"user\",\"content\":\"\\\\ é 你好 \\ud83d\\ude00\"}]}")
            << claude << true;
        QTest::newRow("streamed, with stream_options") << QByteArray(R"({"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true,"stream_options":{"include_usage":true}})")
                                                       << claude << true;
        QTest::newRow("stream false") << QByteArray(R"({"model":"m","messages":[{"role":"user","content":"hi"}],"stream":false})") << claude << true;
        QTest::newRow("temperature and top_p") << QByteArray(R"({"model":"m","messages":[{"role":"user","content":"hi"}],"temperature":0.7,"top_p":0.9})")
                                               << claude << true;
        QTest::newRow("temperature above Anthropic's 1") << QByteArray(R"({"model":"m","messages":[{"role":"user","content":"hi"}],"temperature":1.6})")
                                                         << claude << true;
        QTest::newRow("no messages left") << QByteArray(R"({"model":"m","messages":[{"role":"system","content":"only this"}]})") << claude << true;
        // What only the object path translates.
        QTest::newRow("tools") << QByteArray(R"({"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":{}}}]})")
                               << claude << false;
        QTest::newRow("a tool result") << QByteArray(R"({"model":"m","messages":[{"role":"tool","tool_call_id":"t1","content":"42"}]})") << claude << false;
        QTest::newRow("content parts") << QByteArray(R"({"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]})") << claude << false;
        QTest::newRow("assistant tool calls")
            << QByteArray(R"({"model":"m","messages":[{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}]})")
            << claude << false;
        QTest::newRow("stop sequences") << QByteArray(R"({"model":"m","messages":[{"role":"user","content":"hi"}],"stop":"END"})") << claude << false;
        QTest::newRow("a user id") << QByteArray(R"({"model":"m","messages":[{"role":"user","content":"hi"}],"user":"u1"})") << claude << false;
        QTest::newRow("max_tokens not an integer") << QByteArray(R"({"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":16.5})") << claude << false;
        QTest::newRow("an escaped role") << QByteArray("{\"model\":\"m\",\"messages\":[{\"role\":\"\\u0075ser\",\"content\":\"hi\"}]}") << claude << false;
        QTest::newRow("a repeated content") << QByteArray(R"({"model":"m","messages":[{"role":"user","content":"a","content":"b"}]})") << claude << false;
    }

    void writesWhatTheObjectPathTranslates()
    {
        QFETCH(QByteArray, chat);
        QFETCH(QString, upstreamModel);
        QFETCH(bool, onBytes);
        JsonObjectScan scan;
        QVERIFY(scan.scan(chat));
        const std::optional<AnthropicQuickRequest> quick = quickAnthropicRequest(chat, scan, upstreamModel);
        QCOMPARE(quick.has_value(), onBytes);
        if (!quick)
            return;
        const QJsonObject in = QJsonDocument::fromJson(chat).object();
        QJsonParseError error;
        const QJsonObject written = QJsonDocument::fromJson(quick->body, &error).object();
        QVERIFY2(error.error == QJsonParseError::NoError, quick->body.constData());
        QCOMPARE(written, AnthropicAdapter::translateRequest(in, upstreamModel));
        QCOMPARE(quick->stream, in.value(QStringLiteral("stream")).toBool(false));
    }

    // The usual request's bytes, as the provider gets them.
    void theUsualRequestIsWrittenWhole()
    {
        const QByteArray chat = R"({"model":"gpt-4o","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Say hello."}],"max_tokens":16})";
        JsonObjectScan scan;
        QVERIFY(scan.scan(chat));
        const std::optional<AnthropicQuickRequest> quick = quickAnthropicRequest(chat, scan, QStringLiteral("claude-sonnet-4-5"));
        QVERIFY(quick);
        QCOMPARE(quick->body, QByteArray(R"({"max_tokens":16,"messages":[{"content":[{"text":"Say hello.","type":"text"}],"role":"user"}],)"
                                         R"("model":"claude-sonnet-4-5","system":"Be brief."})"));
        QVERIFY(!quick->stream);
    }
};

QTEST_GUILESS_MAIN(tst_AnthropicQuickRequest)
#include "tst_AnthropicQuickRequest.moc"
