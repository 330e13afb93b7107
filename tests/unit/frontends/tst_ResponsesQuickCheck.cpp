#include "frontends/openai_responses/ResponseObject.h"
#include "frontends/openai_responses/ResponsesQuickCheck.h"
#include "frontends/openai_responses/ResponsesRequest.h"

#include <QJsonDocument>
#include <QtTest>

using namespace sb;

// The quick check reads the usual Responses request on its bytes; the full parse is the reference.
// Whatever the quick check accepts, the full parse accepts too and reads the same way: the same
// request fields, the same chat body for the upstream, the same parameters repeated in the
// response. Bodies it is not sure of go to the full parse, so the door answers every body as before.

namespace {

// JSON written with single quotes, which keeps the test bodies readable.
QByteArray j(const char *singleQuoted) { return QByteArray(singleQuoted).replace('\'', '"'); }

QJsonObject echoed(const ResponsesRequest &request)
{
    ResponseFrame frame;
    frame.id = QStringLiteral("resp_test");
    frame.model = request.model;
    frame.createdAt = 1741476542;
    frame.echo = request.echo;
    return QJsonDocument::fromJson(ResponseObject::write(frame, ResponseEnding{})).object();
}

} // namespace

class tst_ResponsesQuickCheck : public QObject {
    Q_OBJECT

private slots:
    void usualRequests_data()
    {
        QTest::addColumn<QByteArray>("body");
        QTest::newRow("string input") << j("{'model':'bench','input':'Say hello.','max_output_tokens':16}");
        QTest::newRow("store false") << j("{'model':'bench','input':'Say hello.','max_output_tokens':16,'store':false}");
        QTest::newRow("store true, stream") << j("{'model':'m','input':'x','store':true,'stream':true}");
        QTest::newRow("stream false") << j("{'stream':false,'model':'m','input':'x'}");
        QTest::newRow("escapes and unicode in the input")
            << QByteArray("{\"model\":\"m\",\"input\":\"line\\none \\\"quoted\\\" \\u00e9 caf\\u00e9 \\ud83d\\ude00 \\u65e5\\u672c\"}");
        QTest::newRow("raw multibyte input") << QByteArray("{\"model\":\"m\",\"input\":\"\xc3\xa9t\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac\"}");
        QTest::newRow("empty string input") << j("{'model':'m','input':''}");
        QTest::newRow("instructions") << j("{'model':'m','instructions':'Be brief.','input':'x'}");
        QTest::newRow("empty instructions") << j("{'model':'m','instructions':'','input':'x'}");
        QTest::newRow("sampling") << j("{'model':'m','input':'x','temperature':0.7,'top_p':0.9}");
        QTest::newRow("sampling at the edges") << j("{'model':'m','input':'x','temperature':2,'top_p':0}");
        QTest::newRow("sampling integers") << j("{'model':'m','input':'x','temperature':1,'top_p':1}");
        QTest::newRow("user") << j("{'model':'m','input':'x','user':'user-1234'}");
        QTest::newRow("user with escapes") << QByteArray("{\"model\":\"m\",\"input\":\"x\",\"user\":\"a\\tb\"}");
        QTest::newRow("easy messages")
            << j("{'model':'m','input':[{'role':'developer','content':'Be terse.'},{'role':'user','content':'Hi'},"
                 "{'type':'message','role':'system','content':'No emoji.'},{'content':'And?','role':'user','type':'message'}]}");
        QTest::newRow("one message with instructions") << j("{'model':'m','instructions':'Be brief.','input':[{'role':'user','content':'x'}]}");
        QTest::newRow("whitespace") << QByteArray(" {\n \"model\" : \"m\" ,\n \"input\" : [ { \"role\" : \"user\" , \"content\" : \"x\" } ]\n}\n");
        QTest::newRow("model with a space") << j("{'model':'my model','input':'x'}");
        QTest::newRow("largest token limit") << j("{'model':'m','input':'x','max_output_tokens':2147483647}");
    }

    void usualRequests()
    {
        QFETCH(QByteArray, body);
        const std::optional<ResponsesRequest> quick = quickCheckResponsesRequest(body);
        QVERIFY(quick);
        ApiError error;
        const std::optional<ResponsesRequest> full = ResponsesRequest::parse(body, &error);
        QVERIFY2(full, qPrintable(QString::fromUtf8(body) + QStringLiteral(" → ") + error.message));
        QCOMPARE(quick->model, full->model);
        QCOMPARE(quick->stream, full->stream);
        QCOMPARE(quick->store, full->store);
        QCOMPARE(quick->previousResponseId, full->previousResponseId);
        QVERIFY(quick->input.isEmpty()); // as text only: the store keeps it so
        QCOMPARE(quick->inputItems(), full->input);
        if (!body.contains('\\')) // escapes are copied as the client wrote them
            QCOMPARE(quick->inputJson, QJsonDocument(full->input).toJson(QJsonDocument::Compact));
        QCOMPARE(quick->instructions, full->instructions);
        QCOMPARE(quick->maxOutputTokens, full->maxOutputTokens);
        QCOMPARE(quick->estimatedPromptTokens, full->estimatedPromptTokens);
        QCOMPARE(quick->customTools, full->customTools);
        QCOMPARE(quick->dropped, full->dropped);
        QCOMPARE(quick->original, body);
        QCOMPARE(echoed(*quick), echoed(*full));

        QJsonParseError parseError;
        const QJsonDocument chat = QJsonDocument::fromJson(quick->chatBodyJson, &parseError);
        QCOMPARE(parseError.error, QJsonParseError::NoError);
        QCOMPARE(chat.object(), full->chatBody());
        QVERIFY(full->chatBodyJson.isEmpty()); // the full parse builds the object only
    }

