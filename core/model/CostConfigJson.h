#pragma once

#include "model/AutoModelConfig.h"
#include "model/BudgetConfig.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QStringList>

#include <vector>

namespace sb {

// The "budgets" list and the "auto_model" object of the configuration JSON (CONFIG_FORMAT.md).
// Kept beside ConfigJson rather than inside it so cost and task-based choice read as one piece;
// the readers collect sentences the way ConfigJson's do (errors name the field, unknown fields warn).

QJsonArray budgetsToJson(const std::vector<BudgetConfig> &budgets);
std::vector<BudgetConfig> budgetsFromJson(const QJsonArray &json, QStringList *errors, QStringList *warnings);

QJsonObject autoModelToJson(const AutoModelConfig &config);
AutoModelConfig autoModelFromJson(const QJsonObject &json, QStringList *errors, QStringList *warnings);

QJsonObject tierRuleToJson(const TierRule &rule);
TierRule tierRuleFromJson(const QJsonObject &json, const QString &where, QStringList *errors, QStringList *warnings);

} // namespace sb
