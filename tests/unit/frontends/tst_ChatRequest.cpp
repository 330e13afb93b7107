// ChatRequest::parse checks the usual request on its bytes and leaves the rest to QJsonDocument.
// Both ways must give every request the same answer: the same facts and body for a good one, the
// same 400 for a bad one. Checked on hand-written requests and on thousands of mutations of them.
// (No raw string literals here: moc misreads them.)

#include "frontends/openai_chat/ChatRequest.h"

#include "JsonMutation.h"

#include <QJsonDocument>
#include <QRandomGenerator>
#include <QTest>

using namespace sb;

namespace {

const QByteArray kPlain = "{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"Say hello.\"}],\"max_tokens\":16}";

const QByteArray kRich =
    "{ \"model\" : \"claude-3-5-sonnet\", \"stream\": true, \"stream_options\": {\"include_usage\": true},\n"
    "  \"temperature\": 0.2, \"top_p\": 1, \"n\": 1, \"stop\": [\"\\n\\n\", \"END\"], \"max_completion_tokens\": 300,\n"
    "  \"response_format\": {\"type\": \"json_object\"},\n"
    "  \"tools\": [{\"type\": \"function\", \"function\": {\"name\": \"get_weather\", \"parameters\": {\"type\": \"object\","
    " \"properties\": {\"city\": {\"type\": \"string\"}}}}}],\n"
    "  \"messages\": [\n"
    "    {\"role\": \"system\", \"content\": \"You are terse. Quote \\\"exactly\\\" \\\\ and \\u00e9 \\ud83d\\ude00.\"},\n"
    "    {\"role\": \"user\", \"content\": [{\"type\": \"text\", \"text\": \"caf\xC3\xA9 {not json} [x]\"}]},\n"
    "    {\"role\": \"assistant\", \"content\": null, \"tool_calls\": [{\"id\": \"c1\", \"type\": \"function\","
    " \"function\": {\"name\": \"get_weather\", \"arguments\": \"{\\\"city\\\":\\\"Oslo\\\"}\"}}]},\n"
    "    {\"role\": \"tool\", \"tool_call_id\": \"c1\", \"content\": \"-3 C\"},\n"
    "    {\"role\": \"assistant\", \"function_call\": {\"name\": \"f\", \"arguments\": \"{}\"}}\n"
    "  ], \"user\": \"u-1\", \"metadata\": {\"k\": [1, 2.5e3, -0.1, true, false, null]}\n"
    "}";

// Requests the quick check must leave to QJsonDocument, each for its own reason, and bad ones.
const QByteArray kUnusual[] = {
    "{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"us\\u0065r\",\"content\":\"hi\"}]}",    // an escaped role
    "{\"model\":\"gpt\\u002d4o\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",     // an escaped model
    "{\"model\":\" gpt-4o \",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",        // spaces around the model
    "{\"model\":\"   \",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",              // only spaces
    "{\"model\":\"\xC2\xA0gpt\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",      // a no-break space first
    "{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"role\":\"system\",\"content\":\"hi\"}]}",
    "{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"a\",\"content\":1}]}",
    "{\"model\":\"gpt-4o\",\"messages\":[{\"r\\u006fle\":\"user\",\"content\":\"hi\"}]}",
    "{\"model\":\"gpt-4o\",\"model\":\"x\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
    "{\"model\":\"gpt-4o\",\"stream\":true,\"stream_options\":{\"include_usage\":false,\"include_usage\":true},"
    "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
    "{\"model\":\"gpt-4o\",\"messages\":[]}",
    "{\"model\":\"gpt-4o\",\"messages\":[\"hi\"]}",
    "{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"robot\",\"content\":\"hi\"}]}",
    "{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\"}]}",
    "{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":42}]}",
    "{\"model\":\"gpt-4o\",\"messages\":{}}",
    "{\"model\":42,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
    "{\"model\":\"gpt-4o\"}",
    "{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"stream\":\"yes\"}",
    "{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"temperature\":\"hot\"}",
    "{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"stop\":7}",
    "{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"tools\":{}}",
    "{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"stream_options\":true}",
    "{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"a\x01\"}]}",
    "[{\"model\":\"gpt-4o\"}]",
    "",
    "   ",
    "{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]} x",
};

