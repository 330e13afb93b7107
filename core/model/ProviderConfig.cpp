#include "model/ProviderConfig.h"

namespace sb {

bool FailureDomain::sharesAnyWith(const FailureDomain &other) const
{
    auto same = [](const QString &a, const QString &b) { return !a.isEmpty() && a == b; };
    return same(account, other.account) || same(region, other.region) || same(egressProxy, other.egressProxy);
}

} // namespace sb
