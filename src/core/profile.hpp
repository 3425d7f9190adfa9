// `gpulab profile`: the problem's cases run twice, once under Nsight Compute for the counters and
// once by the harness for the times and checks, and the counters go on the rows of the report.
// Under ncu the same program runs with --ncu-target: each selected rung of each case is launched
// once untimed (lazy loading, first-call setup), then once more inside an NVTX range that ncu's
// filter selects, so that ncu measures exactly one run of each rung (all of its kernels) and
// nothing of the harness (poisoning, copies, checks).
#pragma once

#include "core/bench.hpp"
#include "core/counters.hpp"
#include "core/ladder.hpp"

#include <span>
#include <string>
#include <vector>

namespace gpulab {

/// The target's side: launches each rung of `rungs` the case supports, the second time inside the
/// range profile_range_name(case_index, rung).
void launch_for_profiler(const BenchCase& c, std::size_t case_index, std::span<const std::size_t> rungs,
                         const DeviceFacts& device);

/// ncu's command line around `target` (a gpulab command line ending in --ncu-target): CSV of the
/// raw page, the counters' metrics, NVTX ranges of the domain "gpulab" only, clocks left as the
/// bench runs them.
std::vector<std::string> ncu_command(const std::string& ncu, const std::vector<std::string>& target);

/// Hands each row of the report's cases (from `first_case` on, in the order the target made them)
/// the kernels ncu measured inside its range. Returns how many rows got counters.
std::size_t attach_counters(std::vector<CaseResult>& cases, std::size_t first_case, const ProfiledKernels& kernels,
                            std::span<const RungInfo> ladder);

}  // namespace gpulab
