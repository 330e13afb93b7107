#include "DrillCatalog.h"

#include <QDir>

#include <algorithm>

// The resources live in a static library: without this the linker may drop them from a binary that
// never names them (a test). Q_INIT_RESOURCE must be called outside any namespace.
static void initDrillResources()
{
    Q_INIT_RESOURCE(resources);
}

namespace sb {

std::vector<sim::Scenario> shippedDrills(QStringList *problems)
{
    initDrillResources();
    std::vector<sim::Scenario> drills;
    const QDir dir(QStringLiteral(":/drills"));
    for (const QString &file : dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name)) {
        QStringList errors;
        auto scenario = sim::Scenario::fromFile(dir.filePath(file), &errors);
        if (scenario)
            drills.push_back(std::move(*scenario));
        else if (problems)
            problems->append(QStringLiteral("%1: %2").arg(file, errors.join(QLatin1Char(' '))));
    }
    std::stable_partition(drills.begin(), drills.end(),
                          [](const sim::Scenario &s) { return s.name == QLatin1String("launch-day"); });
    return drills;
}

} // namespace sb
