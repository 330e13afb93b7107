#pragma once

#include "sim/Scenario.h"

#include <QStringList>

#include <vector>

namespace sb {

// The drills shipped in the resources (:/drills/*.json), launch-day first (the one a first start
// offers), then by name. A file that does not parse is left out and named in `problems`.
std::vector<sim::Scenario> shippedDrills(QStringList *problems = nullptr);

} // namespace sb
