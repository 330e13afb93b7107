#include "net/EasyHandlePool.h"

#include <curl/curl.h>

namespace sb {

EasyHandlePool::~EasyHandlePool()
{
    for (CURL *easy : m_idle)
        curl_easy_cleanup(easy);
}

CURL *EasyHandlePool::take()
{
    if (m_idle.empty())
        return curl_easy_init();
    CURL *easy = m_idle.back();
    m_idle.pop_back();
    return easy;
}

void EasyHandlePool::give(CURL *easy)
{
    if (!easy)
        return;
    if (m_idle.size() >= kMaxIdle) {
        curl_easy_cleanup(easy);
        return;
    }
    curl_easy_reset(easy);
    m_idle.push_back(easy);
}

} // namespace sb
