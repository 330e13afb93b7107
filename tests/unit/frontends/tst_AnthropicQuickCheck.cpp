#include "frontends/anthropic_messages/AnthropicQuickCheck.h"
#include "frontends/anthropic_messages/AnthropicRequest.h"

#include <QJsonDocument>
#include <QtTest>

using namespace sb;

// The quick check reads the usual Messages request on its bytes; the full parse is the reference.
// Whatever the quick check accepts, the full parse accepts too and reads the same way, and the
// OpenAI body the proxy makes later from it is the one the full parse makes now. Bodies it is not
// sure of go to the full parse, so the proxy answers every body as before.

namespace {

// JSON written with single quotes, which keeps the test bodies readable (and moc, which trips on
// some raw strings, away from them).
QByteArray j(const char *singleQuoted) { return QByteArray(singleQuoted).replace('\'', '"'); }

void compareWithParse(const QByteArray &body)
{
    const std::optional<AnthropicRequest> quick = quickCheckAnthropicRequest(body);
    QVERIFY(quick);
    AnthropicError error;
    const std::optional<AnthropicRequest> full = AnthropicRequest::parse(body, &error);
    QVERIFY2(full, qPrintable(QString::fromUtf8(body) + QStringLiteral(" → ") + error.message));
    QCOMPARE(quick->model, full->model);
    QCOMPARE(quick->stream, full->stream);
    QCOMPARE(quick->maxTokens, full->maxTokens);
    QCOMPARE(quick->stopSequences, full->stopSequences);
    QCOMPARE(quick->estimatedPromptTokens, full->estimatedPromptTokens);
    QCOMPARE(quick->original, body);

    const std::optional<AnthropicRequest::Prepared> prepared = AnthropicRequest::prepare(body, &error);
    QVERIFY(prepared);
    QVERIFY(prepared->body.clientBytes().isEmpty()); // not OpenAI bytes: never forwarded as such
    QCOMPARE(prepared->body.object(), full->openAiBody);
}

} // namespace

class tst_AnthropicQuickCheck : public QObject {
    Q_OBJECT

private slots:
    void usualRequests_data()
    {
        QTest::addColumn<QByteArray>("body");
        QTest::newRow("one turn") << j("{'model':'claude-sonnet-4','max_tokens':16,'messages':[{'role':'user','content':'Say hello.'}]}");
        QTest::newRow("stream") << j("{'model':'m','max_tokens':1,'stream':true,'messages':[{'role':'user','content':'x'}]}");
        QTest::newRow("stream false") << j("{'model':'m','max_tokens':1,'stream':false,'messages':[{'role':'user','content':'x'}]}");
        QTest::newRow("conversation of blocks")
            << j("{'model':'m','max_tokens':64,'messages':[{'role':'user','content':[{'type':'text','text':'Hi'},{'text':'there','type':'text'}]},"
                          "{'role':'assistant','content':'Hello'},{'content':'How are you?','role':'user'}]}");
        QTest::newRow("system string") << j("{'system':'Be brief.','model':'m','max_tokens':8,'messages':[{'role':'user','content':'x'}]}");
        QTest::newRow("system empty string") << j("{'system':'','model':'m','max_tokens':8,'messages':[{'role':'user','content':'x'}]}");
        QTest::newRow("system blocks")
            << j("{'system':[{'type':'text','text':'One.'},{'type':'text','text':'Two.'}],'model':'m','max_tokens':8,'messages':[{'role':'user','content':'x'}]}");
        QTest::newRow("sampling") << j("{'model':'m','max_tokens':8,'temperature':0.7,'top_p':1,'messages':[{'role':'user','content':'x'}]}");
        QTest::newRow("sampling at zero") << j("{'model':'m','max_tokens':8,'temperature':0,'top_p':0.0,'messages':[{'role':'user','content':'x'}]}");
        QTest::newRow("stop sequences") << j("{'model':'m','max_tokens':8,'stop_sequences':['a','b','c','d','e'],'messages':[{'role':'user','content':'x'}]}");
        QTest::newRow("no stop sequences") << j("{'model':'m','max_tokens':8,'stop_sequences':[],'messages':[{'role':'user','content':'x'}]}");
        QTest::newRow("metadata") << j("{'model':'m','max_tokens':8,'metadata':{'user_id':'u-1'},'messages':[{'role':'user','content':'x'}]}");
        QTest::newRow("empty metadata") << j("{'model':'m','max_tokens':8,'metadata':{},'messages':[{'role':'user','content':'x'}]}");
        QTest::newRow("escapes in the text") << j("{'model':'m','max_tokens':8,'messages':[{'role':'user','content':'a \\'quoted\\'\\nline \\u00e9'}]}");
        QTest::newRow("multibyte") << QByteArray("{\"model\":\"m\",\"max_tokens\":8,\"messages\":[{\"role\":\"user\",\"content\":\"Xin chào, 你好\"}]}");
        QTest::newRow("whitespace") << QByteArray(" {\n \"model\" : \"m\" ,\n \"max_tokens\" : 8 ,\n \"messages\" : [ { \"role\" : \"user\" , \"content\" : \"x\" } ]\n} ");
        QTest::newRow("large max_tokens") << j("{'model':'m','max_tokens':999999999999,'messages':[{'role':'user','content':'x'}]}");
    }
    void usualRequests()
    {
        QFETCH(QByteArray, body);
        compareWithParse(body);
    }

