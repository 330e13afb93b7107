#include "frontends/anthropic_messages/AnthropicRequest.h"
#include "frontends/anthropic_messages/AnthropicTokenEstimate.h"

#include "AnthropicWire.h"

#include <QJsonDocument>
#include <QtTest>

using namespace sb;

// POST /v1/messages/count_tokens answered by estimate: the reference request of Anthropic's token
// counting guide lands near Anthropic's own count, images and PDF pages cost their flat amounts,
// and a bad request is the same 400 as for /v1/messages.

class tst_AnthropicTokenEstimate : public QObject {
    Q_OBJECT
private slots:
    void referenceRequestIsNearAnthropicsCount()
    {
        AnthropicError error;
        const std::optional<int> tokens = AnthropicTokenEstimate::count(test::readAnthropicFixture("count_tokens_request.json"), &error);
        QVERIFY2(tokens, qPrintable(error.message));
        const int reference = test::anthropicFixtureObject("count_tokens_response.json").value("input_tokens").toInt();
        QCOMPARE(reference, 14);
        // "You are a scientist" and "Hello, Claude": 32 bytes of text, 8 tokens at four bytes a
        // token. Anthropic counts 14 with its message framing; the estimate is of the text alone.
        QCOMPARE(*tokens, 8);
        QVERIFY(*tokens >= reference / 4 && *tokens <= reference * 4);
        QCOMPARE(AnthropicTokenEstimate::toJson(*tokens), QByteArray(R"({"input_tokens":8})"));
        QCOMPARE(QJsonDocument::fromJson(AnthropicTokenEstimate::toJson(reference)).object(),
                 test::anthropicFixtureObject("count_tokens_response.json"));
    }

    void imagesAndPdfPagesCostFlatAmounts()
    {
        const QByteArray body = test::readAnthropicFixture("request_blocks.json");
        AnthropicError error;
        const std::optional<int> tokens = AnthropicTokenEstimate::count(body, &error);
        QVERIFY2(tokens, qPrintable(error.message));
        // Two images and the two-page PDF; the rest is a few hundred bytes of text and one tool.
        const int fixed = 2 * AnthropicTokenEstimate::ImageTokens + 2 * AnthropicTokenEstimate::PdfPageTokens;
        QVERIFY2(*tokens > fixed && *tokens < fixed + 300, qPrintable(QString::number(*tokens)));
        // count_tokens ignores max_tokens and stream, so the same body counts the same.
        const std::optional<AnthropicRequest> request = AnthropicRequest::parse(body, &error);
        QVERIFY(request);
        QCOMPARE(AnthropicTokenEstimate::estimate(request->openAiBody), *tokens);
    }

    void toolsAndToolCallsAreText()
    {
        const QByteArray withTools = R"({"model":"m","messages":[{"role":"user","content":"hi"},
            {"role":"assistant","content":[{"type":"tool_use","id":"t","name":"get_weather","input":{"location":"Hà Nội"}}]},
            {"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"31°C"}]}],
            "tools":[{"name":"get_weather","description":"Weather now","input_schema":{"type":"object"}}]})";
        AnthropicError error;
        const std::optional<int> tokens = AnthropicTokenEstimate::count(withTools, &error);
        QVERIFY2(tokens, qPrintable(error.message));
        const std::optional<int> bare = AnthropicTokenEstimate::count(R"({"model":"m","messages":[{"role":"user","content":"hi"}]})", &error);
        QVERIFY(bare);
        QCOMPARE(*bare, 1);
        QVERIFY(*tokens > *bare + 10);
    }

    void pdfPages()
    {
        QCOMPARE(AnthropicTokenEstimate::pdfPages("%PDF-1.4\n<< /Type /Pages /Count 3 >>\n<< /Type /Page >>\n<< /Type/Page >>\n<</Type\n/Page>>"), 3);
        QCOMPARE(AnthropicTokenEstimate::pdfPages("not a pdf"), 1);
        QCOMPARE(AnthropicTokenEstimate::pdfPages(QByteArray()), 1);
        QCOMPARE(AnthropicTokenEstimate::pdfPages("/Type /Page"), 1);
    }

    void badRequestIsTheSame400()
    {
        AnthropicError error;
        QVERIFY(!AnthropicTokenEstimate::count(R"({"model":"m","messages":[]})", &error));
        QCOMPARE(error.status, 400);
        QCOMPARE(error.message, QStringLiteral("messages: At least one message is required."));
        QVERIFY(!AnthropicTokenEstimate::count(R"({"messages":[{"role":"user","content":"hi"}]})", &error));
        QCOMPARE(error.message, QStringLiteral("model: Field required."));
    }
};

QTEST_GUILESS_MAIN(tst_AnthropicTokenEstimate)
#include "tst_AnthropicTokenEstimate.moc"
