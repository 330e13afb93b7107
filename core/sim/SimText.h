#pragma once

#include "sim/Scenario.h"

#include <QByteArray>

#include <vector>

namespace sb::sim {

// The answers fake providers stream: fixed passages in English, Chinese and Vietnamese cut into
// "tokens" (a word, or one or two CJK characters), so multi-byte UTF-8 runs through every stream.
class SimText {
public:
    // `count` tokens, starting at a position derived from `seed` so answers differ between requests.
    static std::vector<QByteArray> tokens(Language language, int count, quint64 seed = 0);
    static QByteArray join(const std::vector<QByteArray> &tokens);
};

} // namespace sb::sim
