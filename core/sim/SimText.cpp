#include "sim/SimText.h"

#include <QString>

namespace sb::sim {

namespace {

std::vector<QByteArray> wordsOf(const char *utf8)
{
    std::vector<QByteArray> out;
    const QByteArray text(utf8);
    qsizetype start = 0;
    for (qsizetype i = 0; i < text.size(); ++i) {
        if (text[i] == ' ') {
            out.push_back(text.mid(start, i - start + 1)); // the space travels with its word, as BPE tokens do
            start = i + 1;
        }
    }
    if (start < text.size())
        out.push_back(text.mid(start));
    return out;
}

std::vector<QByteArray> cjkOf(const char *utf8)
{
    std::vector<QByteArray> out;
    const QString text = QString::fromUtf8(utf8);
    for (qsizetype i = 0; i < text.size();) {
        const qsizetype n = (i % 3 == 0) ? 2 : 1; // one or two characters a token
        out.push_back(text.mid(i, n).toUtf8());
        i += n;
    }
    return out;
}

const std::vector<QByteArray> &english()
{
    static const std::vector<QByteArray> t = wordsOf(
        "Switchboard keeps two independent channels for every model, scores their health all the time "
        "and fails over before the caller notices. When the primary refuses, traffic moves to the fallback, "
        "and when it recovers the primary carries the load again. ");
    return t;
}

const std::vector<QByteArray> &chinese()
{
    static const std::vector<QByteArray> t = cjkOf(
        "路由器为每个模型保留两个独立通道，持续评估健康分数，并在调用方察觉之前完成故障切换。"
        "主通道拒绝请求时，流量转到备用通道；主通道恢复后，再次承担流量。");
    return t;
}

const std::vector<QByteArray> &vietnamese()
{
    static const std::vector<QByteArray> t = wordsOf(
        "Bộ định tuyến giữ hai kênh độc lập cho mỗi mô hình, liên tục chấm điểm sức khỏe và chuyển "
        "sang kênh dự phòng trước khi người gọi nhận ra. Khi kênh chính phục hồi, nó lại gánh lưu lượng. ");
    return t;
}

} // namespace

std::vector<QByteArray> SimText::tokens(Language language, int count, quint64 seed)
{
    std::vector<QByteArray> out;
    out.reserve(static_cast<std::size_t>(std::max(count, 0)));
    seed %= kDistinctSeeds;
    const std::vector<QByteArray> *sources[3] = {&english(), &chinese(), &vietnamese()};
    for (int i = 0; i < count; ++i) {
        const std::vector<QByteArray> *source = sources[0];
        switch (language) {
        case Language::English:
            break;
        case Language::Chinese:
            source = sources[1];
            break;
        case Language::Vietnamese:
            source = sources[2];
            break;
        case Language::Mixed:
            source = sources[(static_cast<quint64>(i / 4) + seed) % 3];
            break;
        }
        out.push_back((*source)[(seed + static_cast<quint64>(i)) % source->size()]);
    }
    return out;
}

std::optional<std::vector<QByteArray>> SimText::continuation(Language language, int count, const QByteArray &partial, int overlap)
{
    // A model asked to go on with an answer goes on in that answer's language, whatever it would
    // have answered in itself: its own passage first, then the others.
    if (std::optional<std::vector<QByteArray>> rest = continuationIn(language, count, partial, overlap))
        return rest;
    for (const Language other : {Language::English, Language::Chinese, Language::Vietnamese, Language::Mixed})
        if (other != language)
            if (std::optional<std::vector<QByteArray>> rest = continuationIn(other, count, partial, overlap))
                return rest;
    return std::nullopt;
}

std::optional<std::vector<QByteArray>> SimText::continuationIn(Language language, int count, const QByteArray &partial, int overlap)
{
    // Every answer starts somewhere in the passage (its seed); the one that starts with `partial`
    // is the answer being continued. Seeds repeat within a few passage lengths.
    for (quint64 seed = 0; seed < kDistinctSeeds; ++seed) {
        const std::vector<QByteArray> answer = tokens(language, count, seed);
        const QByteArray whole = join(answer);
        if (whole.size() < partial.size() || !whole.startsWith(partial))
            continue;
        std::vector<QByteArray> rest;
        qsizetype at = 0;
        for (const QByteArray &token : answer) {
            const qsizetype end = at + token.size();
            if (end > partial.size())
                rest.push_back(at >= partial.size() ? token : token.mid(partial.size() - at));
            at = end;
        }
        // The repeat, back to a character boundary: UTF-8 continuation bytes are 10xxxxxx.
        qsizetype from = partial.size();
        for (int chars = 0; chars < overlap && from > 0; ++chars) {
            --from;
            while (from > 0 && (static_cast<unsigned char>(partial.at(from)) & 0xC0) == 0x80)
                --from;
        }
        if (const QByteArray repeat = partial.mid(from); !repeat.isEmpty()) {
            if (rest.empty())
                rest.push_back(repeat);
            else
                rest.front().prepend(repeat);
        }
        return rest;
    }
    return std::nullopt;
}

QByteArray SimText::join(const std::vector<QByteArray> &tokens)
{
    QByteArray out;
    for (const QByteArray &t : tokens)
        out += t;
    return out;
}

} // namespace sb::sim
