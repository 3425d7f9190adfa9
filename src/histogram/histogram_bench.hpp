// `gpulab bench histogram`: every selected rung, the vendor and the CPU baselines, checked and
// then timed on the same input, for each (distribution or input file, n, m).
#pragma once

#include "core/ceilings.hpp"
#include "core/device_info.hpp"
#include "core/report.hpp"
#include "histogram/histogram_cpu.hpp"

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace gpulab {

struct HistogramBenchConfig {
  std::vector<std::size_t> sizes{std::size_t{1} << 26};
  std::vector<std::uint32_t> bins{8, 256, 4096, 65536, 1u << 20};
  std::vector<HistogramDistribution> distributions{HistogramDistribution::uniform, HistogramDistribution::narrow,
                                                   HistogramDistribution::degenerate};
  std::string input_file;             // raw int32 values instead of generated ones (then sizes and
                                      // distributions are not used)
  unsigned block = 256;               // threads per block of rungs 1–5 (the seed used 1024)
  std::vector<std::string> variants;  // ids ("1", "vendor") or names; empty: all
  int reps = 20;
  int warmup = 3;
  int end_to_end_reps = 3;
  int loops = 0;  // > 0: also one whole-program run per variant with LOOPS repetitions (seed 002)
  std::uint64_t seed = 1;
  bool cpu = true;  // time the serial reference and the OpenMP baseline
};

/// The minimum bytes a histogram must move: every value read once, every count written once.
constexpr double histogram_bytes_moved(std::size_t n, std::uint32_t m) {
  return static_cast<double>(n) * 4.0 + static_cast<double>(m) * 4.0;
}

/// Throws gpulab::Error for an unknown variant, a bad block size, bad counts, n ≥ 2^32, m = 0 or
/// an input file that cannot be used, before any GPU work.
void validate(const HistogramBenchConfig& config);

std::vector<CaseResult> bench_histogram(const HistogramBenchConfig& config, const DeviceFacts& device,
                                        const Ceilings* ceilings, std::ostream& progress);

}  // namespace gpulab
