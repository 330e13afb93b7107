#include "fleet/FleetChange.h"

#include <QCryptographicHash>
#include <QJsonDocument>
#include <QJsonObject>

#include <array>

namespace sb {

namespace {

struct KindRule {
    FleetChange::Kind kind;
    const char *name;
    std::array<const char *, 3> states;
};

constexpr KindRule kRules[] = {
    {FleetChange::Kind::Breaker, "breaker", {"open", "half_open", "closed"}},
    {FleetChange::Kind::Pool, "pool", {"active", "ejected", "drained"}},
    {FleetChange::Kind::Key, "key", {"active", "cooling_down", "disabled"}},
};

const KindRule &ruleOf(FleetChange::Kind kind)
{
    for (const KindRule &rule : kRules)
        if (rule.kind == kind)
            return rule;
    return kRules[0];
}

bool allowedState(const KindRule &rule, const QString &state)
{
    for (const char *s : rule.states)
        if (state == QLatin1String(s))
            return true;
    return false;
}

} // namespace

const char *toString(FleetChange::Kind kind)
{
    return ruleOf(kind).name;
}

QByteArray FleetChange::toJson() const
{
    QJsonObject o{{QStringLiteral("v"), kVersion},
                  {QStringLiteral("kind"), QLatin1String(toString(kind))},
                  {QStringLiteral("instance"), instance},
                  {QStringLiteral("to"), to},
                  {QStringLiteral("at_ms"), qint64(atWallMillis)}};
    if (kind == Kind::Key) {
        o.insert(QStringLiteral("provider"), provider);
        o.insert(QStringLiteral("key"), keyFingerprint);
    } else {
        o.insert(QStringLiteral("channel"), channel);
    }
    if (!reason.isEmpty())
        o.insert(QStringLiteral("reason"), reason);
    if (untilWallMillis)
        o.insert(QStringLiteral("until_ms"), qint64(untilWallMillis));
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

std::optional<FleetChange> FleetChange::fromJson(const QByteArray &json, QString *error)
{
    if (json.size() > kMaxBytes) {
        *error = QStringLiteral("a fleet message of %1 bytes (at most %2)").arg(json.size()).arg(kMaxBytes);
        return std::nullopt;
    }
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(json, &parseError);
    if (!document.isObject()) {
        *error = QStringLiteral("a fleet message that is not a JSON object (%1)").arg(parseError.errorString());
        return std::nullopt;
    }
    const QJsonObject o = document.object();
    if (o.value(QStringLiteral("v")).toInt() != kVersion) {
        *error = QStringLiteral("a fleet message of version %1 (this instance reads %2)").arg(o.value(QStringLiteral("v")).toVariant().toString()).arg(kVersion);
        return std::nullopt;
    }
    FleetChange change;
    const QString kind = o.value(QStringLiteral("kind")).toString();
    const KindRule *rule = nullptr;
    for (const KindRule &r : kRules)
        if (kind == QLatin1String(r.name))
            rule = &r;
    if (!rule) {
        *error = QStringLiteral("a fleet message of unknown kind \"%1\"").arg(kind.left(40));
        return std::nullopt;
    }
    change.kind = rule->kind;
    change.instance = o.value(QStringLiteral("instance")).toString();
    change.to = o.value(QStringLiteral("to")).toString();
    change.reason = o.value(QStringLiteral("reason")).toString();
    change.atWallMillis = o.value(QStringLiteral("at_ms")).toInteger();
    change.untilWallMillis = o.value(QStringLiteral("until_ms")).toInteger();
    if (change.kind == Kind::Key) {
        change.provider = o.value(QStringLiteral("provider")).toString();
        change.keyFingerprint = o.value(QStringLiteral("key")).toString();
    } else {
        change.channel = o.value(QStringLiteral("channel")).toString();
    }
    const bool named = change.kind == Kind::Key ? !change.provider.isEmpty() && !change.keyFingerprint.isEmpty() : !change.channel.isEmpty();
    if (change.instance.isEmpty() || !named) {
        *error = QStringLiteral("a %1 message without its instance or what it is about").arg(kind);
        return std::nullopt;
    }
    if (!allowedState(*rule, change.to)) {
        *error = QStringLiteral("a %1 message with the state \"%2\"").arg(kind, change.to.left(40));
        return std::nullopt;
    }
    error->clear();
    return change;
}

QByteArray FleetChange::stateKey(const QByteArray &prefix) const
{
    switch (kind) {
    case Kind::Breaker:
        return prefix + "breaker:" + channel.toUtf8();
    case Kind::Pool:
        return prefix + "pool:" + channel.toUtf8();
    case Kind::Key:
        return prefix + "key:" + provider.toUtf8() + ':' + keyFingerprint.toUtf8();
    }
    return prefix;
}

QString keyFingerprint(const QString &secret)
{
    return QString::fromLatin1(QCryptographicHash::hash(secret.toUtf8(), QCryptographicHash::Sha256).toHex().left(16));
}

} // namespace sb
