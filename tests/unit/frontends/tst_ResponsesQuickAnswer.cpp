#include "frontends/openai_responses/ResponsesAnswer.h"
#include "frontends/openai_responses/ResponsesQuickAnswer.h"

#include <QJsonDocument>
#include <QtTest>

using namespace sb;

// The quick answer writes the usual chat completion as a response object from its bytes; the
// object path (ResponsesAnswer::write of the parsed completion) is the reference. Whatever the
// quick path writes says exactly what the object path writes; what it is not sure of it leaves to
// the object path.

namespace {

QByteArray j(const char *singleQuoted) { return QByteArray(singleQuoted).replace('\'', '"'); }

ResponseFrame frame()
{
    ResponseFrame f;
    f.id = QStringLiteral("resp_0193a1b2c3d4e5f60718293a4b5c");
    f.model = QStringLiteral("gpt-test");
    f.createdAt = 1741476542;
    f.echo.insert(QStringLiteral("max_output_tokens"), 16);
    f.echo.insert(QStringLiteral("store"), false);
    return f;
}

} // namespace

class tst_ResponsesQuickAnswer : public QObject {
    Q_OBJECT

private slots:
    void usualAnswers_data()
    {
        QTest::addColumn<QByteArray>("completion");
        const char *head = "{'id':'chatcmpl-1','object':'chat.completion','created':1718000000,'model':'gpt-test',";
        const auto with = [head](const char *rest) { return j((QByteArray(head) + rest).constData()); };
        QTest::newRow("stop") << with("'choices':[{'index':0,'message':{'role':'assistant','content':'Hello there.'},'finish_reason':'stop'}],"
                                      "'usage':{'prompt_tokens':9,'completion_tokens':3,'total_tokens':12}}");
        QTest::newRow("length") << with("'choices':[{'index':0,'message':{'role':'assistant','content':'Hello'},'finish_reason':'length'}],"
                                        "'usage':{'prompt_tokens':9,'completion_tokens':16,'total_tokens':25}}");
        QTest::newRow("content filter") << with("'choices':[{'index':0,'message':{'role':'assistant','content':'Hel'},'finish_reason':'content_filter'}]}");
        QTest::newRow("null finish reason") << with("'choices':[{'index':0,'message':{'role':'assistant','content':'Hi'},'finish_reason':null}]}");
        QTest::newRow("empty answer") << with("'choices':[{'index':0,'message':{'role':'assistant','content':''},'finish_reason':'stop'}]}");
        QTest::newRow("empty answer cut short") << with("'choices':[{'index':0,'message':{'role':'assistant','content':''},'finish_reason':'length'}]}");
        QTest::newRow("no usage") << with("'choices':[{'index':0,'message':{'role':'assistant','content':'Hi'},'finish_reason':'stop'}]}");
        QTest::newRow("usage null") << with("'choices':[{'index':0,'message':{'role':'assistant','content':'Hi'},'finish_reason':'stop'}],'usage':null}");
        QTest::newRow("usage with details")
            << with("'choices':[{'index':0,'message':{'role':'assistant','content':'Hi'},'finish_reason':'stop'}],"
                    "'usage':{'prompt_tokens':2006,'completion_tokens':300,'total_tokens':2306,"
                    "'prompt_tokens_details':{'cached_tokens':1920},'completion_tokens_details':{'reasoning_tokens':128}}}");
        QTest::newRow("usage an empty object") << with("'choices':[{'index':0,'message':{'role':'assistant','content':'Hi'},'finish_reason':'stop'}],'usage':{}}");
        QTest::newRow("usage with DeepSeek's cache hits")
            << with("'choices':[{'index':0,'message':{'role':'assistant','content':'Hi'},'finish_reason':'stop'}],"
                    "'usage':{'prompt_tokens':50,'completion_tokens':2,'total_tokens':52,'prompt_cache_hit_tokens':40,'prompt_cache_miss_tokens':10}}");
        QTest::newRow("usage with null details")
            << with("'choices':[{'index':0,'message':{'role':'assistant','content':'Hi'},'finish_reason':'stop'}],"
                    "'usage':{'prompt_tokens':5,'completion_tokens':2,'total_tokens':7,'prompt_tokens_details':null,'completion_tokens_details':null}}");
        QTest::newRow("usage with more cached than sent")
            << with("'choices':[{'index':0,'message':{'role':'assistant','content':'Hi'},'finish_reason':'stop'}],"
                    "'usage':{'prompt_tokens':5,'completion_tokens':2,'prompt_tokens_details':{'cached_tokens':9,'audio_tokens':0}}}");
        QTest::newRow("usage written as floats")
            << with("'choices':[{'index':0,'message':{'role':'assistant','content':'Hi'},'finish_reason':'stop'}],"
                    "'usage':{'prompt_tokens':5.0,'completion_tokens':2,'total_tokens':null}}");
        QTest::newRow("usage not an object") << with("'choices':[{'index':0,'message':{'role':'assistant','content':'Hi'},'finish_reason':'stop'}],'usage':5}");
        QTest::newRow("the members OpenAI adds")
            << with("'choices':[{'index':0,'message':{'role':'assistant','content':'Hi','refusal':null,'annotations':[],"
                    "'tool_calls':null,'function_call':null},'logprobs':null,'finish_reason':'stop'}],"
                    "'usage':{'prompt_tokens':1,'completion_tokens':1,'total_tokens':2},'service_tier':'default','system_fingerprint':'fp_1'}");
        QTest::newRow("escapes and unicode")
            << QByteArray("{\"id\":\"c\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
                          "\"content\":\"line\\none \\\"q\\\" \\u00e9 \\ud83d\\ude00 \\/ \\u65e5\"},\"finish_reason\":\"stop\"}]}");
        QTest::newRow("raw multibyte") << QByteArray("{\"choices\":[{\"message\":{\"content\":\"\xc3\xa9t\xc3\xa9 \xe6\x97\xa5\"},\"finish_reason\":\"stop\"}]}");
    }

