#include "model/RouteConfig.h"

namespace sb {

const char *toString(RoutingStrategy strategy)
{
    switch (strategy) {
    case RoutingStrategy::Health: return "health";
    case RoutingStrategy::Weighted: return "weighted";
    case RoutingStrategy::Latency: return "latency";
    case RoutingStrategy::Priority: return "priority";
    case RoutingStrategy::RoundRobin: return "round-robin";
    }
    return "health";
}

bool routingStrategyFromString(QStringView text, RoutingStrategy *out)
{
    for (auto s : {RoutingStrategy::Health, RoutingStrategy::Weighted, RoutingStrategy::Latency,
                   RoutingStrategy::Priority, RoutingStrategy::RoundRobin}) {
        if (text.compare(QLatin1String(toString(s)), Qt::CaseInsensitive) == 0) {
            *out = s;
            return true;
        }
    }
    return false;
}

} // namespace sb
