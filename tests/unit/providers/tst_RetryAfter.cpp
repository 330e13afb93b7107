// How long a provider asked us to wait, in every form the dialects use: the shared readers of
// durations and dates (providers/common/RetryAfter) and each dialect's ErrorMap putting its own
// form into Outcome::retryAfter, naming where it came from. A wait read wrong is a key parked too
// long (a route closed for nothing) or sent back too soon (one more 429).

#include "providers/anthropic/AnthropicErrorMap.h"
#include "providers/common/RetryAfter.h"
#include "providers/dashscope/DashScopeErrorMap.h"
#include "providers/ernie/ErnieErrorMap.h"
#include "providers/gemini/GeminiErrorMap.h"
#include "providers/openai_compat/OpenAiCompatErrorMap.h"

#include <QtTest>

#include <cstring>

using namespace sb;
using namespace std::chrono;
using std::optional;

namespace {

HttpHeaders headers(std::initializer_list<std::pair<const char *, const char *>> fields)
{
    HttpHeaders h;
    for (const auto &[name, value] : fields)
        h.add(name, value);
    return h;
}

optional<milliseconds> ms(qint64 n) { return milliseconds(n); }

QByteArray from(const Outcome &o) { return o.retryAfterFrom ? QByteArray(o.retryAfterFrom) : QByteArray("(none)"); }

const char *const kDate = "Wed, 02 Dec 2026 05:30:00 GMT";

} // namespace

class tst_RetryAfter : public QObject {
    Q_OBJECT

private slots:
    void retryAfterIsSecondsOrAnHttpDateAgainstTheResponsesDate()
    {
        const char *source = nullptr;
        QCOMPARE(retryAfterFromHeaders(headers({{"Retry-After", "14"}}), &source), ms(14000));
        QCOMPARE(QByteArray(source), QByteArray("Retry-After"));
        QCOMPARE(retryAfterFromHeaders(headers({{"retry-after", " 1.5 "}})), ms(1500));
        QCOMPARE(retryAfterFromHeaders(headers({{"retry-after", "Wed, 02 Dec 2026 05:30:14 GMT"}, {"date", kDate}})), ms(14000));
        // Without the server's Date a date cannot be measured: core reads no wall clock of its own.
        source = nullptr;
        QCOMPARE(retryAfterFromHeaders(headers({{"retry-after", "Wed, 02 Dec 2026 05:30:14 GMT"}}), &source), optional<milliseconds>());
        QVERIFY(source == nullptr);
        // A date already past is no wait; garbage is no hint; a silly value is clamped to an hour.
        QCOMPARE(retryAfterFromHeaders(headers({{"retry-after", "Wed, 02 Dec 2026 05:29:00 GMT"}, {"date", kDate}})), ms(0));
        QCOMPARE(retryAfterFromHeaders(headers({{"retry-after", "soon"}})), optional<milliseconds>());
        QCOMPARE(retryAfterFromHeaders(headers({{"retry-after", "86400"}})), optional<milliseconds>(hours(1)));
        QCOMPARE(retryAfterFromHeaders(headers({})), optional<milliseconds>());
    }

    void retryAfterMsIsPreferredForItsPrecision()
    {
        const char *source = nullptr;
        QCOMPARE(retryAfterFromHeaders(headers({{"retry-after", "2"}, {"retry-after-ms", "1234"}}), &source), ms(1234));
        QCOMPARE(QByteArray(source), QByteArray("retry-after-ms"));
    }

