#include "model/CostConfigJson.h"

#include <QSet>

#include <cmath>

namespace sb {

namespace {

// Reads fields of one object and remembers which it saw, so the rest can be warned about.
class FieldReader {
public:
    FieldReader(const QJsonObject &object, QString where, QStringList *errors, QStringList *warnings)
        : m_object(object), m_where(std::move(where)), m_errors(errors), m_warnings(warnings) {}

    QJsonValue take(const char *name)
    {
        const QString key = QString::fromLatin1(name);
        m_seen.insert(key);
        const QJsonValue v = m_object.value(key);
        return v.isNull() ? QJsonValue(QJsonValue::Undefined) : v;
    }

    void string(const char *name, QString *out, bool required = false)
    {
        const QJsonValue v = take(name);
        if (v.isUndefined()) {
            if (required)
                error(name, "is missing");
            return;
        }
        if (!v.isString())
            return error(name, "must be a string");
        *out = v.toString();
    }

    void number(const char *name, double *out)
    {
        const QJsonValue v = take(name);
        if (v.isUndefined())
            return;
        if (!v.isDouble() || !std::isfinite(v.toDouble()) || v.toDouble() < 0)
            return error(name, "must be a number, 0 or more");
        *out = v.toDouble();
    }

    void whole(const char *name, int *out)
    {
        const QJsonValue v = take(name);
        if (v.isUndefined())
            return;
        const double d = v.toDouble(-1);
        if (!v.isDouble() || d != std::floor(d) || d < 0 || d > 1e9)
            return error(name, "must be a whole number, 0 or more");
        *out = static_cast<int>(d);
    }

    void boolean(const char *name, bool *out)
    {
        const QJsonValue v = take(name);
        if (v.isUndefined())
            return;
        if (!v.isBool())
            return error(name, "must be true or false");
        *out = v.toBool();
    }

    void condition(const char *name, FeatureCondition *out)
    {
        const QJsonValue v = take(name);
        if (v.isUndefined())
            return;
        if (!v.isBool())
            return error(name, "must be true or false (leave it out to ignore the feature)");
        *out = v.toBool() ? FeatureCondition::Yes : FeatureCondition::No;
    }

    void error(const char *name, const char *what)
    {
        *m_errors << QStringLiteral("%1: \"%2\" %3.").arg(m_where, QLatin1String(name), QLatin1String(what));
    }