    // Bodies the quick check leaves to the full parse: what it would have to decode or translate
    // beyond text, and every invalid body.
    void unusualRequests_data()
    {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<bool>("valid");
        QTest::newRow("tools") << j("{'model':'m','max_tokens':8,'tools':[{'name':'t','input_schema':{'type':'object'}}],'messages':[{'role':'user','content':'x'}]}") << true;
        QTest::newRow("image") << j("{'model':'m','max_tokens':8,'messages':[{'role':'user','content':[{'type':'image','source':{'type':'base64','media_type':'image/png','data':'iVBO'}}]}]}") << true;
        QTest::newRow("cache_control") << j("{'model':'m','max_tokens':8,'messages':[{'role':'user','content':[{'type':'text','text':'x','cache_control':{'type':'ephemeral'}}]}]}") << true;
        QTest::newRow("thinking") << j("{'model':'m','max_tokens':4000,'thinking':{'type':'enabled','budget_tokens':1024},'messages':[{'role':'user','content':'x'}]}") << true;
        QTest::newRow("escaped model") << j("{'model':'cl\\u0061ude','max_tokens':8,'messages':[{'role':'user','content':'x'}]}") << true;
        QTest::newRow("escaped role") << j("{'model':'m','max_tokens':8,'messages':[{'role':'us\\u0065r','content':'x'}]}") << true;
        QTest::newRow("system message") << j("{'model':'m','max_tokens':8,'messages':[{'role':'system','content':'x'},{'role':'user','content':'y'}]}") << true;
        QTest::newRow("unknown member") << j("{'model':'m','max_tokens':8,'future':1,'messages':[{'role':'user','content':'x'}]}") << true;
        QTest::newRow("top_k") << j("{'model':'m','max_tokens':8,'top_k':5,'messages':[{'role':'user','content':'x'}]}") << true;
        QTest::newRow("empty text block") << j("{'model':'m','max_tokens':8,'messages':[{'role':'user','content':[{'type':'text','text':''}]}]}") << true;
        QTest::newRow("max_tokens 1e3") << j("{'model':'m','max_tokens':1e3,'messages':[{'role':'user','content':'x'}]}") << true;
        QTest::newRow("null stream") << j("{'model':'m','max_tokens':8,'stream':null,'messages':[{'role':'user','content':'x'}]}") << true;

        QTest::newRow("no model") << j("{'max_tokens':8,'messages':[{'role':'user','content':'x'}]}") << false;
        QTest::newRow("empty model") << j("{'model':'','max_tokens':8,'messages':[{'role':'user','content':'x'}]}") << false;
        QTest::newRow("no max_tokens") << j("{'model':'m','messages':[{'role':'user','content':'x'}]}") << false;
        QTest::newRow("zero max_tokens") << j("{'model':'m','max_tokens':0,'messages':[{'role':'user','content':'x'}]}") << false;
        QTest::newRow("negative max_tokens") << j("{'model':'m','max_tokens':-4,'messages':[{'role':'user','content':'x'}]}") << false;
        QTest::newRow("no messages") << j("{'model':'m','max_tokens':8}") << false;
        QTest::newRow("empty messages") << j("{'model':'m','max_tokens':8,'messages':[]}") << false;
        QTest::newRow("role tool") << j("{'model':'m','max_tokens':8,'messages':[{'role':'tool','content':'x'}]}") << false;
        QTest::newRow("no content") << j("{'model':'m','max_tokens':8,'messages':[{'role':'user'}]}") << false;
        QTest::newRow("content a number") << j("{'model':'m','max_tokens':8,'messages':[{'role':'user','content':4}]}") << false;
        QTest::newRow("two roles (Qt reads the last)") << j("{'model':'m','max_tokens':8,'messages':[{'role':'user','role':'assistant','content':'x'}]}") << true;
        QTest::newRow("temperature above one") << j("{'model':'m','max_tokens':8,'temperature':1.5,'messages':[{'role':'user','content':'x'}]}") << false;
        QTest::newRow("stream a string") << j("{'model':'m','max_tokens':8,'stream':'yes','messages':[{'role':'user','content':'x'}]}") << false;
        QTest::newRow("stop a string") << j("{'model':'m','max_tokens':8,'stop_sequences':'x','messages':[{'role':'user','content':'x'}]}") << false;
        QTest::newRow("metadata user a number") << j("{'model':'m','max_tokens':8,'metadata':{'user_id':3},'messages':[{'role':'user','content':'x'}]}") << false;
        QTest::newRow("not JSON") << j("{'model':'m','max_tokens':8,'messages':[") << false;
    }
    void unusualRequests()
    {
        QFETCH(QByteArray, body);
        QFETCH(bool, valid);
        QVERIFY(!quickCheckAnthropicRequest(body));
        AnthropicError viaParse, viaPrepare;
        const std::optional<AnthropicRequest> full = AnthropicRequest::parse(body, &viaParse);
        const std::optional<AnthropicRequest::Prepared> prepared = AnthropicRequest::prepare(body, &viaPrepare);
        QCOMPARE(full.has_value(), valid);
        QCOMPARE(prepared.has_value(), valid);
        if (valid)
            QCOMPARE(prepared->body.object(), full->openAiBody);
        else
            QCOMPARE(viaPrepare.message, viaParse.message);
    }

