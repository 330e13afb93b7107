#pragma once

#include <QString>
#include <QStringList>

#include <vector>

namespace sb {

// Task-based model choice (simple work to a small model, cutting cost and rate-limit pressure): a logical model (default "auto") whose requests are
// classified by ordered rules into a tier, and each tier names the route that serves it.

// One tier: its name (what the hint and the x-switchboard-auto-tier header say) and the route.
struct AutoTier {
    QString name;  // e.g. "small"
    QString model; // a configured route's logical model, e.g. "gpt-4o-mini"
};

// Tri-state condition on a yes/no feature of the request.
enum class FeatureCondition { Any, Yes, No };

// One rule: every condition that is set must hold; the first rule that matches picks the tier.
// A rule without conditions matches every request (a catch-all, normally the last one).
struct TierRule {
    QString tier;
    int minPromptTokens = -1; // estimated prompt tokens at least this; -1 = not checked
    int maxPromptTokens = -1; // … at most this; -1 = not checked
    FeatureCondition tools = FeatureCondition::Any;      // the request offers tools/functions
    FeatureCondition codeBlocks = FeatureCondition::Any; // a ``` fence or an indented block in the prompt
    QStringList keywords; // any of them in the prompt, case-insensitive; empty = not checked

    bool operator==(const TierRule &) const = default;
};

struct AutoModelConfig {
    QString modelName = QStringLiteral("auto"); // what callers put in "model"
    // Empty = task-based choice is off (a request for modelName is then an unknown model).
    std::vector<AutoTier> tiers;
    std::vector<TierRule> rules = defaultRules();
    // An explicit hint wins over the rules: the request header x-switchboard-tier or metadata.tier.
    bool allowHints = true;

    bool enabled() const { return !tiers.empty(); }
    const AutoTier *tier(const QString &name) const;

    // Large for tools, code and long prompts (over 2,000 tokens, about 8,000 characters — where a
    // small model's answers start to lose the thread); small for everything else.
    static std::vector<TierRule> defaultRules();
    // Sentences a user can act on; `routeModels` are the configured routes' logical models.
    QStringList validate(const QStringList &routeModels) const;
};

const char *toString(FeatureCondition condition); // "any", "yes", "no"

} // namespace sb
