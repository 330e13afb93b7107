#pragma once

#include <cstddef>
#include <vector>

typedef void CURL;

namespace sb {

// The idle libcurl easy handles of one UpstreamClient (one worker thread). Creating and freeing a
// handle for every transfer cost ~15,000 instructions a request (curl_easy_init + curl_easy_cleanup,
// callgrind). A handle given back is reset to libcurl's defaults at once (curl_easy_reset: no
// option of the finished transfer, no pointer into it, survives) and handed out again.
// Not thread-safe: used from its client's thread only.
class EasyHandlePool {
public:
    EasyHandlePool() = default;
    ~EasyHandlePool(); // cleans up the idle handles
    EasyHandlePool(const EasyHandlePool &) = delete;
    EasyHandlePool &operator=(const EasyHandlePool &) = delete;

    // An idle handle, or a new one; nullptr when libcurl cannot make one.
    CURL *take();
    // A handle no multi handle holds any more. Kept up to kMaxIdle; beyond that cleaned up.
    void give(CURL *easy);

    std::size_t idleCount() const { return m_idle.size(); }

    static constexpr std::size_t kMaxIdle = 256;

private:
    std::vector<CURL *> m_idle;
};

} // namespace sb
