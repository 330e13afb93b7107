#include "frontends/anthropic_messages/AnthropicError.h"

#include "AnthropicWire.h"

#include <QJsonDocument>
#include <QSet>
#include <QtTest>

using namespace sb;

// Anthropic's error envelope and the mapping of the engine's OpenAI-shaped errors onto Anthropic's
// statuses and types, held to the reference error (tests/fixtures/anthropic_messages/error.json).

namespace {

// Every error type Anthropic documents (errors page and the SDKs' ErrorType union).
const QSet<QString> &documentedTypes()
{
    static const QSet<QString> types{"invalid_request_error", "authentication_error", "billing_error", "permission_error",
                                     "not_found_error",       "request_too_large",    "rate_limit_error", "api_error",
                                     "timeout_error",         "overloaded_error"};
    return types;
}

} // namespace

class tst_AnthropicError : public QObject {
    Q_OBJECT
private slots:
    void envelopeIsExactlyAnthropics()
    {
        const AnthropicError error{404, "not_found_error", "The requested resource could not be found."};
        QCOMPARE(error.toJson(),
                 QByteArray(R"({"type":"error","error":{"type":"not_found_error","message":"The requested resource could not be found."}})"));
        // The reference error, less the request_id that Anthropic's own servers add.
        QJsonObject reference = test::anthropicFixtureObject("error.json");
        QVERIFY(!reference.isEmpty());
        reference.remove("request_id");
        QCOMPARE(QJsonDocument::fromJson(error.toJson()).object(), reference);
    }

    void messageIsEscaped()
    {
        const AnthropicError error{400, "invalid_request_error", "messages.0.content: \"Tiếng Việt\" \\ 中文\n"};
        QCOMPARE(error.toJson(),
                 QByteArray("{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\","
                            "\"message\":\"messages.0.content: \\\"Tiếng Việt\\\" \\\\ 中文\\n\"}}"));
        QCOMPARE(QJsonDocument::fromJson(error.toJson()).object().value("error").toObject().value("message").toString(), error.message);
    }

    void eventIsTheStreamsErrorEvent()
    {
        const AnthropicError error{529, "overloaded_error", "Overloaded"};
        QCOMPARE(error.toEvent(), "event: error\ndata: " + error.toJson() + "\n\n");
        const QList<test::WireEvent> mine = test::parseEvents(error.toEvent());
        const QList<test::WireEvent> reference = test::parseEvents(test::readAnthropicFixture("error_event.sse"));
        QCOMPARE(mine.size(), 1);
        QCOMPARE(reference.size(), 1);
        QCOMPARE(mine.first().name, reference.first().name);
        QCOMPARE(mine.first().data, reference.first().data);
    }

    void invalidRequestDefaults()
    {
        const AnthropicError error = AnthropicError::invalidRequest("max_tokens: Field required.");
        QCOMPARE(error.status, 400);
        QCOMPARE(error.type, QStringLiteral("invalid_request_error"));
        QCOMPARE(error.message, QStringLiteral("max_tokens: Field required."));
    }