    void warnUnknown()
    {
        for (auto it = m_object.begin(); it != m_object.end(); ++it)
            if (!m_seen.contains(it.key()))
                *m_warnings << QStringLiteral("%1: unknown field \"%2\" was ignored.").arg(m_where, it.key());
    }

private:
    QJsonObject m_object;
    QString m_where;
    QStringList *m_errors;
    QStringList *m_warnings;
    QSet<QString> m_seen;
};

} // namespace

QJsonArray budgetsToJson(const std::vector<BudgetConfig> &budgets)
{
    QJsonArray out;
    for (const auto &b : budgets)
        out.append(QJsonObject{{QStringLiteral("model"), b.model},
                               {QStringLiteral("period"), QLatin1String(toString(b.period))},
                               {QStringLiteral("soft_limit_usd"), b.softLimitUsd},
                               {QStringLiteral("hard_limit_usd"), b.hardLimitUsd}});
    return out;
}

std::vector<BudgetConfig> budgetsFromJson(const QJsonArray &json, QStringList *errors, QStringList *warnings)
{
    std::vector<BudgetConfig> out;
    QSet<QString> seen;
    for (qsizetype i = 0; i < json.size(); ++i) {
        const QString where = QStringLiteral("budgets[%1]").arg(i);
        if (!json[i].isObject()) {
            *errors << QStringLiteral("%1 must be an object.").arg(where);
            continue;
        }
        FieldReader r(json[i].toObject(), where, errors, warnings);
        BudgetConfig b;
        r.string("model", &b.model, true);
        QString period;
        r.string("period", &period);
        if (!period.isEmpty() && !budgetPeriodFromString(period, &b.period))
            r.error("period", "must be \"day\" or \"month\"");
        r.number("soft_limit_usd", &b.softLimitUsd);
        r.number("hard_limit_usd", &b.hardLimitUsd);
        r.warnUnknown();
        if (seen.contains(b.model))
            *errors << QStringLiteral("Route \"%1\" has two budgets; keep one.").arg(b.model);
        seen.insert(b.model);
        out.push_back(b);
    }
    return out;
}

QJsonObject tierRuleToJson(const TierRule &rule)
{
    QJsonObject o{{QStringLiteral("tier"), rule.tier}};
    if (rule.minPromptTokens >= 0)
        o.insert(QStringLiteral("min_prompt_tokens"), rule.minPromptTokens);
    if (rule.maxPromptTokens >= 0)
        o.insert(QStringLiteral("max_prompt_tokens"), rule.maxPromptTokens);
    if (rule.tools != FeatureCondition::Any)
        o.insert(QStringLiteral("tools"), rule.tools == FeatureCondition::Yes);
    if (rule.codeBlocks != FeatureCondition::Any)
        o.insert(QStringLiteral("code_blocks"), rule.codeBlocks == FeatureCondition::Yes);
    if (!rule.keywords.isEmpty())
        o.insert(QStringLiteral("keywords"), QJsonArray::fromStringList(rule.keywords));
    return o;
}

TierRule tierRuleFromJson(const QJsonObject &json, const QString &where, QStringList *errors, QStringList *warnings)
{
    FieldReader r(json, where, errors, warnings);
    TierRule rule;
    r.string("tier", &rule.tier, true);
    r.whole("min_prompt_tokens", &rule.minPromptTokens);
    r.whole("max_prompt_tokens", &rule.maxPromptTokens);
    r.condition("tools", &rule.tools);
    r.condition("code_blocks", &rule.codeBlocks);
    const QJsonValue keywords = r.take("keywords");
    if (!keywords.isUndefined()) {
        if (!keywords.isArray())
            r.error("keywords", "must be a list of strings");
        for (const QJsonValue &k : keywords.toArray()) {
            if (!k.isString() || k.toString().trimmed().isEmpty()) {
                r.error("keywords", "must be a list of non-empty strings");
                break;
            }
            rule.keywords << k.toString();
        }
    }
    r.warnUnknown();
    return rule;
}

QJsonObject autoModelToJson(const AutoModelConfig &config)
{
    QJsonArray tiers;
    for (const auto &t : config.tiers)
        tiers.append(QJsonObject{{QStringLiteral("name"), t.name}, {QStringLiteral("model"), t.model}});
    QJsonArray rules;
    for (const auto &rule : config.rules)
        rules.append(tierRuleToJson(rule));
    return QJsonObject{{QStringLiteral("name"), config.modelName},
                       {QStringLiteral("allow_hints"), config.allowHints},
                       {QStringLiteral("tiers"), tiers},
                       {QStringLiteral("rules"), rules}};
}

AutoModelConfig autoModelFromJson(const QJsonObject &json, QStringList *errors, QStringList *warnings)
{
    AutoModelConfig config;
    FieldReader r(json, QStringLiteral("auto_model"), errors, warnings);
    r.string("name", &config.modelName);
    r.boolean("allow_hints", &config.allowHints);
    const QJsonValue tiers = r.take("tiers");
    if (!tiers.isUndefined() && !tiers.isArray())
        r.error("tiers", "must be a list");
    const QJsonArray tierList = tiers.toArray();
    for (qsizetype i = 0; i < tierList.size(); ++i) {
        FieldReader tr(tierList[i].toObject(), QStringLiteral("auto_model.tiers[%1]").arg(i), errors, warnings);
        AutoTier tier;
        tr.string("name", &tier.name, true);
        tr.string("model", &tier.model, true);
        tr.warnUnknown();
        config.tiers.push_back(tier);
    }
    // A file that leaves the rules out gets the default ones; an explicit list (even empty) is kept.
    const QJsonValue rules = r.take("rules");
    if (!rules.isUndefined()) {
        if (!rules.isArray())
            r.error("rules", "must be a list");
        config.rules.clear();
        const QJsonArray ruleList = rules.toArray();
        for (qsizetype i = 0; i < ruleList.size(); ++i)
            config.rules.push_back(tierRuleFromJson(ruleList[i].toObject(), QStringLiteral("auto_model.rules[%1]").arg(i), errors, warnings));
    }
    r.warnUnknown();
    return config;
}

} // namespace sb
