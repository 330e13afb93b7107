#include "providers/common/InBodyError.h"

#include <QStringList>

#include <initializer_list>

namespace sb {

namespace {

// What a field can point at. A field may point at several; judgeInBodyError() orders them.
struct Signals {
    bool wallet = false;
    bool rate = false;
    bool provider = false;
    bool auth = false;
    bool param = false;
};

// "ServerOverloaded", "Throttling.RateQuota", "RESOURCE_EXHAUSTED", "rate_limit_exceeded" and
// "The server is busy" all become lower-case words: split at anything that is not a letter or
// digit and at camel-case humps. Whole words, so that "generate" never reads as "rate".
QStringList wordsOf(const QString &text)
{
    QStringList words;
    QString current;
    const auto flush = [&] {
        if (!current.isEmpty())
            words << current.toLower();
        current.clear();
    };
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        if (!c.isLetterOrNumber()) {
            flush();
            continue;
        }
        if (c.isUpper() && !current.isEmpty()) {
            const QChar previous = current.back();
            const bool nextIsLower = i + 1 < text.size() && text.at(i + 1).isLower();
            if (previous.isLower() || previous.isDigit() || (previous.isUpper() && nextIsLower))
                flush(); // "serverOverloaded" → server|Overloaded, "APIKey" → API|Key
        }
        current += c;
    }
    flush();
    return words;
}

bool isOneOf(const QString &word, std::initializer_list<const char *> list)
{
    for (const char *w : list)
        if (word == QLatin1String(w))
            return true;
    return false;
}

// One word, or two or three neighbours run together ("time"+"out", "too"+"many"+"requests"), against
// the words providers use. Whole words only, but for the stems throttl… and overload….
void addWordSignals(const QString &word, Signals *s)
{
    if (isOneOf(word, {"billing", "balance", "arrearage", "overdue", "payment", "deactivated", "insufficientquota",
                       "insufficientbalance"}))
        s->wallet = true;
    if (isOneOf(word, {"rate", "ratelimit", "ratelimited", "ratelimits", "quota", "quotas", "qps", "rpm", "tpm",
                       "exhausted", "toomanyrequests"})
        || word.startsWith(QLatin1String("throttl")))
        s->rate = true;
    if (isOneOf(word, {"busy", "server", "servers", "timeout", "timeouts", "timedout", "unavailable", "internal",
                       "capacity", "upstream", "gateway", "deadline"})
        || word.startsWith(QLatin1String("overload")))
        s->provider = true;
    if (isOneOf(word, {"auth", "authentication", "authenticated", "unauthenticated", "unauthorized", "unauthorised",
                       "authorization", "permission", "permissions", "forbidden", "credential", "credentials", "apikey",
                       "accesstoken", "accessdenied"}))
        s->auth = true;
    if (isOneOf(word, {"invalid", "parameter", "parameters", "param", "params", "argument", "arguments", "missing",
                       "unsupported", "sensitive", "inspection", "filter", "filtered", "unprocessable", "badrequest",
                       "notfound", "toolarge", "contextlength"}))
        s->param = true;
}

Signals wordSignals(const QString &text)
{
    Signals s;
    const QStringList words = wordsOf(text);
    for (qsizetype i = 0; i < words.size(); ++i) {
        addWordSignals(words.at(i), &s);
        if (i + 1 < words.size())
            addWordSignals(words.at(i) + words.at(i + 1), &s);
        if (i + 2 < words.size())
            addWordSignals(words.at(i) + words.at(i + 1) + words.at(i + 2), &s);
    }
    // Qianfan and DashScope word some of their messages in Chinese.
    for (const char16_t *phrase : {u"限流", u"频繁", u"超限", u"配额"})
        if (text.contains(QStringView(phrase)))
            s.rate = true;
    for (const char16_t *phrase : {u"繁忙", u"超时", u"过载", u"内部错误", u"服务不可用"})
        if (text.contains(QStringView(phrase)))
            s.provider = true;
    return s;
}

void addKindSignal(std::optional<OutcomeKind> kind, Signals *s)
{
    if (!kind)
        return;
    switch (*kind) {
    case OutcomeKind::RetryableRateLimit: s->rate = true; break;
    case OutcomeKind::ProviderDown:
    case OutcomeKind::Timeout:
    case OutcomeKind::ConnectFailed: s->provider = true; break;
    case OutcomeKind::AuthError: s->auth = true; break;
    case OutcomeKind::NonRetryableParamError: s->param = true; break;
    case OutcomeKind::Success: break;
    }
}

} // namespace

OutcomeKind judgeInBodyError(const InBodyError &error)
{
    Signals identifiers;
    for (const QString *field : {&error.type, &error.code}) {
        const Signals s = wordSignals(*field);
        identifiers.wallet |= s.wallet;
        identifiers.rate |= s.rate;
        identifiers.provider |= s.provider;
        identifiers.auth |= s.auth;
        identifiers.param |= s.param;
    }
    addKindSignal(error.typeKind, &identifiers);
    addKindSignal(error.codeKind, &identifiers);
    // The message may say "retryable" (rate, provider) or "the key" (which fails over too); what it
    // says about the request is not enough to blame the caller.
    const Signals message = wordSignals(error.message.left(500));

    if (identifiers.wallet)
        return OutcomeKind::AuthError;
    if (identifiers.rate || message.rate)
        return OutcomeKind::RetryableRateLimit;
    if (identifiers.provider || message.provider)
        return OutcomeKind::ProviderDown;
    if (identifiers.auth || message.auth)
        return OutcomeKind::AuthError;
    if (identifiers.param)
        return OutcomeKind::NonRetryableParamError;
    return OutcomeKind::ProviderDown;
}

} // namespace sb
