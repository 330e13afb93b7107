#include "model/AutoModelConfig.h"

#include <QSet>

namespace sb {

const AutoTier *AutoModelConfig::tier(const QString &name) const
{
    for (const auto &t : tiers)
        if (t.name.compare(name, Qt::CaseInsensitive) == 0)
            return &t;
    return nullptr;
}

std::vector<TierRule> AutoModelConfig::defaultRules()
{
    TierRule tools;
    tools.tier = QStringLiteral("large");
    tools.tools = FeatureCondition::Yes;
    TierRule code;
    code.tier = QStringLiteral("large");
    code.codeBlocks = FeatureCondition::Yes;
    TierRule longPrompt;
    longPrompt.tier = QStringLiteral("large");
    longPrompt.minPromptTokens = 2000;
    TierRule rest;
    rest.tier = QStringLiteral("small");
    return {tools, code, longPrompt, rest};
}

QStringList AutoModelConfig::validate(const QStringList &routeModels) const
{
    QStringList problems;
    if (modelName.trimmed().isEmpty())
        problems << QStringLiteral("The task-based model needs a name (e.g. \"auto\").");
    if (!enabled())
        return problems;
    if (routeModels.contains(modelName))
        problems << QStringLiteral("The task-based model \"%1\" has the same name as a route; rename one of them.").arg(modelName);
    QSet<QString> names;
    for (const auto &t : tiers) {
        if (t.name.trimmed().isEmpty())
            problems << QStringLiteral("A tier of \"%1\" has no name.").arg(modelName);
        else if (names.contains(t.name.toLower()))
            problems << QStringLiteral("Two tiers of \"%1\" are named \"%2\"; rename one of them.").arg(modelName, t.name);
        names.insert(t.name.toLower());
        if (!routeModels.contains(t.model))
            problems << QStringLiteral("Tier \"%1\" of \"%2\" routes to \"%3\", which is not a configured route.").arg(t.name, modelName, t.model);
    }
    if (rules.empty())
        problems << QStringLiteral("\"%1\" has tiers but no rules; add at least a catch-all rule.").arg(modelName);
    for (std::size_t i = 0; i < rules.size(); ++i) {
        const TierRule &r = rules[i];
        if (!names.contains(r.tier.toLower()))
            problems << QStringLiteral("Rule %1 of \"%2\" picks tier \"%3\", which is not one of its tiers.").arg(i + 1).arg(modelName, r.tier);
        if (r.minPromptTokens >= 0 && r.maxPromptTokens >= 0 && r.minPromptTokens > r.maxPromptTokens)
            problems << QStringLiteral("Rule %1 of \"%2\": the minimum prompt length is above the maximum, so it never matches.")
                            .arg(i + 1).arg(modelName);
    }
    return problems;
}

const char *toString(FeatureCondition condition)
{
    switch (condition) {
    case FeatureCondition::Yes: return "yes";
    case FeatureCondition::No: return "no";
    case FeatureCondition::Any: break;
    }
    return "any";
}

} // namespace sb
