#pragma once

#include "model/AutoModelConfig.h"

#include <QJsonObject>
#include <QString>
#include <QStringView>

#include <optional>

namespace sb {

// What the rules look at in a chat request.
struct TaskFeatures {
    int promptTokens = 0;    // estimated from every message's text, about four characters a token
    bool tools = false;      // "tools" or "functions" offered
    bool codeBlocks = false; // a ``` fence or an indented block in a user message
    QString userText;        // the user messages' text, for keywords
};

struct TierChoice {
    QString tier;   // as configured, e.g. "small"
    QString model;  // the route that serves the tier
    QString reason; // "hint" or "rule 2", for the log
};

// Task-based model choice (ARCHITECTURE.md, "The life of a request": `auto` → ModelSelector): classifies
// a request for the configured task-based model by ordered rules into a tier and names the route of
// that tier. An explicit hint (request header x-switchboard-tier, or metadata.tier in the body) wins
// over the rules. Stateless: build one per request over the config the request started with.
class ModelSelector {
public:
    explicit ModelSelector(const AutoModelConfig &config) : m_config(config) {}

    // True when `model` is the task-based model and it has tiers.
    bool handles(QStringView model) const;

    // The tier and route for this request; std::nullopt with a sentence in *error when a hint names
    // a tier that does not exist (the caller answers 400) or no rule matches.
    std::optional<TierChoice> choose(const QJsonObject &body, const QString &headerHint, QString *error) const;

    static TaskFeatures features(const QJsonObject &body);
    static bool hasCodeBlock(const QString &text);
    static bool matches(const TierRule &rule, const TaskFeatures &features);
    // The hint is Switchboard's, not the provider's: metadata.tier is removed before forwarding
    // (and metadata itself when nothing else is left in it).
    static void removeHint(QJsonObject *body);

private:
    const AutoModelConfig &m_config;
};

} // namespace sb
