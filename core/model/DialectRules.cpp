#include "model/DialectRules.h"

#include <QUrl>

#include <algorithm>
#include <utility>

namespace sb {

namespace {

// What people write for a dialect when they think of the vendor or product rather than the wire.
const std::pair<const char *, const char *> Aliases[] = {
    {"openai", "openai_compat"},     {"open_ai", "openai_compat"},   {"openai_compatible", "openai_compat"},
    {"oai", "openai_compat"},        {"ollama", "openai_compat"},    {"vllm", "openai_compat"},
    {"deepseek", "openai_compat"},   {"groq", "openai_compat"},      {"openrouter", "openai_compat"},
    {"claude", "anthropic"},         {"anthropic_messages", "anthropic"},
    {"google", "gemini"},            {"google_ai", "gemini"},        {"generativelanguage", "gemini"},
    {"qwen", "dashscope"},           {"aliyun", "dashscope"},        {"alibaba", "dashscope"},
    {"tongyi", "dashscope"},         {"bailian", "dashscope"},       {"dash_scope", "dashscope"},
    {"baidu", "ernie"},              {"qianfan", "ernie"},           {"wenxin", "ernie"},
    {"wenxinworkshop", "ernie"},
};

QString normalised(QStringView given)
{
    QString out;
    for (QChar c : given.trimmed()) {
        if (c == u'-' || c == u' ' || c == u'.')
            out += u'_';
        else
            out += c.toLower();
    }
    return out;
}

int editDistance(const QString &a, const QString &b)
{
    std::vector<int> row(static_cast<std::size_t>(b.size()) + 1);
    for (std::size_t j = 0; j < row.size(); ++j)
        row[j] = static_cast<int>(j);
    for (qsizetype i = 1; i <= a.size(); ++i) {
        int diagonal = row[0];
        row[0] = static_cast<int>(i);
        for (qsizetype j = 1; j <= b.size(); ++j) {
            const int above = row[static_cast<std::size_t>(j)];
            row[static_cast<std::size_t>(j)] =
                std::min({above + 1, row[static_cast<std::size_t>(j - 1)] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row.back();
}

} // namespace

const std::vector<DialectRule> &dialectRules()
{
    static const std::vector<DialectRule> rules = {
        {QStringLiteral("openai_compat"), QStringLiteral("an OpenAI-compatible server"), false},
        {QStringLiteral("anthropic"), QStringLiteral("Anthropic"), true},
        {QStringLiteral("gemini"), QStringLiteral("Gemini"), true},
        {QStringLiteral("dashscope"), QStringLiteral("DashScope"), true},
        {QStringLiteral("ernie"), QStringLiteral("ERNIE (Qianfan)"), true},
    };
    return rules;
}

const DialectRule *findDialectRule(QStringView name)
{
    for (const DialectRule &rule : dialectRules())
        if (rule.name == name)
            return &rule;
    return nullptr;
}

QStringList knownDialectNames()
{
    QStringList names;
    for (const DialectRule &rule : dialectRules())
        names << rule.name;
    return names;
}

QString nearestDialect(QStringView given)
{
    const QString name = normalised(given);
    if (name.isEmpty())
        return {};
    if (findDialectRule(name))
        return name;
    for (const auto &[alias, dialect] : Aliases)
        if (name == QLatin1String(alias))
            return QString::fromLatin1(dialect);
    // "openai_comp", "anthropic_v1": one is the start of the other.
    for (const DialectRule &rule : dialectRules())
        if (name.size() >= 3 && (rule.name.startsWith(name) || name.startsWith(rule.name)))
            return rule.name;
    // A typo: "antrhopic", "gemnii".
    QString best;
    int bestDistance = 3;
    for (const DialectRule &rule : dialectRules()) {
        const int d = editDistance(name, rule.name);
        if (d < bestDistance) {
            bestDistance = d;
            best = rule.name;
        }
    }
    return best;
}

bool isLocalBaseUrl(const QString &url)
{
    const QString host = QUrl(url.trimmed()).host().toLower();
    if (host == u"localhost" || host.endsWith(QLatin1String(".localhost")) || host == u"::1")
        return true;
    // 127.0.0.0/8, written as a dotted quad.
    const QStringList parts = host.split(u'.');
    if (parts.size() != 4 || parts[0] != u"127")
        return false;
    for (const QString &part : parts) {
        bool ok = false;
        const int n = part.toInt(&ok);
        if (!ok || n < 0 || n > 255)
            return false;
    }
    return true;
}

bool lacksNeededKey(const QString &dialect, const QString &baseUrl, bool enabled, int usableKeys)
{
    const DialectRule *rule = findDialectRule(dialect);
    return enabled && rule && rule->needsKey && usableKeys == 0 && !isLocalBaseUrl(baseUrl);
}

QString unknownDialectSentence(const QString &provider, const QString &given)
{
    QStringList known = knownDialectNames();
    const QString last = known.takeLast();
    const QString head = known.join(QStringLiteral(", "));
    if (given.trimmed().isEmpty())
        return QStringLiteral("Provider \"%1\" has no dialect; set \"dialect\" to %2 or %3.").arg(provider, head, last);
    const QString near = nearestDialect(given);
    const QString hint = near.isEmpty() ? QStringLiteral(".") : QStringLiteral("; did you mean \"%1\"?").arg(near);
    return QStringLiteral("Provider \"%1\": unknown dialect \"%2\"%3 The known dialects are %4 and %5.")
        .arg(provider, given, hint, head, last);
}

QString missingKeySentence(const QString &provider, const QString &dialect)
{
    const DialectRule *rule = findDialectRule(dialect);
    const QString service = rule ? rule->service : dialect;
    return QStringLiteral("Provider \"%1\" (%2) has no API key, and %3 refuses every request without one: "
                          "add a key, or disable the provider until you have one.")
        .arg(provider, dialect, service);
}

} // namespace sb