    void fromOpenAi_data()
    {
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("openAiType");
        QTest::addColumn<QString>("openAiCode");
        QTest::addColumn<int>("anthropicStatus");
        QTest::addColumn<QString>("anthropicType");

        // What the proxy's door and its ClientErrors give an OpenAI client (ARCHITECTURE.md,
        // "Errors and outcomes"), row by row.
        QTest::newRow("400 bad field") << 400 << "invalid_request_error" << "invalid_type" << 400 << "invalid_request_error";
        QTest::newRow("400 provider's parameter error") << 400 << "invalid_request_error" << "context_length_exceeded" << 400 << "invalid_request_error";
        QTest::newRow("401 local token") << 401 << "invalid_request_error" << "invalid_api_key" << 401 << "authentication_error";
        QTest::newRow("402") << 402 << "invalid_request_error" << "" << 402 << "billing_error";
        QTest::newRow("403") << 403 << "invalid_request_error" << "" << 403 << "permission_error";
        QTest::newRow("404 unknown model") << 404 << "invalid_request_error" << "model_not_found" << 404 << "not_found_error";
        QTest::newRow("404 unknown url") << 404 << "invalid_request_error" << "unknown_url" << 404 << "not_found_error";
        QTest::newRow("405") << 405 << "invalid_request_error" << "" << 405 << "invalid_request_error";
        QTest::newRow("413 body too large") << 413 << "invalid_request_error" << "request_too_large" << 413 << "request_too_large";
        QTest::newRow("422 provider") << 422 << "invalid_request_error" << "invalid_request" << 422 << "invalid_request_error";
        QTest::newRow("429 every channel limited") << 429 << "rate_limit_error" << "rate_limited" << 429 << "rate_limit_error";
        QTest::newRow("429 budget spent") << 429 << "insufficient_quota" << "insufficient_quota" << 429 << "rate_limit_error";
        QTest::newRow("500") << 500 << "server_error" << "" << 500 << "api_error";
        QTest::newRow("501") << 501 << "invalid_request_error" << "" << 501 << "api_error";
        QTest::newRow("502 every channel failed") << 502 << "upstream_error" << "upstream_unavailable" << 529 << "overloaded_error";
        QTest::newRow("502 our key refused") << 502 << "upstream_error" << "upstream_auth_error" << 500 << "api_error";
        QTest::newRow("503 no channel available") << 503 << "service_unavailable" << "no_channel_available" << 529 << "overloaded_error";
        QTest::newRow("504 no channel answered") << 504 << "timeout" << "upstream_timeout" << 504 << "timeout_error";
        QTest::newRow("504 deadline") << 504 << "timeout" << "deadline_exceeded" << 504 << "timeout_error";
        QTest::newRow("529 passed on") << 529 << "overloaded_error" << "" << 529 << "overloaded_error";
        // A broken stream's error payload: no status, the outcome's name as the code.
        QTest::newRow("mid-stream provider down") << 0 << "upstream_error" << "provider_down" << 529 << "overloaded_error";
        QTest::newRow("mid-stream connect failed") << 0 << "upstream_error" << "connect_failed" << 529 << "overloaded_error";
        QTest::newRow("mid-stream timeout") << 0 << "upstream_error" << "timeout" << 504 << "timeout_error";
        QTest::newRow("mid-stream rate limit") << 0 << "upstream_error" << "retryable_rate_limit" << 429 << "rate_limit_error";
        QTest::newRow("mid-stream auth") << 0 << "upstream_error" << "auth_error" << 500 << "api_error";
        QTest::newRow("mid-stream parameter") << 0 << "upstream_error" << "non_retryable_param_error" << 400 << "invalid_request_error";
        QTest::newRow("no status, invalid request") << 0 << "invalid_request_error" << "" << 400 << "invalid_request_error";
        QTest::newRow("no status, bad key") << 0 << "" << "invalid_api_key" << 401 << "authentication_error";
        QTest::newRow("no status, unknown") << 0 << "" << "" << 500 << "api_error";
    }
    void fromOpenAi()
    {
        QFETCH(int, status);
        QFETCH(QString, openAiType);
        QFETCH(QString, openAiCode);
        QFETCH(int, anthropicStatus);
        QFETCH(QString, anthropicType);
        const QString message = QStringLiteral("Every channel for \"claude\" failed (4 attempts). Not tried: b: circuit open.");
        const AnthropicError error = AnthropicError::fromOpenAi(status, openAiType, openAiCode, message);
        QCOMPARE(error.status, anthropicStatus);
        QCOMPARE(error.type, anthropicType);
        QCOMPARE(error.message, message); // the proxy's sentence reaches the client as it was
        QVERIFY2(documentedTypes().contains(error.type), qPrintable(error.type));
    }

    void everyStatusGetsADocumentedType()
    {
        for (int status = 400; status < 600; ++status) {
            const AnthropicError error = AnthropicError::fromOpenAi(status, QString(), QString(), QStringLiteral("x"));
            QVERIFY2(documentedTypes().contains(error.type), qPrintable(QString::number(status)));
            QCOMPARE(error.status >= 500, status >= 500);
        }
    }
};

QTEST_GUILESS_MAIN(tst_AnthropicError)
#include "tst_AnthropicError.moc"