QString describe(const std::optional<ChatRequest> &request, const ApiError &error)
{
    if (!request)
        return QStringLiteral("error %1 %2 %3 %4").arg(error.status).arg(error.message, error.param, error.code);
    return QStringLiteral("model=%1 stream=%2 includeUsage=%3 tokens=%4 body=%5")
        .arg(request->model)
        .arg(request->stream)
        .arg(request->includeUsage)
        .arg(request->estimatedPromptTokens)
        .arg(QString::fromUtf8(QJsonDocument(request->body.object()).toJson(QJsonDocument::Compact)));
}

// Both ways agree; returns whether the quick check took the request.
bool agree(const QByteArray &json)
{
    ApiError quickError, qtError;
    const std::optional<ChatRequest> quick = ChatRequest::parse(json, &quickError);
    const std::optional<ChatRequest> qt = ChatRequest::parseWithQt(json, &qtError);
    const QString quickSays = describe(quick, quickError);
    const QString qtSays = describe(qt, qtError);
    if (quickSays != qtSays) {
        qWarning().noquote() << "request:" << json.toPercentEncoding(" {}[]\":,");
        [&] { QCOMPARE(quickSays, qtSays); }();
    }
    if (quick)
        [&] { QCOMPARE(quick->body.clientBytes(), json); }();
    return quick && quick->body.scan();
}

} // namespace

class tst_ChatRequest : public QObject {
    Q_OBJECT

private slots:
    void theUsualRequestIsCheckedOnItsBytes()
    {
        QVERIFY(agree(kPlain));
        ApiError error;
        const std::optional<ChatRequest> request = ChatRequest::parse(kPlain, &error);
        QVERIFY(request);
        QCOMPARE(request->model, QStringLiteral("gpt-4o"));
        QVERIFY(!request->stream);
        QVERIFY(request->body.scan()); // not parsed into values
        QCOMPARE(request->body.object().value(QStringLiteral("max_tokens")).toInt(), 16); // but on demand
    }

    void everyFieldTheChecksReadAgrees()
    {
        QVERIFY(agree(kRich));
        QVERIFY(agree("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"stream\":null,\"stop\":null}"));
        ApiError error;
        const std::optional<ChatRequest> request = ChatRequest::parse(kRich, &error);
        QVERIFY(request && request->stream && request->includeUsage);
        QCOMPARE(request->model, QStringLiteral("claude-3-5-sonnet"));
    }

    void theUnusualIsLeftToQt_data()
    {
        QTest::addColumn<QByteArray>("json");
        int i = 0;
        for (const QByteArray &json : kUnusual)
            QTest::newRow(QByteArray::number(i++).constData()) << json;
    }

    void theUnusualIsLeftToQt()
    {
        QFETCH(QByteArray, json);
        QVERIFY(!agree(json)); // taken by QJsonDocument, and both ways say the same
    }

    void anEditedBodyNoLongerCarriesTheClientsBytes()
    {
        ApiError error;
        std::optional<ChatRequest> request = ChatRequest::parse(kPlain, &error);
        QVERIFY(request);
        const ClientBody shared = request->body; // a copy shares the parse
        QCOMPARE(&shared.object(), &request->body.object());
        request->body.edit().insert(QStringLiteral("model"), QStringLiteral("other"));
        QVERIFY(request->body.clientBytes().isEmpty());
        QVERIFY(!request->body.scan());
        QCOMPARE(request->body.object().value(QStringLiteral("model")).toString(), QStringLiteral("other"));
        QCOMPARE(shared.clientBytes(), kPlain); // the copy still says what the client sent
        QCOMPARE(shared.object().value(QStringLiteral("model")).toString(), QStringLiteral("gpt-4o"));
    }

    // Thousands of small corruptions of real requests: whatever either way accepts or refuses, the
    // other does too, with the same facts or the same error.
    void bothWaysAgreeOnMutatedRequests()
    {
        QRandomGenerator random(20261201);
        int quick = 0, total = 0;
        for (const QByteArray &seed : {kPlain, kRich}) {
            for (int round = 0; round < 10000; ++round) {
                const QByteArray json = test::mutatedJson(seed, random);
                ++total;
                if (agree(json))
                    ++quick;
                if (QTest::currentTestFailed())
                    return;
            }
        }
        qInfo("%d of %d mutants taken by the quick check", quick, total);
        QVERIFY2(quick > total / 20, "the quick check must take the mutants that are still good requests");
    }
};

QTEST_GUILESS_MAIN(tst_ChatRequest)
#include "tst_ChatRequest.moc"
