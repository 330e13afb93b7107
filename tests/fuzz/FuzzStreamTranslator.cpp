// Each dialect's StreamTranslator over a hostile SSE stream, cut anywhere. Input: one byte picks
// the dialect and the options, one byte the cuts, the rest is the stream. Every chunk sent to the
// client must be an OpenAI chunk object; nothing follows an error or the end.
#include "FuzzEntries.h"

#include "providers/ProviderRegistry.h"
#include "stream/SseParser.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace sb::fuzz {

int fuzzStreamTranslator(const std::uint8_t *data, std::size_t size)
{
    if (size < 2)
        return 0;
    const auto adapters = ProviderRegistry::all();
    const ProviderAdapter *adapter = adapters[data[0] % adapters.size()];
    const bool wantsUsage = (data[0] / adapters.size()) & 1;
    const bool withTools = (data[0] / adapters.size()) & 2;
    const QByteArrayView stream(reinterpret_cast<const char *>(data + 2), static_cast<qsizetype>(size - 2));

    QJsonObject request{{QStringLiteral("model"), QStringLiteral("client-model")},
                        {QStringLiteral("stream"), true},
                        {QStringLiteral("messages"),
                         QJsonArray{QJsonObject{{QStringLiteral("role"), QStringLiteral("user")},
                                                {QStringLiteral("content"), QStringLiteral("hi")}}}}};
    if (wantsUsage)
        request.insert(QStringLiteral("stream_options"), QJsonObject{{QStringLiteral("include_usage"), true}});
    if (withTools)
        request.insert(QStringLiteral("tools"),
                       QJsonArray{QJsonObject{{QStringLiteral("type"), QStringLiteral("function")},
                                              {QStringLiteral("function"),
                                               QJsonObject{{QStringLiteral("name"), QStringLiteral("get_weather")},
                                                           {QStringLiteral("parameters"), QJsonObject{}}}}}});
    std::unique_ptr<StreamTranslator> translator = adapter->streamTranslator(request);
    translator->setCreated(1700000000);

    bool ended = false;
    auto check = [&ended](const StreamStep &step) {
        for (const QByteArray &chunk : step.chunks) {
            QJsonParseError error;
            const QJsonDocument document = QJsonDocument::fromJson(chunk, &error);
            fuzzCheck(error.error == QJsonParseError::NoError && document.isObject(), "every chunk is a JSON object");
            fuzzCheck(!chunk.contains('\n'), "a chunk is one line (it goes out as one data: line)");
        }
        if (step.error)
            fuzzCheck(step.error->kind != OutcomeKind::Success, "an error step carries a failure");
        if (step.error || step.finished)
            ended = true;
    };

    SseParser parser;
    for (QByteArrayView piece : fuzzPieces(stream, data[1])) {
        for (const SseEvent &event : parser.feed(piece)) {
            check(translator->onEvent(event));
            if (ended)
                return 0; // the proxy stops reading here
        }
    }
    for (const SseEvent &event : parser.finish()) {
        check(translator->onEvent(event));
        if (ended)
            return 0;
    }
    const StreamStep end = translator->onEnd();
    check(end);
    fuzzCheck(end.finished || end.error.has_value(), "the end of a stream is either a clean finish or an error");
    return 0;
}

} // namespace sb::fuzz
