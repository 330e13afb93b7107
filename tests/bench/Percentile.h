#pragma once

#include <vector>

namespace sb::bench {

// The value at fraction `q` (0.5 = median) of `values`, the nearest rank rounded half up; 0 when
// there are none.
double percentile(std::vector<double> values, double q);

} // namespace sb::bench
