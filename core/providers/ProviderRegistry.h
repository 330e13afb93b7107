#pragma once

#include "providers/ProviderAdapter.h"

#include <QStringList>
#include <QStringView>

#include <vector>

namespace sb {

// The one place that lists the provider dialects (ARCHITECTURE.md, "House style"). Adapters are
// stateless and const, so one instance of each serves every worker thread.
class ProviderRegistry {
public:
    // nullptr for an unknown dialect name (a config typo, a dialect from a newer version).
    static const ProviderAdapter *find(QStringView dialect);
    // In the order the provider dialog offers them.
    static std::vector<const ProviderAdapter *> all();
    static QStringList dialects();
};

} // namespace sb
