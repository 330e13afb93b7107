#include "FuzzEntries.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iterator>

namespace sb::fuzz {

const FuzzTarget *fuzzTargets(std::size_t *count)
{
    static const FuzzTarget targets[] = {
        {"http_request", &fuzzHttpRequest},
        {"http_request_reader", &fuzzHttpRequestReader},
        {"http_response", &fuzzHttpResponse},
        {"sse_parser", &fuzzSseParser},
        {"utf8_reassembler", &fuzzUtf8Reassembler},
        {"errormap", &fuzzErrorMap},
        {"stream_translator", &fuzzStreamTranslator},
        {"config_json", &fuzzConfigJson},
    };
    *count = std::size(targets);
    return targets;
}

std::vector<QByteArrayView> fuzzPieces(QByteArrayView bytes, std::uint8_t seed)
{
    std::vector<QByteArrayView> pieces;
    std::uint32_t state = seed * 2654435761u + 1;
    qsizetype at = 0;
    while (at < bytes.size()) {
        state = state * 1664525u + 1013904223u; // a fixed LCG: the same input always splits the same way
        const qsizetype length = std::min<qsizetype>(1 + (state >> 24) % 32, bytes.size() - at);
        pieces.push_back(bytes.sliced(at, length));
        at += length;
    }
    return pieces;
}

void fuzzCheck(bool condition, const char *what)
{
    if (condition)
        return;
    std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
    std::abort();
}

} // namespace sb::fuzz
