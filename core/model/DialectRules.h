#pragma once

#include <QString>
#include <QStringList>
#include <QStringView>

#include <vector>

namespace sb {

// What the configuration has to know about each upstream dialect to refuse a provider that cannot
// work (ARCHITECTURE.md, "Configuration"). The adapters themselves live in providers/, a layer
// above model/, so their list (ProviderRegistry.cpp) and this one are two; tst_ProviderRegistry
// keeps them equal.
struct DialectRule {
    QString name;    // as the configuration spells it: "anthropic"
    QString service; // as a sentence names it: "Anthropic"
    // Whether the provider's own service refuses every request without a key. OpenAI-compatible
    // servers do not all: Ollama, vLLM, llama.cpp and LM Studio run without one.
    bool needsKey = false;
};

// In the order the provider dialog offers them.
const std::vector<DialectRule> &dialectRules();
const DialectRule *findDialectRule(QStringView name); // nullptr for an unknown name
QStringList knownDialectNames();

// The known dialect a mistyped or colloquial name most likely means ("openai" → "openai_compat",
// "Anthropic" → "anthropic", "claude" → "anthropic"); empty when none is close.
QString nearestDialect(QStringView given);

// True for a base URL on this machine (localhost, 127.0.0.0/8, ::1): the simulator, or a local
// relay that holds the provider's key itself, answers whatever key it is sent.
bool isLocalBaseUrl(const QString &url);

// Whether a provider cannot work for want of a key: enabled, of a dialect that needs one, not on
// this machine, and `usableKeys` is 0. (A disabled provider may wait for its keys.)
bool lacksNeededKey(const QString &dialect, const QString &baseUrl, bool enabled, int usableKeys);

// The sentences a refusal says, the same in an import, a save, a dialog and `--config`.
// `provider` is the provider's name; "Provider \"x\": unknown dialect \"openai\"; did you mean …".
QString unknownDialectSentence(const QString &provider, const QString &given);
QString missingKeySentence(const QString &provider, const QString &dialect);

} // namespace sb
