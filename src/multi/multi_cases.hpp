// The multi-GPU forms of reduce, histogram and atax for the runner (multi/multi_bench.hpp): the
// same inputs as their one-GPU cases, split by elements (reduce, histogram) or rows (atax), checked
// against the same CPU references.
#pragma once

#include "atax/atax_file.hpp"
#include "core/dtype.hpp"
#include "histogram/histogram_cpu.hpp"
#include "multi/multi_bench.hpp"

#include <memory>

namespace gpulab {

std::unique_ptr<MultiCase> make_reduce_multi(DType type, std::size_t n, std::uint64_t seed);
std::unique_ptr<MultiCase> make_histogram_multi(HistogramDistribution d, std::size_t n, std::uint32_t m,
                                                std::uint64_t seed);
std::unique_ptr<MultiCase> make_atax_multi(AtaxShape shape, std::uint64_t seed);

}  // namespace gpulab
