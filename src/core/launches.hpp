// `gpulab run` and a problem's own `run` command: one rung on one case, with each kernel it launches printed as
// seed 004's program prints it (grid, block, how many blocks fit at once, what a block does) and
// its own time, for every problem alike (the launches report through lib/launch.cuh).
#pragma once

#include "core/bench.hpp"

#include <iosfwd>

namespace gpulab {

/// Times the whole rung (median of `reps`), then prints a line per kernel launch and its own time
/// (the median over `reps` runs, each after an L2 flush, with an event between consecutive
/// kernels), then the whole rung's time. The outputs are left in `arrays`.
TimingStats print_launches(const BenchCase& c, std::size_t rung, const RungInfo& info, const DeviceArrays& arrays,
                           Workspace workspace, int reps, std::size_t l2_bytes, cudaStream_t stream, std::ostream& out);

}  // namespace gpulab
