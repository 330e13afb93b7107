#include "sim/SimAnswer.h"

#include "sim/DialectWire.h"
#include "sim/SimText.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>

namespace sb::sim {

namespace {

// Arguments go out this many characters an event, so a cut can fall inside the call's JSON.
constexpr int kArgumentCharsPerPiece = 6;

// Seeds of the reasoning and the arguments, away from the text's so they read differently.
constexpr quint64 kReasoningSeedOffset = 1013;
constexpr quint64 kArgumentsSeedOffset = 2029;
constexpr int kArgumentTokens = 5;

bool dialectReasonsAndCalls(const ProviderSpec &spec)
{
    return spec.dialect == QLatin1String("openai_compat") || spec.dialect == QLatin1String("anthropic");
}

std::vector<QByteArray> argumentPieces(const QByteArray &json)
{
    std::vector<QByteArray> out;
    const QString text = QString::fromUtf8(json);
    for (qsizetype at = 0; at < text.size();) {
        qsizetype n = std::min<qsizetype>(kArgumentCharsPerPiece, text.size() - at);
        if (at + n < text.size() && text.at(at + n - 1).isHighSurrogate())
            ++n; // a character is never split between two events
        out.push_back(text.mid(at, n).toUtf8());
        at += n;
    }
    return out;
}

} // namespace

SimAnswer SimAnswer::ofText(const std::vector<QByteArray> &tokens)
{
    SimAnswer answer;
    answer.pieces.reserve(tokens.size());
    for (const QByteArray &token : tokens)
        answer.pieces.push_back(Piece{Kind::Text, token});
    return answer;
}

SimAnswer SimAnswer::compose(const ProviderSpec &spec, const SimRequest &request, std::vector<QByteArray> text, quint64 seed)
{
    if (request.responses || !dialectReasonsAndCalls(spec))
        return ofText(text);
    SimAnswer answer;
    for (QByteArray &token : SimText::tokens(spec.language, spec.reasoningTokens, seed + kReasoningSeedOffset))
        answer.pieces.push_back(Piece{Kind::Reasoning, std::move(token)});
    for (QByteArray &token : text)
        answer.pieces.push_back(Piece{Kind::Text, std::move(token)});
    if (spec.toolCalls && !request.tool.isEmpty() && !request.toolResult) {
        answer.toolName = request.tool;
        const QByteArray query = SimText::join(SimText::tokens(spec.language, kArgumentTokens, seed + kArgumentsSeedOffset));
        const QByteArray arguments =
            QJsonDocument(QJsonObject{{QStringLiteral("query"), QString::fromUtf8(query).trimmed()}, {QStringLiteral("limit"), 3}})
                .toJson(QJsonDocument::Compact);
        for (QByteArray &piece : argumentPieces(arguments))
            answer.pieces.push_back(Piece{Kind::ToolArguments, std::move(piece)});
    }
    return answer;
}

bool SimAnswer::has(Kind kind) const
{
    return std::any_of(pieces.begin(), pieces.end(), [kind](const Piece &p) { return p.kind == kind; });
}

QByteArray SimAnswer::joined(Kind kind) const
{
    QByteArray out;
    for (const Piece &piece : pieces)
        if (piece.kind == kind)
            out += piece.bytes;
    return out;
}

int SimAnswer::piecesCovering(int chars) const
{
    int count = 0, sent = 0;
    for (const Piece &piece : pieces) {
        if (sent >= chars && piece.kind != Kind::Reasoning)
            break;
        if (piece.kind == Kind::Text)
            for (char byte : piece.bytes)
                sent += (static_cast<unsigned char>(byte) & 0xC0) != 0x80;
        ++count;
    }
    return count;
}

int SimAnswer::halfwayThrough(Kind kind) const
{
    const auto first = std::find_if(pieces.begin(), pieces.end(), [kind](const Piece &p) { return p.kind == kind; });
    if (first == pieces.end())
        return std::max(1, size() / 2);
    const auto end = std::find_if(first, pieces.end(), [kind](const Piece &p) { return p.kind != kind; });
    return static_cast<int>(first - pieces.begin()) + std::max<int>(1, static_cast<int>(end - first) / 2);
}

int SimAnswer::blockOf(int piece) const
{
    int block = 0;
    for (int i = 1; i <= piece && i < size(); ++i)
        block += pieces[static_cast<std::size_t>(i)].kind != pieces[static_cast<std::size_t>(i - 1)].kind;
    return block;
}

QString firstToolOf(const QJsonObject &body)
{
    const QJsonObject tool = body.value(QLatin1String("tools")).toArray().at(0).toObject();
    if (tool.contains(QLatin1String("function")))
        return tool.value(QLatin1String("function")).toObject().value(QLatin1String("name")).toString();
    return tool.value(QLatin1String("name")).toString();
}

bool endsWithToolResult(const QJsonObject &body)
{
    const QJsonArray messages = body.value(QLatin1String("messages")).toArray();
    if (messages.isEmpty())
        return false;
    const QJsonObject last = messages.at(messages.size() - 1).toObject();
    if (last.value(QLatin1String("role")).toString() == QLatin1String("tool"))
        return true;
    const QJsonArray blocks = last.value(QLatin1String("content")).toArray();
    return std::any_of(blocks.begin(), blocks.end(), [](const QJsonValue &block) {
        return block.toObject().value(QLatin1String("type")).toString() == QLatin1String("tool_result");
    });
}

} // namespace sb::sim
