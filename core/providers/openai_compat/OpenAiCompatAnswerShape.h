#pragma once

#include <QByteArrayView>
#include <QJsonObject>
#include <QString>

#include <optional>

namespace sb {

class JsonObjectScan;

// What makes a 2xx body an OpenAI answer rather than an empty success (ARCHITECTURE.md, "Errors and
// outcomes"). A chat completion has a non-empty "choices" list, each choice a "message", and each
// choice carries something: content, tool calls, a refusal or reasoning, or at least a finish
// reason (a length stop or a tool call may legitimately come with no text). An embeddings list has
// a non-empty "data" list.
class OpenAiCompatAnswerShape {
public:
    // The proxy's hot path: true when the bytes `scan` accepted are certainly such an answer, found
    // by looking at a few members without building any value. False only says "look closer":
    // problem() on the parsed object decides.
    static bool isWellFormed(QByteArrayView body, const JsonObjectScan &scan, bool embeddings);
    // What the parsed answer lacks, as a phrase for the attempt's message; std::nullopt when it is
    // an answer.
    static std::optional<QString> problem(const QJsonObject &answer, bool embeddings);
};

} // namespace sb