    // Not sure: the full parse reads these (and refuses the bad ones with OpenAI's 400).
    void everythingElseGoesToTheFullParse_data()
    {
        QTest::addColumn<QByteArray>("body");
        QTest::newRow("not JSON") << QByteArray("{\"model\":");
        QTest::newRow("not an object") << j("['model']");
        QTest::newRow("no model") << j("{'input':'x'}");
        QTest::newRow("no input") << j("{'model':'m'}");
        QTest::newRow("blank model") << j("{'model':'  ','input':'x'}");
        QTest::newRow("escaped model") << QByteArray("{\"model\":\"g\\u0070t\",\"input\":\"x\"}");
        QTest::newRow("model a number") << j("{'model':4,'input':'x'}");
        QTest::newRow("input a number") << j("{'model':'m','input':4}");
        QTest::newRow("empty input list") << j("{'model':'m','input':[]}");
        QTest::newRow("content parts") << j("{'model':'m','input':[{'role':'user','content':[{'type':'input_text','text':'x'}]}]}");
        QTest::newRow("assistant turn") << j("{'model':'m','input':[{'role':'user','content':'x'},{'role':'assistant','content':'y'}]}");
        QTest::newRow("unknown role") << j("{'model':'m','input':[{'role':'robot','content':'x'}]}");
        QTest::newRow("function call output") << j("{'model':'m','input':[{'type':'function_call_output','call_id':'c','output':'4'}]}");
        QTest::newRow("item with an id") << j("{'model':'m','input':[{'id':'msg_1','role':'user','content':'x'}]}");
        QTest::newRow("repeated role") << j("{'model':'m','input':[{'role':'user','role':'system','content':'x'}]}");
        QTest::newRow("escaped item key") << QByteArray("{\"model\":\"m\",\"input\":[{\"rol\\u0065\":\"user\",\"content\":\"x\"}]}");
        QTest::newRow("tools") << j("{'model':'m','input':'x','tools':[]}");
        QTest::newRow("previous response") << j("{'model':'m','input':'x','previous_response_id':'resp_1'}");
        QTest::newRow("metadata") << j("{'model':'m','input':'x','metadata':{}}");
        QTest::newRow("text format") << j("{'model':'m','input':'x','text':{'format':{'type':'text'}}}");
        QTest::newRow("reasoning") << j("{'model':'m','input':'x','reasoning':{'effort':'low'}}");
        QTest::newRow("null instructions") << j("{'model':'m','input':'x','instructions':null}");
        QTest::newRow("escaped instructions") << QByteArray("{\"model\":\"m\",\"input\":\"x\",\"instructions\":\"a\\nb\"}");
        QTest::newRow("stream a string") << j("{'model':'m','input':'x','stream':'yes'}");
        QTest::newRow("store null") << j("{'model':'m','input':'x','store':null}");
        QTest::newRow("zero tokens") << j("{'model':'m','input':'x','max_output_tokens':0}");
        QTest::newRow("negative tokens") << j("{'model':'m','input':'x','max_output_tokens':-1}");
        QTest::newRow("fractional tokens") << j("{'model':'m','input':'x','max_output_tokens':1.5}");
        QTest::newRow("too many tokens") << j("{'model':'m','input':'x','max_output_tokens':2147483648}");
        QTest::newRow("hot temperature") << j("{'model':'m','input':'x','temperature':2.5}");
        QTest::newRow("top_p above one") << j("{'model':'m','input':'x','top_p':1.5}");
        QTest::newRow("temperature a string") << j("{'model':'m','input':'x','temperature':'1'}");
        QTest::newRow("user a number") << j("{'model':'m','input':'x','user':5}");
        QTest::newRow("unknown member") << j("{'model':'m','input':'x','seed':1}");
        QTest::newRow("repeated member") << j("{'model':'m','input':'x','model':'n'}");
        QTest::newRow("background") << j("{'model':'m','input':'x','background':true}");
    }

    void everythingElseGoesToTheFullParse()
    {
        QFETCH(QByteArray, body);
        QVERIFY(!quickCheckResponsesRequest(body));
    }
};

QTEST_GUILESS_MAIN(tst_ResponsesQuickCheck)
#include "tst_ResponsesQuickCheck.moc"
