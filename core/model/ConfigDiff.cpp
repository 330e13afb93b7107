#include "model/ConfigDiff.h"

#include "model/ConfigJson.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <functional>
#include <map>

namespace sb {

namespace {

// The format's own objects (an export without secrets), keyed by name, so that two
// configurations are compared as a user would read their files.
std::vector<std::pair<QString, QJsonObject>> named(const QJsonObject &root, const char *list, const char *nameField)
{
    std::vector<std::pair<QString, QJsonObject>> out;
    for (const QJsonValue &v : root.value(QLatin1String(list)).toArray()) {
        QJsonObject o = v.toObject();
        o.remove(QStringLiteral("id")); // the database's numbering, not the configuration
        out.emplace_back(o.value(QLatin1String(nameField)).toString(), o);
    }
    return out;
}

QStringList changedFields(const QJsonObject &before, const QJsonObject &after, const QStringList &ignored)
{
    QStringList fields;
    QStringList keys = before.keys();
    for (const QString &k : after.keys())
        if (!keys.contains(k))
            keys << k;
    keys.sort();
    for (const QString &k : keys)
        if (!ignored.contains(k) && before.value(k) != after.value(k))
            fields << k;
    return fields;
}

const ProviderConfig *providerNamed(const EngineConfig &config, const QString &name)
{
    for (const auto &p : config.providers)
        if (p.name == name)
            return &p;
    return nullptr;
}

// Whether the provider's keys differ in anything but where their secret is kept: labels, switches,
// how many, or a secret the file brings that is not the one stored.
bool keysDiffer(const ProviderConfig &before, const ProviderConfig &after)
{
    if (before.keys.size() != after.keys.size())
        return true;
    for (std::size_t i = 0; i < after.keys.size(); ++i) {
        const ApiKeyConfig &a = after.keys[i];
        const ApiKeyConfig &b = before.keys[i];
        if (a.label != b.label || a.enabled != b.enabled || a.disabledReason != b.disabledReason)
            return true;
        if (a.secret.isEmpty() ? (a.id != b.id) : (a.secret != b.secret))
            return true;
    }
    return false;
}

ConfigDiff::Section diffSection(const QJsonObject &before, const QJsonObject &after, const char *list, const char *nameField,
                                const std::function<QStringList(const QString &, QStringList)> &refine = {})
{
    ConfigDiff::Section section;
    const auto b = named(before, list, nameField);
    const auto a = named(after, list, nameField);
    QHash<QString, QJsonObject> beforeByName;
    for (const auto &[name, o] : b)
        beforeByName.insert(name, o);
    QHash<QString, bool> inAfter;
    for (const auto &[name, o] : a) {
        inAfter.insert(name, true);
        const auto it = beforeByName.constFind(name);
        if (it == beforeByName.constEnd()) {
            section.added << name;
            continue;
        }
        QStringList fields = changedFields(*it, o, {QStringLiteral("keys")});
        if (refine)
            fields = refine(name, fields);
        if (!fields.isEmpty())
            section.changed << QStringLiteral("%1 (%2)").arg(name, fields.join(QStringLiteral(", ")));
    }
    for (const auto &[name, o] : b)
        if (!inAfter.contains(name))
            section.removed << name;
    return section;
}

QString valueText(const QJsonValue &v)
{
    switch (v.type()) {
    case QJsonValue::Bool: return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    case QJsonValue::Double: return QString::number(v.toDouble(), 'g', 12);
    case QJsonValue::String: return QStringLiteral("\"%1\"").arg(v.toString());
    case QJsonValue::Null:
    case QJsonValue::Undefined: return QStringLiteral("(unset)");
    default: return QString::fromUtf8(QJsonDocument::fromVariant(v.toVariant()).toJson(QJsonDocument::Compact));
    }
}

} // namespace

ConfigDiff diffConfigs(const EngineConfig &before, const EngineConfig &after)
{
    ConfigDiff diff;
    const QJsonObject b = exportConfigJson(before).json;
    const QJsonObject a = exportConfigJson(after).json;

    diff.providers = diffSection(b, a, "providers", "name", [&](const QString &name, QStringList fields) {
        const ProviderConfig *pb = providerNamed(before, name);
        const ProviderConfig *pa = providerNamed(after, name);
        if (pb && pa && keysDiffer(*pb, *pa)) {
            fields << QStringLiteral("keys");
            fields.sort();
        }
        return fields;
    });
    diff.channels = diffSection(b, a, "channels", "name");
    diff.routes = diffSection(b, a, "routes", "model");

    std::map<QString, QJsonValue> beforeSettings;
    for (const auto &[key, value] : engineSettings(before))
        beforeSettings[key] = value;
    for (const auto &[key, value] : engineSettings(after)) {
        const auto it = beforeSettings.find(key);
        const QJsonValue old = it == beforeSettings.end() ? QJsonValue() : it->second;
        if (old != value)
            diff.settings << QStringLiteral("%1: %2 → %3").arg(key, valueText(old), valueText(value));
    }

    if (before.proxy.localToken != after.proxy.localToken) {
        if (after.proxy.localToken.isEmpty())
            diff.other << QStringLiteral("The local proxy token is removed (the file has none): clients then need no token.");
        else if (before.proxy.localToken.isEmpty())
            diff.other << QStringLiteral("A local proxy token is set: clients must then send it.");
        else
            diff.other << QStringLiteral("The local proxy token changes: clients must send the new one.");
    }
    for (const char *part : {"prices", "budgets", "auto_model"})
        if (b.value(QLatin1String(part)) != a.value(QLatin1String(part)))
            diff.other << QStringLiteral("%1 change.").arg(QString::fromLatin1(part) == QLatin1String("auto_model")
                                                               ? QStringLiteral("The task-based model's tiers and rules")
                                                               : QStringLiteral("The %1").arg(QLatin1String(part)));
    if (before.demo != after.demo)
        diff.other << (after.demo ? QStringLiteral("The configuration becomes the demo configuration.")
                                  : QStringLiteral("The configuration is no longer marked as the demo."));

    for (const auto &p : after.providers) {
        const ProviderConfig *old = providerNamed(before, p.name);
        for (const auto &k : p.keys) {
            if (!k.secret.isEmpty()) {
                ++diff.keysWithSecret;
                continue;
            }
            bool stored = false;
            if (old)
                for (const auto &ok : old->keys)
                    if (ok.id == k.id && k.id > 0 && !ok.secret.isEmpty())
                        stored = true;
            ++(stored ? diff.keysKept : diff.keysToEnter);
        }
    }
    return diff;
}

bool ConfigDiff::isEmpty() const
{
    return providers.isEmpty() && channels.isEmpty() && routes.isEmpty() && settings.isEmpty() && other.isEmpty();
}

QStringList ConfigDiff::lines() const
{
    QStringList out;
    auto section = [&out](const char *what, const Section &s) {
        for (const QString &n : s.added)
            out << QStringLiteral("+ %1 %2").arg(QLatin1String(what), n);
        for (const QString &n : s.changed)
            out << QStringLiteral("~ %1 %2").arg(QLatin1String(what), n);
        for (const QString &n : s.removed)
            out << QStringLiteral("- %1 %2").arg(QLatin1String(what), n);
    };
    section("provider", providers);
    section("channel", channels);
    section("route", routes);
    for (const QString &s : settings)
        out << QStringLiteral("~ setting %1").arg(s);
    for (const QString &s : other)
        out << QStringLiteral("~ %1").arg(s);
    return out;
}

QString ConfigDiff::keysSentence() const
{
    QStringList parts;
    if (keysWithSecret > 0)
        parts << QStringLiteral("%1 with the secret from the file").arg(keysWithSecret);
    if (keysKept > 0)
        parts << QStringLiteral("%1 keeping the secret stored here").arg(keysKept);
    if (keysToEnter > 0)
        parts << QStringLiteral("%1 without a secret, to be entered again in Providers").arg(keysToEnter);
    if (parts.isEmpty())
        return QString();
    return QStringLiteral("API keys: %1.").arg(parts.join(QStringLiteral("; ")));
}

} // namespace sb
