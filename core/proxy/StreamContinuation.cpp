#include "proxy/StreamContinuation.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>

namespace sb {

namespace {

// How far back in what was sent a repeat is looked for, and how much of a continuation's opening
// is held at most while it still could be one.
constexpr qsizetype kOverlapWindow = 4096;
constexpr qsizetype kMaxHeldOpening = 16384;

QJsonObject parse(const QByteArray &chunk)
{
    return QJsonDocument::fromJson(chunk).object();
}

QByteArray serialise(const QJsonObject &chunk)
{
    return QJsonDocument(chunk).toJson(QJsonDocument::Compact);
}

QJsonObject firstChoice(const QJsonObject &chunk)
{
    return chunk.value(QLatin1String("choices")).toArray().at(0).toObject();
}

QJsonObject deltaOf(const QJsonObject &chunk)
{
    return firstChoice(chunk).value(QLatin1String("delta")).toObject();
}

void setDelta(QJsonObject *chunk, const QJsonObject &delta)
{
    QJsonArray choices = chunk->value(QLatin1String("choices")).toArray();
    if (choices.isEmpty())
        return;
    QJsonObject choice = choices.first().toObject();
    choice.insert(QLatin1String("delta"), delta);
    choices.replace(0, choice);
    chunk->insert(QLatin1String("choices"), choices);
}

bool hasReasoning(const QJsonObject &delta)
{
    for (const char *key : {"reasoning_content", "reasoning"})
        if (!delta.value(QLatin1String(key)).toString().isEmpty())
            return true;
    return false;
}

// Nothing the client needs: no text, no call, no finish reason, no usage.
bool carriesNothing(const QJsonObject &chunk)
{
    const QJsonObject choice = firstChoice(chunk);
    const QJsonValue finish = choice.value(QLatin1String("finish_reason"));
    const QJsonValue usage = chunk.value(QLatin1String("usage"));
    return choice.value(QLatin1String("delta")).toObject().isEmpty() && (finish.isNull() || finish.isUndefined())
        && (usage.isNull() || usage.isUndefined());
}

bool endsTheText(const QJsonObject &chunk)
{
    const QJsonObject choice = firstChoice(chunk);
    const QJsonValue finish = choice.value(QLatin1String("finish_reason"));
    return (!finish.isNull() && !finish.isUndefined()) || choice.value(QLatin1String("delta")).toObject().contains(QLatin1String("tool_calls"));
}

int sumOf(int a, int b)
{
    return a < 0 && b < 0 ? -1 : std::max(a, 0) + std::max(b, 0);
}

TokenUsage sumOf(const TokenUsage &a, const TokenUsage &b)
{
    TokenUsage sum;
    sum.promptTokens = sumOf(a.promptTokens, b.promptTokens);
    sum.completionTokens = sumOf(a.completionTokens, b.completionTokens);
    sum.totalTokens = sumOf(a.totalTokens, b.totalTokens);
    sum.cacheReadTokens = sumOf(a.cacheReadTokens, b.cacheReadTokens);
    sum.cacheWriteTokens = sumOf(a.cacheWriteTokens, b.cacheWriteTokens);
    return sum;
}

QString trailingSpace(const QString &text)
{
    qsizetype end = text.size();
    while (end > 0 && text.at(end - 1).isSpace())
        --end;
    return text.mid(end);
}

} // namespace

void StreamContinuation::sent(const std::vector<QByteArray> &chunks)
{
    for (const QByteArray &bytes : chunks) {
        const QJsonObject chunk = parse(bytes);
        if (!m_haveIdentity && chunk.contains(QLatin1String("id"))) {
            m_haveIdentity = true;
            m_id = chunk.value(QLatin1String("id"));
            m_created = chunk.value(QLatin1String("created"));
            m_model = chunk.value(QLatin1String("model"));
        }
        const QJsonObject delta = deltaOf(chunk);
        m_text += delta.value(QLatin1String("content")).toString();
        if (!delta.value(QLatin1String("tool_calls")).toArray().isEmpty())
            m_toolCall = true;
        if (hasReasoning(delta))
            m_reasoning = true;
    }
}

bool StreamContinuation::isToolCall(const QByteArray &chunk)
{
    return chunk.contains("\"tool_calls\"") && !deltaOf(parse(chunk)).value(QLatin1String("tool_calls")).toArray().isEmpty();
}

std::vector<QByteArray> StreamContinuation::holdToolCalls(std::vector<QByteArray> chunks, bool finished)
{
    if (m_heldCall.empty()) {
        const auto call = std::find_if(chunks.begin(), chunks.end(), &StreamContinuation::isToolCall);
        std::move(call, chunks.end(), std::back_inserter(m_heldCall));
        chunks.erase(call, chunks.end());
    } else {
        std::move(chunks.begin(), chunks.end(), std::back_inserter(m_heldCall));
        chunks.clear();
    }
    if (finished) {
        std::move(m_heldCall.begin(), m_heldCall.end(), std::back_inserter(chunks));
        m_heldCall.clear();
    }
    return chunks;
}

QString StreamContinuation::refusal() const
{
    if (m_toolCall)
        return QStringLiteral("a tool call had begun to reach the client, and a call cannot be spliced");
    return QString();
}

QJsonObject StreamContinuation::request(const QJsonObject &original, bool prefill)
{
    m_prefilled = prefill && !m_text.trimmed().isEmpty();
    if (m_text.trimmed().isEmpty())
        return original; // nothing to continue from: the answer is asked for again
    QJsonObject body = original;
    QJsonArray messages = body.value(QLatin1String("messages")).toArray();
    const QString partial = prefill ? m_text.left(m_text.size() - trailingSpace(m_text).size()) : m_text;
    messages.append(QJsonObject{{QStringLiteral("role"), QStringLiteral("assistant")}, {QStringLiteral("content"), partial}});
    if (!prefill)
        messages.append(QJsonObject{{QStringLiteral("role"), QStringLiteral("user")},
                                    {QStringLiteral("content"), QString::fromLatin1(kInstruction)}});
    body.insert(QStringLiteral("messages"), messages);
    return body;
}

void StreamContinuation::beginSplice(const TokenUsage &failed, int promptTokens)
{
    TokenUsage used = failed;
    if (!used.isKnown()) {
        used.promptTokens = std::max(promptTokens, 0);
        used.completionTokens = int((m_text.size() - m_textAtSplice.size() + 3) / 4);
        used.totalTokens = used.promptTokens + used.completionTokens;
    }
    m_earlier = sumOf(m_earlier, used);
    m_splicing = true;
    ++m_splices;
    m_textAtSplice = m_text;
    m_prefilled = false;
    m_openingDone = m_text.isEmpty();
    m_opening.clear();
    m_held.clear();
}

std::optional<int> StreamContinuation::overlap(const QString &sent, const QString &opening, bool final)
{
    const qsizetype n = sent.size();
    if (n == 0)
        return 0;
    const QStringView all(sent);
    int best = 0;
    bool undecided = false;
    const auto check = [&](qsizetype p) {
        const qsizetype length = n - p;
        if (length < kMinOverlap && p != 0)
            return;
        if (opening.size() >= length) {
            if (QStringView(opening).startsWith(all.mid(p)))
                best = std::max(best, int(length));
        } else if (all.mid(p).startsWith(opening)) {
            // All of it so far repeats what was sent; at the end, it was a repeat.
            if (final)
                best = std::max(best, int(opening.size()));
            else
                undecided = true;
        }
    };
    const qsizetype from = std::max<qsizetype>(0, n - kOverlapWindow);
    for (qsizetype p = from; p < n; ++p)
        check(p);
    if (from > 0)
        check(0); // the continuation started the whole answer over
    if (undecided && !final && opening.size() < kMaxHeldOpening)
        return std::nullopt;
    return best;
}

std::vector<QByteArray> StreamContinuation::splice(const std::vector<QByteArray> &chunks, bool finished)
{
    std::vector<QByteArray> out;
    for (const QByteArray &bytes : chunks) {
        QJsonObject chunk = parse(bytes);
        if (chunk.isEmpty())
            continue;
        if (m_haveIdentity) { // one stream: the first attempt's id, time and model throughout
            chunk.insert(QLatin1String("id"), m_id);
            chunk.insert(QLatin1String("created"), m_created);
            chunk.insert(QLatin1String("model"), m_model);
        }
        QJsonObject delta = deltaOf(chunk);
        delta.remove(QLatin1String("role"));
        delta.remove(QLatin1String("reasoning_content")); // the client's reasoning is not shown twice
        delta.remove(QLatin1String("reasoning"));
        setDelta(&chunk, delta);
        if (const QJsonObject usage = chunk.value(QLatin1String("usage")).toObject(); !usage.isEmpty()) {
            QJsonObject summed = usage;
            const TokenUsage total = summedUsage(TokenUsage{usage.value(QLatin1String("prompt_tokens")).toInt(-1),
                                                            usage.value(QLatin1String("completion_tokens")).toInt(-1),
                                                            usage.value(QLatin1String("total_tokens")).toInt(-1), -1, -1});
            summed.insert(QLatin1String("prompt_tokens"), total.promptTokens);
            summed.insert(QLatin1String("completion_tokens"), total.completionTokens);
            summed.insert(QLatin1String("total_tokens"), total.totalTokens);
            chunk.insert(QLatin1String("usage"), summed);
        }
        if (m_openingDone) {
            if (!carriesNothing(chunk))
                out.push_back(serialise(chunk));
            continue;
        }
        m_opening += delta.value(QLatin1String("content")).toString();
        const bool textEnded = endsTheText(chunk);
        m_held.push_back(std::move(chunk));
        std::optional<int> trim = overlap(m_textAtSplice, m_opening, textEnded || finished);
        if (trim && *trim == 0 && m_prefilled) {
            // The prefill went without its trailing white space; the continuation may begin with it.
            const QString space = trailingSpace(m_textAtSplice);
            if (m_opening.startsWith(space))
                trim = int(space.size());
            else if (space.startsWith(m_opening) && !(textEnded || finished))
                trim = std::nullopt;
        }
        if (trim) {
            releaseHeld(&out, *trim);
            m_openingDone = true;
        }
    }
    if (finished && !m_openingDone) {
        releaseHeld(&out, overlap(m_textAtSplice, m_opening, true).value_or(0));
        m_openingDone = true;
    }
    return out;
}

void StreamContinuation::releaseHeld(std::vector<QByteArray> *out, int trim)
{
    for (QJsonObject &chunk : m_held) {
        QJsonObject delta = deltaOf(chunk);
        if (trim > 0 && delta.contains(QLatin1String("content"))) {
            const QString content = delta.value(QLatin1String("content")).toString();
            const int cut = std::min<int>(trim, int(content.size()));
            trim -= cut;
            if (cut == content.size())
                delta.remove(QLatin1String("content"));
            else
                delta.insert(QLatin1String("content"), content.mid(cut));
            setDelta(&chunk, delta);
        }
        if (!carriesNothing(chunk))
            out->push_back(serialise(chunk));
    }
    m_held.clear();
    m_opening.clear();
}

TokenUsage StreamContinuation::summedUsage(const TokenUsage &last) const
{
    return m_splices == 0 ? last : sumOf(m_earlier, last);
}

} // namespace sb
