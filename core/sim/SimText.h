#pragma once

#include "sim/Scenario.h"

#include <QByteArray>

#include <optional>
#include <vector>

namespace sb::sim {

// The answers fake providers stream: fixed passages in English, Chinese and Vietnamese cut into
// "tokens" (a word, or one or two CJK characters), so multi-byte UTF-8 runs through every stream.
class SimText {
public:
    // Seeds are taken modulo this: every answer there is comes from a seed below it.
    static constexpr quint64 kDistinctSeeds = 4096;
    // `count` tokens, starting at a position derived from `seed` so answers differ between requests.
    static std::vector<QByteArray> tokens(Language language, int count, quint64 seed = 0);
    static QByteArray join(const std::vector<QByteArray> &tokens);
    // The rest of an answer of `count` tokens that begins with `partial`, as tokens (the first one
    // may be the end of a token `partial` stops inside), preceded by the last `overlap`
    // characters of `partial`: none when `partial` is the whole answer and `overlap` 0. The
    // answer is looked for in `language`'s passage first, then in every other one (a provider
    // continues another's answer in that answer's language); std::nullopt when none begins with it.
    static std::optional<std::vector<QByteArray>> continuation(Language language, int count, const QByteArray &partial, int overlap);

private:
    // The same, in `language`'s passage alone.
    static std::optional<std::vector<QByteArray>> continuationIn(Language language, int count, const QByteArray &partial, int overlap);
};

} // namespace sb::sim
