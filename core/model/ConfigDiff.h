#pragma once

#include "model/EngineConfig.h"

#include <QString>
#include <QStringList>

namespace sb {

// What replacing one configuration by another changes, said in names a user knows: the preview
// an import shows before anything is written (Settings → Import, `switchboard --import`).
// Providers, channels and routes are matched by name (the format refers to them by name; ids are
// the database's business), so a renamed one is one removed and one added.
struct ConfigDiff {
    struct Section {
        QStringList added;
        QStringList removed;
        QStringList changed; // "openai-main (base_url, keys)": the name, then the fields that differ
        bool isEmpty() const { return added.isEmpty() && removed.isEmpty() && changed.isEmpty(); }
    };
    Section providers;
    Section channels;
    Section routes;
    QStringList settings; // "health.window_s: 300 → 120"
    QStringList other;    // prices, budgets, the task-based model, the demo mark, the local token

    // The keys of the configuration it leads to, by where their secret comes from.
    int keysWithSecret = 0; // the file brings the secret
    int keysKept = 0;       // no secret in the file; the one stored under the key's id stays
    int keysToEnter = 0;    // no secret anywhere: the key must be entered again in Providers

    bool isEmpty() const;
    // One line per change, for a log or a terminal ("+ provider openai-main", "~ route gpt-4o (channels)").
    QStringList lines() const;
    // Where the secrets of the keys come from, in one sentence; empty when there are no keys.
    QString keysSentence() const;
};

// `keysWithSecret`, `keysKept` and `keysToEnter` count the keys of `after`; a key without a secret is
// kept when `before` has a key of that id under the provider of the same name.
ConfigDiff diffConfigs(const EngineConfig &before, const EngineConfig &after);

} // namespace sb
