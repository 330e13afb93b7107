#include "RequestRecords.h"

#include "control/Gateway.h"

#include <QtTest>

#include <mutex>

namespace sb::test {

struct RequestRecords::Rows {
    mutable std::mutex mutex;
    std::vector<RequestRecord> records;
};

RequestRecords::RequestRecords()
    : m_rows(std::make_shared<Rows>())
{
}

RequestRecords::~RequestRecords() = default;

void RequestRecords::attach(Gateway &gateway)
{
    clear();
    std::weak_ptr<Rows> weak = m_rows;
    gateway.context().setRequestSink([weak](RequestRecord &&record) {
        if (auto rows = weak.lock()) {
            std::lock_guard lock(rows->mutex);
            rows->records.push_back(std::move(record));
        }
    });
}

std::optional<RequestRecord> RequestRecords::waitForOnly(int timeoutMs) const
{
    const auto one = [this] {
        std::lock_guard lock(m_rows->mutex);
        return m_rows->records.size() == 1;
    };
    if (!QTest::qWaitFor(one, timeoutMs))
        return std::nullopt;
    std::lock_guard lock(m_rows->mutex);
    return m_rows->records.front();
}

std::vector<RequestRecord> RequestRecords::all() const
{
    std::lock_guard lock(m_rows->mutex);
    return m_rows->records;
}

void RequestRecords::clear()
{
    std::lock_guard lock(m_rows->mutex);
    m_rows->records.clear();
}

} // namespace sb::test
