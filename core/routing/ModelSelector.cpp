#include "routing/ModelSelector.h"

#include <QJsonArray>
#include <QStringList>

namespace sb {

namespace {

QString textOf(const QJsonValue &content)
{
    if (content.isString())
        return content.toString();
    QStringList parts;
    for (const QJsonValue &part : content.toArray()) {
        const QJsonObject p = part.toObject();
        if (p.value(QLatin1String("type")).toString() == u"text")
            parts << p.value(QLatin1String("text")).toString();
    }
    return parts.join(QLatin1Char('\n'));
}

bool holds(FeatureCondition condition, bool value)
{
    return condition == FeatureCondition::Any || (condition == FeatureCondition::Yes) == value;
}

} // namespace

bool ModelSelector::handles(QStringView model) const
{
    return m_config.enabled() && model == m_config.modelName;
}

bool ModelSelector::hasCodeBlock(const QString &text)
{
    if (text.contains(QLatin1String("```")))
        return true;
    // Markdown's indented code: two lines in a row that start with four spaces or a tab. One
    // indented line is more often a quoted address or a list continuation than code.
    int indentedRun = 0;
    for (QStringView line : QStringView(text).split(QLatin1Char('\n'))) {
        const bool indented = (line.startsWith(QLatin1String("    ")) || line.startsWith(QLatin1Char('\t'))) && !line.trimmed().isEmpty();
        indentedRun = indented ? indentedRun + 1 : 0;
        if (indentedRun >= 2)
            return true;
    }
    return false;
}

TaskFeatures ModelSelector::features(const QJsonObject &body)
{
    TaskFeatures f;
    qsizetype characters = 0;
    QStringList user;
    for (const QJsonValue &m : body.value(QLatin1String("messages")).toArray()) {
        const QJsonObject message = m.toObject();
        const QString text = textOf(message.value(QLatin1String("content")));
        characters += text.size();
        if (message.value(QLatin1String("role")).toString() == u"user")
            user << text;
    }
    // Tool definitions are prompt tokens too.
    const QJsonArray tools = body.value(QLatin1String("tools")).toArray();
    const QJsonArray functions = body.value(QLatin1String("functions")).toArray();
    f.tools = !tools.isEmpty() || !functions.isEmpty();
    f.promptTokens = static_cast<int>((characters + 3) / 4);
    f.userText = user.join(QLatin1Char('\n'));
    f.codeBlocks = hasCodeBlock(f.userText);
    return f;
}

bool ModelSelector::matches(const TierRule &rule, const TaskFeatures &features)
{
    if (rule.minPromptTokens >= 0 && features.promptTokens < rule.minPromptTokens)
        return false;
    if (rule.maxPromptTokens >= 0 && features.promptTokens > rule.maxPromptTokens)
        return false;
    if (!holds(rule.tools, features.tools) || !holds(rule.codeBlocks, features.codeBlocks))
        return false;
    if (!rule.keywords.isEmpty()) {
        bool any = false;
        for (const QString &keyword : rule.keywords)
            any = any || features.userText.contains(keyword, Qt::CaseInsensitive);
        if (!any)
            return false;
    }
    return true;
}

std::optional<TierChoice> ModelSelector::choose(const QJsonObject &body, const QString &headerHint, QString *error) const
{
    if (m_config.allowHints) {
        QString hint = headerHint.trimmed();
        if (hint.isEmpty())
            hint = body.value(QLatin1String("metadata")).toObject().value(QLatin1String("tier")).toString().trimmed();
        if (!hint.isEmpty()) {
            const AutoTier *tier = m_config.tier(hint);
            if (!tier) {
                QStringList names;
                for (const auto &t : m_config.tiers)
                    names << t.name;
                if (error)
                    *error = QStringLiteral("\"%1\" has no tier \"%2\"; ask for one of: %3 (or send no tier hint).")
                                 .arg(m_config.modelName, hint.left(100), names.join(QStringLiteral(", ")));
                return std::nullopt;
            }
            return TierChoice{tier->name, tier->model, QStringLiteral("hint")};
        }
    }
    const TaskFeatures f = features(body);
    for (std::size_t i = 0; i < m_config.rules.size(); ++i) {
        const TierRule &rule = m_config.rules[i];
        if (!matches(rule, f))
            continue;
        if (const AutoTier *tier = m_config.tier(rule.tier))
            return TierChoice{tier->name, tier->model, QStringLiteral("rule %1").arg(i + 1)};
    }
    if (error)
        *error = QStringLiteral("No rule of \"%1\" matches this request; add a catch-all rule (one without conditions).").arg(m_config.modelName);
    return std::nullopt;
}

void ModelSelector::removeHint(QJsonObject *body)
{
    const QString key = QStringLiteral("metadata");
    if (!body->value(key).isObject())
        return;
    QJsonObject metadata = body->value(key).toObject();
    if (!metadata.contains(QLatin1String("tier")))
        return;
    metadata.remove(QLatin1String("tier"));
    if (metadata.isEmpty())
        body->remove(key);
    else
        body->insert(key, metadata);
}

} // namespace sb
