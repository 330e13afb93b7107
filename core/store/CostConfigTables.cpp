#include "store/CostConfigTables.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSqlError>
#include <QSqlQuery>

namespace sb {

namespace {

bool fail(const QSqlQuery &q, const QString &what, QString *error)
{
    if (error)
        *error = QStringLiteral("%1: %2").arg(what, q.lastError().text());
    return false;
}

FeatureCondition conditionFrom(const QString &text)
{
    if (text == u"yes")
        return FeatureCondition::Yes;
    if (text == u"no")
        return FeatureCondition::No;
    return FeatureCondition::Any;
}

} // namespace

bool CostConfigTables::load(const QSqlDatabase &db, EngineConfig *config, QString *error)
{
    QSqlQuery q(db);
    if (!q.exec(QStringLiteral("SELECT model, period, soft_limit_usd, hard_limit_usd FROM route_budgets ORDER BY position")))
        return fail(q, QStringLiteral("Cannot read the budgets"), error);
    while (q.next()) {
        BudgetConfig b;
        b.model = q.value(0).toString();
        budgetPeriodFromString(q.value(1).toString(), &b.period);
        b.softLimitUsd = q.value(2).toDouble();
        b.hardLimitUsd = q.value(3).toDouble();
        config->budgets.push_back(b);
    }

    if (!q.exec(QStringLiteral("SELECT key, value FROM meta WHERE key IN ('auto.model_name', 'auto.allow_hints')")))
        return fail(q, QStringLiteral("Cannot read the task-based model"), error);
    bool saved = false;
    while (q.next()) {
        saved = true;
        if (q.value(0).toString() == u"auto.model_name")
            config->autoModel.modelName = q.value(1).toString();
        else
            config->autoModel.allowHints = q.value(1).toString() == u"1";
    }
    if (!saved)
        return true; // never saved with these tables: the defaults stand

    if (!q.exec(QStringLiteral("SELECT name, model FROM auto_tiers ORDER BY position")))
        return fail(q, QStringLiteral("Cannot read the task-based tiers"), error);
    while (q.next())
        config->autoModel.tiers.push_back(AutoTier{q.value(0).toString(), q.value(1).toString()});

    if (!q.exec(QStringLiteral("SELECT tier, min_prompt_tokens, max_prompt_tokens, tools, code_blocks, keywords FROM auto_rules ORDER BY position")))
        return fail(q, QStringLiteral("Cannot read the task-based rules"), error);
    config->autoModel.rules.clear();
    while (q.next()) {
        TierRule r;
        r.tier = q.value(0).toString();
        r.minPromptTokens = q.value(1).toInt();
        r.maxPromptTokens = q.value(2).toInt();
        r.tools = conditionFrom(q.value(3).toString());
        r.codeBlocks = conditionFrom(q.value(4).toString());
        for (const QJsonValue &k : QJsonDocument::fromJson(q.value(5).toString().toUtf8()).array())
            r.keywords << k.toString();
        config->autoModel.rules.push_back(r);
    }
    return true;
}

bool CostConfigTables::save(const QSqlDatabase &db, const EngineConfig &config, QString *error)
{
    QSqlQuery q(db);
    for (const char *table : {"route_budgets", "auto_tiers", "auto_rules"})
        if (!q.exec(QStringLiteral("DELETE FROM %1").arg(QLatin1String(table))))
            return fail(q, QStringLiteral("Cannot save the budgets and tiers"), error);

    q.prepare(QStringLiteral("INSERT INTO route_budgets (model, period, soft_limit_usd, hard_limit_usd, position) VALUES (?,?,?,?,?)"));
    int position = 0;
    for (const auto &b : config.budgets) {
        q.addBindValue(b.model);
        q.addBindValue(QString::fromLatin1(toString(b.period)));
        q.addBindValue(b.softLimitUsd);
        q.addBindValue(b.hardLimitUsd);
        q.addBindValue(position++);
        if (!q.exec())
            return fail(q, QStringLiteral("Cannot save the budget of \"%1\"").arg(b.model), error);
    }

    const AutoModelConfig &a = config.autoModel;
    q.prepare(QStringLiteral("INSERT INTO auto_tiers (position, name, model) VALUES (?,?,?)"));
    position = 0;
    for (const auto &t : a.tiers) {
        q.addBindValue(position++);
        q.addBindValue(t.name);
        q.addBindValue(t.model);
        if (!q.exec())
            return fail(q, QStringLiteral("Cannot save tier \"%1\"").arg(t.name), error);
    }
    q.prepare(QStringLiteral("INSERT INTO auto_rules (position, tier, min_prompt_tokens, max_prompt_tokens, tools, code_blocks, keywords)"
                             " VALUES (?,?,?,?,?,?,?)"));
    position = 0;
    for (const auto &r : a.rules) {
        q.addBindValue(position++);
        q.addBindValue(r.tier);
        q.addBindValue(r.minPromptTokens);
        q.addBindValue(r.maxPromptTokens);
        q.addBindValue(QString::fromLatin1(toString(r.tools)));
        q.addBindValue(QString::fromLatin1(toString(r.codeBlocks)));
        q.addBindValue(QString::fromUtf8(QJsonDocument(QJsonArray::fromStringList(r.keywords)).toJson(QJsonDocument::Compact)));
        if (!q.exec())
            return fail(q, QStringLiteral("Cannot save rule %1 of the task-based model").arg(position), error);
    }
    q.prepare(QStringLiteral("INSERT OR REPLACE INTO meta (key, value) VALUES (?,?)"));
    for (const auto &[key, value] : {std::pair{QStringLiteral("auto.model_name"), a.modelName},
                                     std::pair{QStringLiteral("auto.allow_hints"), a.allowHints ? QStringLiteral("1") : QStringLiteral("0")}}) {
        q.addBindValue(key);
        q.addBindValue(value);
        if (!q.exec())
            return fail(q, QStringLiteral("Cannot save the task-based model"), error);
    }
    return true;
}

} // namespace sb
