#pragma once

#include "model/EngineConfig.h"

#include <QSqlDatabase>
#include <QString>

namespace sb {

// The budget and task-based model tables (schema version 2): route_budgets, auto_tiers,
// auto_rules, and the meta rows auto.model_name / auto.allow_hints. ConfigRepository calls these
// inside its own transactions, so a save replaces them together with the rest of the configuration.
class CostConfigTables {
public:
    // Fills config->budgets and config->autoModel. A database saved before these tables existed
    // keeps the defaults (the default rules, no tiers).
    static bool load(const QSqlDatabase &db, EngineConfig *config, QString *error);
    // Replaces the rows with the config's; run inside the caller's write transaction.
    static bool save(const QSqlDatabase &db, const EngineConfig &config, QString *error);
};

} // namespace sb
