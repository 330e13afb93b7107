#pragma once

#include <QByteArrayView>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sb::fuzz {

// The fuzz targets' entry functions. libFuzzer calls them through LLVMFuzzerTestOneInput
// (FuzzMain.cpp, one executable per target); tst_FuzzCorpora calls them directly over the committed
// corpora and crash reproducers, so every finding stays a regression test in the normal builds.
// Each returns 0; a broken invariant aborts (a crash to libFuzzer, a failed test to CTest).
int fuzzHttpRequest(const std::uint8_t *data, std::size_t size);
int fuzzHttpRequestReader(const std::uint8_t *data, std::size_t size);
int fuzzHttpResponse(const std::uint8_t *data, std::size_t size); // first byte: HEAD bit and the cuts
int fuzzSseParser(const std::uint8_t *data, std::size_t size);
int fuzzUtf8Reassembler(const std::uint8_t *data, std::size_t size);
int fuzzErrorMap(const std::uint8_t *data, std::size_t size);     // first byte picks the dialect
int fuzzStreamTranslator(const std::uint8_t *data, std::size_t size); // first byte picks the dialect
int fuzzConfigJson(const std::uint8_t *data, std::size_t size);

struct FuzzTarget {
    const char *name; // the corpus folder under tests/fuzz/corpus/ and the executable's suffix
    int (*run)(const std::uint8_t *, std::size_t);
};

// Every target, for the corpus replay.
const FuzzTarget *fuzzTargets(std::size_t *count);

// Cuts `bytes` into pieces of 1..32 bytes drawn from `seed`, the way upstreams cut streams anywhere.
std::vector<QByteArrayView> fuzzPieces(QByteArrayView bytes, std::uint8_t seed);

// Aborts with a message when an invariant does not hold; libFuzzer saves the input as a crash.
void fuzzCheck(bool condition, const char *what);

} // namespace sb::fuzz
