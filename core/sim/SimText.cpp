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

QByteArray SimText::join(const std::vector<QByteArray> &tokens)
{
    QByteArray out;
    for (const QByteArray &t : tokens)
        out += t;
    return out;
}

} // namespace sb::sim
