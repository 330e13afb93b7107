#include "common/ThreadSnapshot.h"

namespace sb {

std::uint64_t nextThreadSnapshotVersion()
{
    static std::atomic<std::uint64_t> versions{0};
    return versions.fetch_add(1, std::memory_order_relaxed) + 1;
}

} // namespace sb
