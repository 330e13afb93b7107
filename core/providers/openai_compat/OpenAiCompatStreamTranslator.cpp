#include "providers/openai_compat/OpenAiCompatStreamTranslator.h"

#include "providers/common/ProviderText.h"
#include "providers/common/UpstreamOutcome.h"
#include "providers/openai_compat/OpenAiCompatErrorMap.h"

#include <QJsonArray>

namespace sb {

OpenAiCompatStreamTranslator::OpenAiCompatStreamTranslator(QString clientModel, bool clientWantsUsage)
    : m_clientModel(std::move(clientModel))
    , m_clientWantsUsage(clientWantsUsage)
{
}

bool OpenAiCompatStreamTranslator::deltaCarriesSomething(const QJsonObject &delta)
{
    for (const char *key : {"content", "refusal", "reasoning_content"}) {
        const QJsonValue value = delta.value(QLatin1String(key));
        if (value.isString() && !value.toString().isEmpty())
            return true;
    }
    return !delta.value(QLatin1String("tool_calls")).toArray().isEmpty() || delta.value(QLatin1String("function_call")).isObject()
           || delta.value(QLatin1String("audio")).isObject();
}

Outcome OpenAiCompatStreamTranslator::emptyStream()
{
    Outcome error = brokenStreamOutcome(
        QStringLiteral("The provider's stream ended with neither content nor a finish reason: an empty answer is not an answer."));
    error.providerCode = QStringLiteral("empty_stream");
    return error;
}

StreamStep OpenAiCompatStreamTranslator::onEvent(const SseEvent &event)
{
    StreamStep step;
    if (m_done || m_failed)
        return step;
    const QByteArray data = event.data.trimmed();
    if (data == "[DONE]") {
        if (!m_sawContent && !m_sawFinish) {
            m_failed = true;
            step.error = emptyStream();
            return step;
        }
        m_done = true;
        step.finished = true;
        return step;
    }
    if (data.isEmpty())
        return step; // an empty keep-alive event

    QJsonObject chunk;
    if (!parseJsonObject(sanitizeUtf8(data), &chunk)) {
        m_failed = true;
        Outcome error;
        error.kind = OutcomeKind::ProviderDown;
        error.httpStatus = 200;
        error.providerCode = QStringLiteral("malformed_event");
        error.message = QStringLiteral("The provider sent a stream event that is not JSON.");
        step.error = error;
        return step;
    }
    if (auto error = OpenAiCompatErrorMap::errorInObject(chunk, 200, HttpHeaders())) {
        m_failed = true;
        step.error = *error;
        return step;
    }
    if (event.event == "error") {
        // Some servers name the event instead of wrapping the payload: {"message": "..."}.
        m_failed = true;
        Outcome error;
        error.kind = OutcomeKind::ProviderDown;
        error.httpStatus = 200;
        error.providerCode = QStringLiteral("error_event");
        error.message = cleanProviderMessage(chunk.value(QLatin1String("message")).toString(QString::fromUtf8(data.left(300))));
        step.error = error;
        return step;
    }

    const QJsonValue usage = chunk.value(QLatin1String("usage"));
    if (usage.isObject())
        step.usage = usageFromOpenAi(usage.toObject());
    const QJsonArray choices = chunk.value(QLatin1String("choices")).toArray();
    bool carries = false;
    for (const QJsonValue &value : choices) {
        const QJsonObject choice = value.toObject();
        const QJsonValue reason = choice.value(QLatin1String("finish_reason"));
        if (reason.isString() && !reason.toString().isEmpty())
            m_sawFinish = carries = true;
        if (deltaCarriesSomething(choice.value(QLatin1String("delta")).toObject()))
            m_sawContent = carries = true;
    }
    step.preamble = !carries;
    if (!m_clientWantsUsage) {
        if (choices.isEmpty() && chunk.contains(QLatin1String("usage")))
            return step; // the usage-only chunk we asked for ourselves
        chunk.remove(QLatin1String("usage"));
    }
    if (!m_clientModel.isEmpty())
        chunk.insert(QLatin1String("model"), m_clientModel);
    step.chunks.push_back(compactJson(chunk));
    return step;
}

StreamStep OpenAiCompatStreamTranslator::onEnd()
{
    StreamStep step;
    if (m_failed)
        return step;
    // Some local servers close after the finish_reason chunk without "[DONE]"; the answer is whole.
    if (m_done || m_sawFinish) {
        m_done = true;
        step.finished = true;
        return step;
    }
    if (!m_sawContent) {
        step.error = emptyStream();
        return step;
    }
    Outcome error;
    error.kind = OutcomeKind::ProviderDown;
    error.httpStatus = 200;
    error.providerCode = QStringLiteral("stream_cut");
    error.message = QStringLiteral("The provider's stream ended before the answer was complete (no [DONE]).");
    step.error = error;
    return step;
}

} // namespace sb
