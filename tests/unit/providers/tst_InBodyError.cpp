// judgeInBodyError: an error that came without an HTTP status (inside a 200 body or as a stream
// event), judged by its type, code and message together, with what the dialect's tables make of
// them. The table is the rule of ARCHITECTURE.md, "Errors and outcomes", row by row.
#include "providers/common/InBodyError.h"

#include <QtTest>

using namespace sb;

Q_DECLARE_METATYPE(sb::OutcomeKind)

namespace {

constexpr auto Rate = OutcomeKind::RetryableRateLimit;
constexpr auto Down = OutcomeKind::ProviderDown;
constexpr auto Auth = OutcomeKind::AuthError;
constexpr auto Param = OutcomeKind::NonRetryableParamError;

} // namespace

class tst_InBodyError : public QObject {
    Q_OBJECT
private slots:
    void judgement_data()
    {
        QTest::addColumn<QString>("type");
        QTest::addColumn<QString>("code");
        QTest::addColumn<QString>("message");
        QTest::addColumn<int>("typeKind"); // -1: the dialect has no reading
        QTest::addColumn<int>("codeKind");
        QTest::addColumn<OutcomeKind>("expect");
        const int none = -1;
        const auto row = [&](const char *name, const char *type, const char *code, const char *message, OutcomeKind expect,
                             int typeKind = -1, int codeKind = -1) {
            QTest::newRow(name) << QString::fromUtf8(type) << QString::fromUtf8(code) << QString::fromUtf8(message) << typeKind << codeKind
                                << expect;
        };
        // Fields that disagree: whatever points at the provider wins over a generic "invalid".
        row("server_overloaded typed, invalid_request_error coded", "server_overloaded", "invalid_request_error", "", Down);
        row("invalid_request_error saying overloaded", "invalid_request_error", "", "Overloaded", Down);
        row("invalid_request_error saying the server is busy", "invalid_request_error", "", "The server is busy.", Down);
        row("invalid_request_error saying it timed out", "invalid_request_error", "", "Upstream request timed out", Down);
        row("INVALID_ARGUMENT read as a parameter, code 503", "INVALID_ARGUMENT", "503", "", Down, int(Param), int(Down));
        row("a parameter code whose message says unavailable", "", "InvalidParameter", "Service unavailable, retry", Down, none, int(Param));
        row("a rate limit typed as invalid_request_error", "invalid_request_error", "", "Rate limit reached for requests", Rate);
        row("ServerOverloaded, one word", "", "ServerOverloaded", "", Down);
        row("RequestTimeOut, camel case", "", "RequestTimeOut", "", Down);
        // Rate limits, by any field.
        row("rate_limit_exceeded", "requests", "rate_limit_exceeded", "", Rate);
        row("Throttling.RateQuota", "", "Throttling.RateQuota", "", Rate);
        row("RESOURCE_EXHAUSTED", "RESOURCE_EXHAUSTED", "429", "", Rate);
        row("a message: too many requests", "", "", "Too many requests, slow down", Rate);
        row("a message: QPS", "", "18", "Open api qps request limit reached", Rate);
        row("a message in Chinese: throttled", "", "", "请求过于频繁，请稍后再试", Rate);
        row("the dialect's own rate code", "", "336501", "", Rate, none, int(Rate));
        // The wallet is the key's, before "quota" reads as a rate limit.
        row("insufficient_quota", "insufficient_quota", "insufficient_quota", "You exceeded your current quota.", Auth);
        row("billing_error", "billing_error", "", "Your credit balance is too low.", Auth);
        row("Arrearage", "", "Arrearage", "", Auth);
        // The key.
        row("invalid_api_key", "invalid_request_error", "invalid_api_key", "Incorrect API key provided.", Auth);
        row("authentication_error", "authentication_error", "", "invalid x-api-key", Auth);
        row("a parameter type whose message names the API key", "invalid_request_error", "", "Invalid API key", Auth);
        row("the dialect's own auth code", "", "110", "Access token invalid", Auth, none, int(Auth));
        // The caller's, only when an identifier says so and nothing else points elsewhere.
        row("invalid_request_error alone", "invalid_request_error", "", "", Param);
        row("context_length_exceeded", "invalid_request_error", "context_length_exceeded",
            "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.", Param);
        row("model_not_found", "", "model_not_found", "The model does not exist", Param);
        row("content_filter", "", "content_filter", "", Param);
        row("INVALID_ARGUMENT, too many tokens", "INVALID_ARGUMENT", "400", "The input token count exceeds the maximum", Param, int(Param),
            int(Param));
        row("the dialect's own parameter code", "", "336007", "the max length of current question is 11200", Param, none, int(Param));
        // A message alone never blames the caller.
        row("a message saying invalid", "", "", "Invalid request: bad parameter", Down);
        row("a message saying not found", "", "", "model 'x' not found", Down);
        // Nothing recognised: the provider's.
        row("nothing at all", "", "", "", Down);
        row("an unknown code", "", "E4711", "Something went wrong", Down);
        row("the dialect says provider", "api_error", "", "Internal error", Down, int(Down));
        // Whole words: "generate" is not "rate", "observer" not "server".
        row("generate is not rate", "invalid_request_error", "", "Could not generate the schema", Param);
        row("moderate is not rate", "invalid_request_error", "", "moderate content", Param);
    }

    void judgement()
    {
        QFETCH(QString, type);
        QFETCH(QString, code);
        QFETCH(QString, message);
        QFETCH(int, typeKind);
        QFETCH(int, codeKind);
        QFETCH(OutcomeKind, expect);
        InBodyError error{type, code, message, std::nullopt, std::nullopt};
        if (typeKind >= 0)
            error.typeKind = static_cast<OutcomeKind>(typeKind);
        if (codeKind >= 0)
            error.codeKind = static_cast<OutcomeKind>(codeKind);
        QCOMPARE(toString(judgeInBodyError(error)), toString(expect));
    }
};

QTEST_APPLESS_MAIN(tst_InBodyError)
#include "tst_InBodyError.moc"