    // Every body one edit away from a usual request: the quick check says yes only where the full
    // parse does, and then reads what it reads.
    void neverAcceptsWhatParseRefuses()
    {
        const QByteArray base = j("{'model':'m','max_tokens':16,'stream':true,'temperature':0.5,'stop_sequences':['.'],"
                                "'system':[{'type':'text','text':'S'}],'metadata':{'user_id':'u'},"
                                "'messages':[{'role':'user','content':[{'type':'text','text':'Hi'}]},{'role':'assistant','content':'Yo'}]}");
        const QByteArray replacements = QByteArray("\"{}[],:0-.e\\ ax1");
        int accepted = 0, checked = 0;
        for (qsizetype at = 0; at < base.size(); ++at) {
            QList<QByteArray> variants{QByteArray(base).remove(at, 1)};
            for (const char c : replacements)
                variants << QByteArray(base).replace(at, 1, QByteArray(1, c)) << QByteArray(base).insert(at, c);
            for (const QByteArray &body : variants) {
                ++checked;
                if (!quickCheckAnthropicRequest(body))
                    continue;
                ++accepted;
                compareWithParse(body);
                if (QTest::currentTestFailed()) {
                    qWarning("on %s", body.constData());
                    return;
                }
            }
        }
        QVERIFY(accepted > 0 && accepted < checked); // both answers were exercised
    }
};

QTEST_GUILESS_MAIN(tst_AnthropicQuickCheck)
#include "tst_AnthropicQuickCheck.moc"
