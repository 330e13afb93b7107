// A 404 for the endpoint (a wrong base URL or path) against a 404 for the model, in every dialect's
// ErrorMap: the first is PROVIDER_DOWN `endpoint_not_found` with Misconfiguration::EndpointNotFound
// and the server's words, the second is left to the dialect's own reading and never marks anything.
#include "providers/anthropic/AnthropicErrorMap.h"
#include "providers/common/EndpointNotFound.h"
#include "providers/dashscope/DashScopeErrorMap.h"
#include "providers/ernie/ErnieErrorMap.h"
#include "providers/gemini/GeminiErrorMap.h"
#include "providers/openai_compat/OpenAiCompatErrorMap.h"

#include <QtTest>

using namespace sb;

namespace {

Outcome classify(const QString &dialect, int status, const QByteArray &contentType, const QByteArray &body)
{
    HttpHeaders headers;
    headers.add("content-type", contentType);
    if (dialect == QLatin1String("anthropic"))
        return AnthropicErrorMap::classify(status, headers, body);
    if (dialect == QLatin1String("gemini"))
        return GeminiErrorMap::classify(status, headers, body);
    if (dialect == QLatin1String("dashscope"))
        return DashScopeErrorMap::classify(status, headers, body);
    if (dialect == QLatin1String("ernie"))
        return ErnieErrorMap::classify(status, headers, body);
    return OpenAiCompatErrorMap::classify(status, headers, body);
}

const char *const kDialects[] = {"openai_compat", "anthropic", "gemini", "dashscope", "ernie"};

} // namespace

class tst_EndpointNotFound : public QObject {
    Q_OBJECT

private slots:
    void aWebServersNotFoundIsTheEndpoints_data()
    {
        QTest::addColumn<QString>("dialect");
        QTest::addColumn<QByteArray>("contentType");
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<QString>("said");
        const QByteArray nginx = "<html>\r\n<head><title>404 Not Found</title></head>\r\n<body><center><h1>404 Not Found</h1>"
                                 "</center><hr><center>nginx</center></body></html>";
        for (const char *d : kDialects) {
            QTest::addRow("%s nginx page", d) << QString::fromLatin1(d) << QByteArray("text/html") << nginx << QStringLiteral("404 Not Found");
            QTest::addRow("%s plain text", d) << QString::fromLatin1(d) << QByteArray("text/plain") << QByteArray("404 page not found\n")
                                              << QStringLiteral("404 page not found");
            QTest::addRow("%s json detail", d) << QString::fromLatin1(d) << QByteArray("application/json")
                                               << QByteArray(R"({"detail":"Not Found"})") << QStringLiteral("Not Found");
            QTest::addRow("%s empty", d) << QString::fromLatin1(d) << QByteArray("text/plain") << QByteArray() << QStringLiteral("Not Found");
        }
    }
    void aWebServersNotFoundIsTheEndpoints()
    {
        QFETCH(QString, dialect);
        QFETCH(QByteArray, contentType);
        QFETCH(QByteArray, body);
        QFETCH(QString, said);
        const Outcome o = classify(dialect, 404, contentType, body);
        QCOMPARE(toString(o.kind), toString(OutcomeKind::ProviderDown));
        QCOMPARE(o.misconfiguration, Misconfiguration::EndpointNotFound);
        QCOMPARE(o.providerCode, QStringLiteral("endpoint_not_found"));
        QCOMPARE(o.httpStatus, 404);
        QCOMPARE(o.message, QStringLiteral("HTTP 404 '%1' (no such endpoint)").arg(said));
        QVERIFY(o.isRetryable());
    }

    void theDialectsOwnUnknownModelIsNotTheEndpoints_data()
    {
        QTest::addColumn<QString>("dialect");
        QTest::addColumn<QByteArray>("body");
        QTest::newRow("openai_compat") << QStringLiteral("openai_compat")
                                       << QByteArray(R"({"error":{"message":"The model `gpt-9` does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}})");
        QTest::newRow("ollama") << QStringLiteral("openai_compat") << QByteArray(R"({"error":"model 'llama9' not found, try pulling it first"})");
        QTest::newRow("anthropic") << QStringLiteral("anthropic")
                                   << QByteArray(R"({"type":"error","error":{"type":"not_found_error","message":"model: claude-9"}})");
        QTest::newRow("gemini") << QStringLiteral("gemini")
                                << QByteArray(R"({"error":{"code":404,"message":"models/gemini-9 is not found for API version v1beta, or is not supported for generateContent.","status":"NOT_FOUND"}})");
        QTest::newRow("dashscope") << QStringLiteral("dashscope") << QByteArray(R"({"code":"ModelNotFound","message":"Model not exist.","request_id":"r"})");
        QTest::newRow("ernie") << QStringLiteral("ernie") << QByteArray(R"({"error_code":336003,"error_msg":"the model ernie-9 does not exist"})");
    }
    void theDialectsOwnUnknownModelIsNotTheEndpoints()
    {
        QFETCH(QString, dialect);
        QFETCH(QByteArray, body);
        const Outcome o = classify(dialect, 404, "application/json", body);
        QCOMPARE(o.misconfiguration, Misconfiguration::None);
        QVERIFY(o.providerCode != QStringLiteral("endpoint_not_found"));
        QVERIFY(!o.isSuccess());
    }

    void otherStatusesAreLeftAlone()
    {
        for (const char *d : kDialects) {
            const Outcome o = classify(QString::fromLatin1(d), 500, "text/html", "<html><title>Not Found</title></html>");
            QCOMPARE(o.misconfiguration, Misconfiguration::None);
        }
    }

    void theExcerptIsShortAndMasksWhatLooksLikeAKey()
    {
        const QString excerpt = upstreamExcerpt("no route for /v1/chat?key=AIzaSyD-abcdefghijklmnopqrstuvwxyz012345 " + QByteArray(300, 'x'));
        QVERIFY(!excerpt.contains(QStringLiteral("abcdefghijklmnopqrstuvwxyz012345")));
        QVERIFY(excerpt.size() <= 120);
        QVERIFY(excerpt.startsWith(QStringLiteral("no route for /v1/chat?key=")));
    }
};

QTEST_GUILESS_MAIN(tst_EndpointNotFound)
#include "tst_EndpointNotFound.moc"
