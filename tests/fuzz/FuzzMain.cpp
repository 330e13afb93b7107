// One libFuzzer executable per target: SB_FUZZ_ENTRY names the entry function (tests/fuzz/CMakeLists.txt).
#include "FuzzEntries.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    return sb::fuzz::SB_FUZZ_ENTRY(data, size);
}
