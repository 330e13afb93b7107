#pragma once

#include "providers/ProviderAdapter.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>

#include <optional>

namespace sb {

// The stream translation of the dialects whose every SSE event is one JSON object in their own
// format (dashscope, ernie, gemini), built into OpenAI chunks here: the assistant role on the first
// chunk, a chunk per event's delta, one finish chunk, then the usage chunk when the client asked for
// it. An event that is not JSON, or is an error, is that error; a stream that ends before a finish
// reason is cut. A dialect says only how to read its events.
class JsonEventStreamTranslator : public StreamTranslator {
public:
    StreamStep onEvent(const SseEvent &event) final;
    StreamStep onEnd() final;

protected:
    // `dialect` names the provider in error messages and gives the chunk id until the upstream
    // names one ("chatcmpl-<dialect in lower case>"); `endMarker` says what a complete stream ends
    // with, for the message of a cut one.
    JsonEventStreamTranslator(QString dialect, QString endMarker, QString model, bool includeUsage);

    // The event's object; an empty one is not an event of this dialect.
    virtual QJsonObject eventObject(const QJsonDocument &document) const;
    // The error the event carries, if it is one.
    virtual std::optional<Outcome> errorIn(const SseEvent &event, const QJsonObject &root) const = 0;
    // What the upstream calls the answer and when it made it, read until the first chunk is out
    // (so every chunk of a stream has the same id); empty / 0 keep what there is.
    virtual QString idIn(const QJsonObject &root) const = 0;
    virtual qint64 createdIn(const QJsonObject &root) const;
    // The usage the event carries; the latest one goes out with the finish.
    virtual std::optional<TokenUsage> usageIn(const QJsonObject &root) const = 0;
    // The event's OpenAI delta (content, reasoning_content, tool_calls); empty when it has none.
    // Called before finishReasonIn(), which may depend on what the deltas so far held.
    virtual QJsonObject deltaIn(const QJsonObject &root) = 0;
    // The OpenAI finish_reason the event ends the answer with; empty while the answer goes on.
    virtual QString finishReasonIn(const QJsonObject &root) const = 0;

private:
    QByteArray chunk(const QJsonObject &delta, const QJsonValue &finishReason);

    QString m_dialect;
    QString m_endMarker;
    QString m_model;
    bool m_includeUsage = false;
    QString m_id;
    bool m_sentRole = false;
    bool m_finished = false;
    std::optional<TokenUsage> m_usage;
};

} // namespace sb
