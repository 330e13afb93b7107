#pragma once

#include <cstdlib>
#include <cstring>

namespace sb {

// Whether the environment variable `name` is set to "0": how the workers' low-level mechanisms
// (SWITCHBOARD_IO_URING, SWITCHBOARD_IDLE_POLL) are turned off, for comparison or should one ever
// misbehave on a machine. Read where each is set up, never on a request's path.
inline bool switchedOffInEnvironment(const char *name)
{
    const char *setting = std::getenv(name);
    return setting && std::strcmp(setting, "0") == 0;
}

} // namespace sb
