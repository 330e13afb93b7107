#pragma once

#include "telemetry/HistoryRecords.h"

#include <memory>
#include <optional>
#include <vector>

namespace sb {
class Gateway;
}

namespace sb::test {

// The history rows a Gateway hands on, gathered from its worker threads: what a test reads to see
// the attempts, outcomes and channels a request went through. attach() replaces the Gateway's
// request sink; the rows outlive neither this object nor the Gateway (the sink holds a weak link).
class RequestRecords {
public:
    RequestRecords();
    ~RequestRecords();

    void attach(Gateway &gateway);
    // The one row of the one request a test sent (it is recorded just after the answer); nullopt
    // when none or more than one came within `timeoutMs`.
    std::optional<RequestRecord> waitForOnly(int timeoutMs = 5000) const;
    std::vector<RequestRecord> all() const;
    void clear();

private:
    struct Rows;
    std::shared_ptr<Rows> m_rows;
};

} // namespace sb::test
