// Each dialect's ErrorMap and response readers over hostile answers. Input: one byte picks the
// dialect, two bytes the HTTP status, then header lines up to a blank line, then the body.
#include "FuzzEntries.h"

#include "providers/ProviderRegistry.h"

#include <QJsonDocument>

namespace sb::fuzz {

int fuzzErrorMap(const std::uint8_t *data, std::size_t size)
{
    if (size < 3)
        return 0;
    const auto adapters = ProviderRegistry::all();
    const ProviderAdapter *adapter = adapters[data[0] % adapters.size()];
    const int status = 100 + ((data[1] << 8) | data[2]) % 500;
    const QByteArray rest(reinterpret_cast<const char *>(data + 3), static_cast<qsizetype>(size - 3));

    HttpHeaders headers;
    QByteArray body = rest;
    const qsizetype blank = rest.indexOf("\n\n");
    if (blank >= 0) {
        for (const QByteArray &line : rest.left(blank).split('\n')) {
            const qsizetype colon = line.indexOf(':');
            if (colon > 0)
                headers.add(line.left(colon).trimmed(), line.mid(colon + 1).trimmed());
        }
        body = rest.mid(blank + 2);
    }

    const Outcome outcome = adapter->classify(status, headers, body);
    fuzzCheck(static_cast<int>(outcome.kind) < OutcomeKindCount, "the outcome is a known kind");
    if (status >= 400)
        fuzzCheck(outcome.kind != OutcomeKind::Success, "an HTTP error is never a success");
    if (outcome.retryAfter)
        fuzzCheck(outcome.retryAfter->count() >= 0, "Retry-After is never negative");

    TokenUsage usage;
    const QJsonObject chat = adapter->chatResponse(body, &usage);
    fuzzCheck(QJsonDocument::fromJson(QJsonDocument(chat).toJson(QJsonDocument::Compact)).isObject(),
              "a chat response serialises to a JSON object");

    // What the proxy calls: it must judge as classify() does, but for a success that is no answer
    // (answerProblem(): PROVIDER_DOWN, never an empty success), and for a success write what
    // chatResponse() gives (OpenAI-compatible answers pass through unparsed: JsonObjectScan vs Qt).
    OpenAiAnswer answer;
    TokenUsage answerUsage;
    const Outcome judged = adapter->classifyAnswer(status, headers, body, false, &answer, &answerUsage);
    const bool noAnswer = outcome.isSuccess() && adapter->answerProblem(headers, body, false).has_value();
    fuzzCheck(judged.kind == (noAnswer ? OutcomeKind::ProviderDown : outcome.kind), "classifyAnswer judges as classify does");
    if (judged.isSuccess()) {
        fuzzCheck(!answer.isEmpty(), "a success carries an answer");
        QJsonObject expected = chat;
        expected.insert(QStringLiteral("model"), QStringLiteral("client-model"));
        if (expected.value(QStringLiteral("created")).toInteger() <= 0)
            expected.insert(QStringLiteral("created"), 1234);
        const QJsonDocument written = QJsonDocument::fromJson(answer.toJson(QStringLiteral("client-model"), 1234));
        fuzzCheck(written.isObject() && written.object() == expected, "the answer written is the answer read");
        fuzzCheck(answerUsage.promptTokens == usage.promptTokens && answerUsage.completionTokens == usage.completionTokens
                      && answerUsage.totalTokens == usage.totalTokens,
                  "classifyAnswer reads the usage chatResponse reads");
    }
    const QJsonObject embeddings = adapter->embeddingsResponse(body, &usage);
    fuzzCheck(QJsonDocument::fromJson(QJsonDocument(embeddings).toJson(QJsonDocument::Compact)).isObject(),
              "an embeddings response serialises to a JSON object");
    return 0;
}

} // namespace sb::fuzz
