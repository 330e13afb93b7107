#include "proxy/EngineContext.h"

namespace sb {

EngineContext::EngineContext(const Clock &clock, Random &random, EngineConfigPtr config)
    : m_clock(clock),
      m_random(random),
      m_router(clock, random, config),
      m_retryBudget(config->retry.budgetRatio, config->retry.budgetMinimum),
      m_retryPolicy(std::make_shared<const RetryPolicy>(config->retry))
{
}

std::shared_ptr<const RetryPolicy> EngineContext::retryPolicy() const
{
    std::lock_guard lock(m_mutex);
    return m_retryPolicy;
}

void EngineContext::setConfig(EngineConfigPtr config)
{
    auto policy = std::make_shared<const RetryPolicy>(config->retry);
    m_router.setConfig(std::move(config));
    std::lock_guard lock(m_mutex);
    m_retryPolicy = std::move(policy);
}

void EngineContext::setRequestSink(RequestSink sink)
{
    auto shared = sink ? std::make_shared<const RequestSink>(std::move(sink)) : nullptr;
    std::lock_guard lock(m_mutex);
    m_requestSink = std::move(shared);
}

void EngineContext::emitRequest(RequestRecord &&record)
{
    m_requestMetrics.record(record);
    std::shared_ptr<const RequestSink> sink;
    {
        std::lock_guard lock(m_mutex);
        sink = m_requestSink;
    }
    if (sink)
        (*sink)(std::move(record));
}

} // namespace sb
