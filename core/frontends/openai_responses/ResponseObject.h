#pragma once

#include "frontends/ApiError.h"
#include "frontends/openai_responses/ResponseFrame.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QLatin1String>
#include <QSet>
#include <QString>

namespace sb {

// How a response written by ResponseObject::write() stands: its status and, as JSON text, the
// members that go with it. The defaults are a response just started.
struct ResponseEnding {
    QByteArrayView status = "in_progress"; // or completed, incomplete, failed
    QByteArray error = "null";             // {"code":…,"message":…} when failed
    QByteArray incompleteDetails = "null"; // {"reason":…} when incomplete
    QByteArray output = "[]";
    QByteArray usage = "null";

    // A response that finished: completed, or incomplete with incomplete_details {"reason": …} when
    // `incompleteReason` (ResponseObject::incompleteReason) is not empty.
    static ResponseEnding finished(const QString &incompleteReason);
};

// The JSON objects of OpenAI's Responses API that both the whole answer (ResponsesAnswer) and the
// stream (ResponsesStreamWriter) write: the response object around the output, the output items
// and their ids. One place for them, so that a response reads the same whichever way it went out
// (and the stored one, which previous_response_id and GET /v1/responses/{id} return, too).
struct ResponseObject {
    // "<prefix>_<the response id without resp_>_<output index>": unique across responses (the
    // response id is), deterministic, and the same in every event of one item.
    static QString itemId(const ResponseFrame &frame, QLatin1String prefix, int outputIndex);
    // The call_id a client answers a tool call with: the upstream's tool call id, "call_<…>_<n>"
    // when it gave none. An id already used in this response gets the output index appended: the
    // SDK refuses two items with one call_id, and a client could not tell their outputs apart.
    static QString callId(const ResponseFrame &frame, const QString &upstreamId, int outputIndex, QSet<QString> *used);

    // The response object as it starts: status in_progress, no output, usage null; the frame's id,
    // model and created_at, and the request's parameters (frame.echo) over the defaults OpenAI
    // documents for a request without them. No output_text: the reference calls it an SDK-only
    // convenience, which the SDKs compute from the output.
    static QJsonObject response(const ResponseFrame &frame);
    // The same object as compact JSON, written straight into bytes in the reference's member order
    // (a whole answer's hot path: building it as a QJsonObject and serialising that was a fifth of
    // what a Responses request cost), with `ending`'s status, output and usage.
    static QByteArray write(const ResponseFrame &frame, const ResponseEnding &ending);
    // finish_reason → incomplete_details.reason: length → max_output_tokens, content_filter →
    // content_filter; an empty string for a finished answer (the response is completed).
    static QString incompleteReason(const QString &finishReason);
    // A started response() as it ends: status completed, or incomplete with incomplete_details,
    // its output, and its usage (null when the upstream reported none).
    static void conclude(QJsonObject *response, const QString &incompleteReason, const QJsonArray &output, const QJsonValue &usage);
    // A started response() as it fails: status failed and error {code, message}. The code is the
    // error's own, or by status what OpenAI names such a failure (rate_limit_exceeded for a 429,
    // server_error otherwise), since the reference requires one.
    static void fail(QJsonObject *response, const ApiError &error, const QJsonArray &output);

    static QJsonObject outputText(const QString &text);
    static QJsonObject refusal(const QString &text);
    static QJsonObject summaryText(const QString &text);
    static QJsonObject message(const QString &id, const QString &status, const QJsonArray &content);
    static QJsonObject reasoning(const QString &id, const QString &status, const QJsonArray &summary);
    static QJsonObject functionCall(const QString &id, const QString &status, const QString &callId, const QString &name,
                                    const QString &arguments);
    static QJsonObject customToolCall(const QString &id, const QString &status, const QString &callId, const QString &name,
                                      const QString &input);
    // A custom tool's input from the arguments of the function call the upstream made: the string
    // member "input" of {"input": "..."}. Arguments of any other shape come back as they are: an
    // upstream that wrote the input bare, or broke the JSON, still gets its text to the tool.
    static QString customToolInput(const QString &arguments);
};

} // namespace sb
