#include "sim/LoadSchedule.h"

#include <cmath>

namespace sb::sim {

std::vector<PlannedRequest> LoadSchedule::plan(const LoadSpec &load, Random &random)
{
    std::vector<PlannedRequest> out;
    if (load.rate <= 0.0 || load.duration <= 0.0)
        return out;
    out.reserve(static_cast<std::size_t>(load.rate * load.duration * 1.2) + 16);
    double total = 0.0;
    for (const ModelWeight &m : load.models)
        total += m.weight;
    double t = 0.0;
    for (;;) {
        if (load.process == LoadSpec::Process::Poisson)
            t += -std::log(1.0 - random.uniform01()) / load.rate;
        else // by index, not by summing 1/rate: the sum drifts and adds a request at the end
            t = static_cast<double>(out.size()) / load.rate;
        if (t >= load.duration)
            break;
        PlannedRequest r;
        r.at = t;
        if (!load.models.empty()) {
            double x = random.uniform01() * total;
            r.model = load.models.back().model;
            for (const ModelWeight &m : load.models) {
                if (x < m.weight) {
                    r.model = m.model;
                    break;
                }
                x -= m.weight;
            }
        }
        r.stream = random.chance(load.streamRatio);
        out.push_back(r);
    }
    return out;
}

} // namespace sb::sim
