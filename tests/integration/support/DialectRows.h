#pragma once

#include <QStringList>

namespace sb::test {

// The upstream dialects the simulator speaks, for tests that hold every dialect to one rule.
const QStringList &simDialects();

// Data rows "<dialect> whole" and "<dialect> stream" with the columns `dialect` (QString) and
// `stream` (bool), for a test function's _data().
void addDialectStreamRows();

} // namespace sb::test
