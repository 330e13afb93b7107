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
    return m_retryPolicy.get();
}

void EngineContext::setConfig(EngineConfigPtr config)
{
    auto policy = std::make_shared<const RetryPolicy>(config->retry);
    m_router.setConfig(std::move(config));
    m_retryPolicy.set(std::move(policy));
}

void EngineContext::setRequestSink(RequestSink sink)
{
    m_requestSink.set(sink ? std::make_shared<const RequestSink>(std::move(sink)) : nullptr);
}

void EngineContext::emitRequest(RequestRecord &&record)
{
    m_requestMetrics.record(record);
    const std::shared_ptr<const RequestSink> sink = m_requestSink.get();
    if (sink)
        (*sink)(std::move(record));
}

} // namespace sb
