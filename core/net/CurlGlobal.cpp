#include "net/CurlGlobal.h"

#include <curl/curl.h>
#include <spdlog/spdlog.h>

#include <mutex>

namespace sb {

bool CurlGlobal::ensureInitialized()
{
    static std::once_flag once;
    static bool ok = false;
    std::call_once(once, [] {
        const CURLcode code = curl_global_init(CURL_GLOBAL_DEFAULT);
        ok = code == CURLE_OK;
        if (!ok)
            spdlog::error("libcurl could not initialise ({}); upstream requests will fail", curl_easy_strerror(code));
        // No curl_global_cleanup: workers may still hold handles while static destructors run, and
        // the OS reclaims what is left at exit.
    });
    return ok;
}

bool CurlGlobal::supportsHttp2()
{
    const curl_version_info_data *info = curl_version_info(CURLVERSION_NOW);
    return info && (info->features & CURL_VERSION_HTTP2);
}

QString CurlGlobal::versionString()
{
    return QString::fromLatin1(curl_version());
}

} // namespace sb
