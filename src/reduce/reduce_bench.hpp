// `gpulab bench reduce`: every selected rung, the vendor and the CPU baselines, checked and then
// timed on the same random input, for each (type, n).
#pragma once

#include "core/ceilings.hpp"
#include "core/device_info.hpp"
#include "core/dtype.hpp"
#include "core/report.hpp"

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace gpulab {

struct ReduceBenchConfig {
  std::vector<std::size_t> sizes{std::size_t{1} << 20, std::size_t{1} << 24, std::size_t{1} << 28};
  std::vector<DType> types{DType::int32, DType::float32, DType::float64};
  unsigned block = 256;               // rungs 1–7 (seed 003 used 64, seed 000 1024)
  std::vector<std::string> variants;  // ids ("1", "vendor") or names; empty: all
  int reps = 30;
  int warmup = 3;
  int end_to_end_reps = 3;
  std::uint64_t seed = 1;
  bool cpu = true;                    // run the CPU reference timing and the OpenMP baseline
};

/// The minimum bytes a sum must move: every element read once, one value written.
template <class T>
constexpr double reduce_bytes_moved(std::size_t n) {
  return static_cast<double>(n * sizeof(T) + sizeof(T));
}

/// Throws gpulab::Error for an unknown variant name or a bad block size, before any GPU work.
void validate(const ReduceBenchConfig& config);

std::vector<CaseResult> bench_reduce(const ReduceBenchConfig& config, const DeviceFacts& device,
                                     const Ceilings* ceilings, std::ostream& progress);

}  // namespace gpulab