    void goDurationsAsOpenAiWritesThem_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<qint64>("millis"); // -1: not a duration
        QTest::newRow("1s") << QByteArray("1s") << qint64(1000);
        QTest::newRow("14s") << QByteArray("14s") << qint64(14000);
        QTest::newRow("6m0s") << QByteArray("6m0s") << qint64(360000);
        QTest::newRow("250ms") << QByteArray("250ms") << qint64(250);
        QTest::newRow("2m3.5s") << QByteArray("2m3.5s") << qint64(123500);
        QTest::newRow("past an hour is an hour") << QByteArray("1h2m3.5s") << qint64(3600000);
        QTest::newRow("17.28s") << QByteArray("17.28s") << qint64(17280);
        QTest::newRow("microseconds round up") << QByteArray("1500us") << qint64(2);
        QTest::newRow("no unit") << QByteArray("14") << qint64(-1);
        QTest::newRow("unknown unit") << QByteArray("3d") << qint64(-1);
        QTest::newRow("empty") << QByteArray("") << qint64(-1);
        QTest::newRow("words") << QByteArray("soon") << qint64(-1);
    }

    void goDurationsAsOpenAiWritesThem()
    {
        QFETCH(QByteArray, text);
        QFETCH(qint64, millis);
        QCOMPARE(parseGoDuration(text), millis < 0 ? optional<milliseconds>() : ms(millis));
    }

    void rfc3339InstantsAreMeasuredAgainstTheDateHeader_data()
    {
        QTest::addColumn<QByteArray>("instant");
        QTest::addColumn<qint64>("millis"); // -1: no wait can be read
        QTest::newRow("UTC") << QByteArray("2026-12-02T05:30:14Z") << qint64(14000);
        QTest::newRow("fraction") << QByteArray("2026-12-02T05:30:00.250Z") << qint64(250);
        QTest::newRow("offset") << QByteArray("2026-12-02T06:31:00+01:00") << qint64(60000);
        QTest::newRow("already past") << QByteArray("2026-12-02T05:29:59Z") << qint64(0);
        QTest::newRow("not a time") << QByteArray("tomorrow") << qint64(-1);
    }

    void rfc3339InstantsAreMeasuredAgainstTheDateHeader()
    {
        QFETCH(QByteArray, instant);
        QFETCH(qint64, millis);
        QCOMPARE(waitUntilInstant(instant, headers({{"date", kDate}})), millis < 0 ? optional<milliseconds>() : ms(millis));
        QCOMPARE(waitUntilInstant(instant, headers({})), optional<milliseconds>()); // no Date, no measure
    }

    void openAiTakesTheResetOfTheLimitAtZero()
    {
        const QByteArray body = R"({"error":{"message":"Rate limit reached for requests","type":"requests","code":"rate_limit_exceeded"}})";
        const Outcome o = OpenAiCompatErrorMap::classify(429,
                                                         headers({{"x-ratelimit-remaining-requests", "0"},
                                                                  {"x-ratelimit-reset-requests", "6m0s"},
                                                                  {"x-ratelimit-remaining-tokens", "149000"},
                                                                  {"x-ratelimit-reset-tokens", "250ms"}}),
                                                         body);
        QCOMPARE(o.kind, OutcomeKind::RetryableRateLimit);
        QCOMPARE(o.retryAfter, ms(360000));
        QCOMPARE(from(o), QByteArray("x-ratelimit-reset-requests"));
        // Retry-After, when sent, is the provider's plainest word and wins.
        const Outcome both = OpenAiCompatErrorMap::classify(
            429, headers({{"retry-after", "3"}, {"x-ratelimit-remaining-tokens", "0"}, {"x-ratelimit-reset-tokens", "20s"}}), body);
        QCOMPARE(both.retryAfter, ms(3000));
        QCOMPARE(from(both), QByteArray("Retry-After"));
        const Outcome tokens = OpenAiCompatErrorMap::classify(
            429, headers({{"x-ratelimit-remaining-tokens", "0"}, {"x-ratelimit-reset-tokens", "250ms"}}), body);
        QCOMPARE(tokens.retryAfter, ms(250));
        QCOMPARE(from(tokens), QByteArray("x-ratelimit-reset-tokens"));
        // A plain 429 says nothing: the key ring's default applies.
        QCOMPARE(OpenAiCompatErrorMap::classify(429, headers({}), body).retryAfter, optional<milliseconds>());
    }

    void anthropicTakesTheResetInstantOfTheLimitAtZero()
    {
        const QByteArray body = R"({"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}})";
        const Outcome o = AnthropicErrorMap::classify(429,
                                                      headers({{"date", kDate},
                                                               {"anthropic-ratelimit-requests-remaining", "12"},
                                                               {"anthropic-ratelimit-requests-reset", "2026-12-02T05:30:01Z"},
                                                               {"anthropic-ratelimit-input-tokens-remaining", "0"},
                                                               {"anthropic-ratelimit-input-tokens-reset", "2026-12-02T05:30:14Z"}}),
                                                      body);
        QCOMPARE(o.kind, OutcomeKind::RetryableRateLimit);
        QCOMPARE(o.retryAfter, ms(14000));
        QCOMPARE(from(o), QByteArray("anthropic-ratelimit-input-tokens-reset"));
        const Outcome withRetryAfter = AnthropicErrorMap::classify(
            429, headers({{"retry-after", "7"}, {"date", kDate}, {"anthropic-ratelimit-requests-remaining", "0"},
                          {"anthropic-ratelimit-requests-reset", "2026-12-02T05:30:14Z"}}),
            body);
        QCOMPARE(withRetryAfter.retryAfter, ms(7000));
        QCOMPARE(from(withRetryAfter), QByteArray("Retry-After"));
        // No limit at 0: the resets say when a full bucket is back, not when a request fits.
        QCOMPARE(AnthropicErrorMap::classify(429, headers({{"date", kDate}, {"anthropic-ratelimit-requests-remaining", "3"},
                                                           {"anthropic-ratelimit-requests-reset", "2026-12-02T05:31:00Z"}}),
                                             body)
                     .retryAfter,
                 optional<milliseconds>());
    }

    void geminiTakesTheRetryInfoDetailsRetryDelay()
    {
        const QByteArray body = R"({"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED",)"
                                R"("details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[]},)"
                                R"({"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"14s"}]}})";
        const Outcome o = GeminiErrorMap::classify(429, headers({}), body);
        QCOMPARE(o.kind, OutcomeKind::RetryableRateLimit);
        QCOMPARE(o.retryAfter, ms(14000));
        QCOMPARE(from(o), QByteArray("retryDelay"));
        QCOMPARE(GeminiErrorMap::parseDuration(QStringLiteral("0.250s")), ms(250));
        QCOMPARE(GeminiErrorMap::parseDuration(QStringLiteral("250ms")), optional<milliseconds>()); // not a protobuf Duration
        // The body's word is more precise than a header's.
        QCOMPARE(GeminiErrorMap::classify(429, headers({{"retry-after", "60"}}), body).retryAfter, ms(14000));
    }

    void dashScopeAndErnieTakeRetryAfter()
    {
        const Outcome dashscope = DashScopeErrorMap::classify(
            429, headers({{"retry-after", "14"}}),
            R"({"code":"Throttling.RateQuota","message":"Requests rate limit exceeded, please try again later.","request_id":"r1"})");
        QCOMPARE(dashscope.kind, OutcomeKind::RetryableRateLimit);
        QCOMPARE(dashscope.retryAfter, ms(14000));
        QCOMPARE(from(dashscope), QByteArray("Retry-After"));
        const Outcome ernie = ErnieErrorMap::classify(429, headers({{"retry-after", "14"}}),
                                                      R"({"error_code":336501,"error_msg":"Rate limit reached for RPM"})");
        QCOMPARE(ernie.kind, OutcomeKind::RetryableRateLimit);
        QCOMPARE(ernie.retryAfter, ms(14000));
        QCOMPARE(from(ernie), QByteArray("Retry-After"));
        // ERNIE's QPS limit inside a 200 has no hint: the default applies.
        const Outcome inBody = ErnieErrorMap::classify(200, headers({}), R"({"error_code":18,"error_msg":"Open api qps request limit reached"})");
        QCOMPARE(inBody.kind, OutcomeKind::RetryableRateLimit);
        QCOMPARE(inBody.retryAfter, optional<milliseconds>());
    }
};

QTEST_GUILESS_MAIN(tst_RetryAfter)
#include "tst_RetryAfter.moc"
