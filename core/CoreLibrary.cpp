// switchboard_core aggregates the per-folder libraries (sb_common … sb_engine); this translation
// unit only gives the aggregate a body, since CMake wants at least one source per static library.
#include "common/BuildInfo.h"

namespace sb {
const char *coreVersion() { return SB_VERSION; }
} // namespace sb
