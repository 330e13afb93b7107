#pragma once

#include <QString>

namespace sb {

// libcurl's process-wide state. curl_global_init is not thread-safe and must run once before any
// handle exists on any thread; every UpstreamClient calls ensureInitialized(), so the first worker
// to start pays for it and the others wait on the same once-flag.
class CurlGlobal {
public:
    // Returns false (and logs why) when libcurl could not initialise; no transfer can work then.
    static bool ensureInitialized();
    // What the linked libcurl can do, for the About box and the startup log line.
    static bool supportsHttp2();
    static QString versionString();
};

} // namespace sb