    void usualAnswers()
    {
        QFETCH(QByteArray, completion);
        const std::optional<QByteArray> quick = quickWriteResponse(completion, frame());
        QVERIFY(quick);
        QJsonParseError error;
        const QJsonDocument written = QJsonDocument::fromJson(*quick, &error);
        QCOMPARE(error.error, QJsonParseError::NoError);
        const QByteArray reference = ResponsesAnswer::write(QJsonDocument::fromJson(completion).object(), frame());
        QCOMPARE(written.object(), QJsonDocument::fromJson(reference).object());
        // Member order too: the response's is the reference's, the items' the object path's.
        QCOMPARE(QJsonDocument(written.object()).toJson(QJsonDocument::Compact).size(), QJsonDocument::fromJson(reference).toJson(QJsonDocument::Compact).size());
        if (!completion.contains('\\'))
            QCOMPARE(*quick, reference);
    }

    void everythingElseGoesToTheObjectPath_data()
    {
        QTest::addColumn<QByteArray>("completion");
        QTest::newRow("not JSON") << QByteArray("{\"choices\":");
        QTest::newRow("no choices") << j("{'id':'c','usage':{'prompt_tokens':1}}");
        QTest::newRow("no choice") << j("{'choices':[]}");
        QTest::newRow("two choices") << j("{'choices':[{'message':{'content':'a'},'finish_reason':'stop'},{'message':{'content':'b'},'finish_reason':'stop'}]}");
        QTest::newRow("tool calls")
            << j("{'choices':[{'message':{'content':null,'tool_calls':[{'id':'call_1','type':'function','function':{'name':'f','arguments':'{}'}}]},"
                 "'finish_reason':'tool_calls'}]}");
        QTest::newRow("text and tool calls")
            << j("{'choices':[{'message':{'content':'Let me look.','tool_calls':[{'id':'call_1','type':'function','function':{'name':'f','arguments':'{}'}}]},"
                 "'finish_reason':'tool_calls'}]}");
        QTest::newRow("legacy function call") << j("{'choices':[{'message':{'content':'x','function_call':{'name':'f','arguments':'{}'}},'finish_reason':'stop'}]}");
        QTest::newRow("refusal") << j("{'choices':[{'message':{'content':null,'refusal':'I cannot.'},'finish_reason':'stop'}]}");
        QTest::newRow("reasoning content") << j("{'choices':[{'message':{'content':'4','reasoning_content':'2+2'},'finish_reason':'stop'}]}");
        QTest::newRow("reasoning") << j("{'choices':[{'message':{'content':'4','reasoning':'2+2'},'finish_reason':'stop'}]}");
        QTest::newRow("null content") << j("{'choices':[{'message':{'role':'assistant','content':null},'finish_reason':'stop'}]}");
        QTest::newRow("content parts") << j("{'choices':[{'message':{'content':[{'type':'text','text':'x'}]},'finish_reason':'stop'}]}");
        QTest::newRow("no message") << j("{'choices':[{'finish_reason':'stop'}]}");
        QTest::newRow("repeated content") << j("{'choices':[{'message':{'content':'a','content':'b'},'finish_reason':'stop'}]}");
        QTest::newRow("escaped key") << QByteArray("{\"choices\":[{\"message\":{\"content\":\"a\",\"tool_c\\u0061lls\":[]},\"finish_reason\":\"stop\"}]}");
        QTest::newRow("escaped finish reason") << QByteArray("{\"choices\":[{\"message\":{\"content\":\"a\"},\"finish_reason\":\"l\\u0065ngth\"}]}");
    }

    void everythingElseGoesToTheObjectPath()
    {
        QFETCH(QByteArray, completion);
        QVERIFY(!quickWriteResponse(completion, frame()));
    }
};

QTEST_GUILESS_MAIN(tst_ResponsesQuickAnswer)
#include "tst_ResponsesQuickAnswer.moc"
