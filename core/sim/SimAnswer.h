#pragma once

#include "sim/Scenario.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>

#include <vector>

namespace sb::sim {

struct SimRequest;

// One answer of a fake provider in the order it streams it: reasoning, then text, then a tool
// call whose JSON arguments go out a few characters an event. Most answers are text only.
struct SimAnswer {
    enum class Kind { Reasoning, Text, ToolArguments };
    struct Piece {
        Kind kind = Kind::Text;
        QByteArray bytes;
    };
    std::vector<Piece> pieces;
    QString toolName; // set when the answer ends with a call of this tool

    static SimAnswer ofText(const std::vector<QByteArray> &tokens);
    // What `spec` answers `request` with, `text` being its text (the passage's tokens, or the rest
    // of an answer it was asked to continue); `seed` varies the reasoning and the arguments.
    static SimAnswer compose(const ProviderSpec &spec, const SimRequest &request, std::vector<QByteArray> text, quint64 seed);

    bool callsTool() const { return !toolName.isEmpty(); }
    // Only text: the dialect's plain answer, byte for byte what it was before reasoning and tools.
    bool textOnly() const { return !callsTool() && !has(Kind::Reasoning); }
    bool has(Kind kind) const;
    QByteArray joined(Kind kind) const;
    int size() const { return static_cast<int>(pieces.size()); }
    // Where a fault breaks the stream, as the number of pieces sent before it: once `chars`
    // characters of text are out (the reasoning before them whole), or halfway through the pieces
    // of one kind (half the answer when it has none).
    int piecesCovering(int chars) const;
    int halfwayThrough(Kind kind) const;
    // Anthropic's content block a piece is in: one block per kind present, in streaming order.
    int blockOf(int piece) const;
};

// What a chat request offers and asks in its tools, in the OpenAI and Anthropic request shapes:
// the first tool's name, and whether its last turn carries a tool's result.
QString firstToolOf(const QJsonObject &body);
bool endsWithToolResult(const QJsonObject &body);

} // namespace sb::sim
