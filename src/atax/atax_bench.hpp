// `gpulab bench atax`: every rung, cuBLAS and the CPU baselines on the same random matrix, for
// each shape (COLSxROWS, the seed's naming).
#pragma once

#include "atax/atax_cpu.hpp"
#include "atax/atax_file.hpp"
#include "core/ceilings.hpp"
#include "core/device_info.hpp"
#include "core/report.hpp"

#include <iosfwd>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpulab {

struct AtaxBenchConfig {
  // The seed's runs: 512x768 (its test 332), 1664x1792, 1024x1024, 8960x17920 (its test 333),
  // 12288x1024 and 1024x12288.
  std::vector<AtaxShape> shapes{{512, 768}, {1664, 1792}, {1024, 1024}, {8960, 17920}, {12288, 1024}, {1024, 12288}};
  std::vector<std::string> variants;  // ids or names; empty: all
  int reps = 20;
  int warmup = 3;
  int end_to_end_reps = 3;
  std::uint64_t seed = 1;
  bool cpu = true;
};

/// "8960x17920" → {cols 8960, rows 17920}; nullopt when malformed or out of range.
std::optional<AtaxShape> parse_atax_shape(std::string_view s);

/// The minimum bytes: A read once, x read, y written.
constexpr double atax_bytes_moved(AtaxShape s) {
  return 4.0 * (static_cast<double>(s.elements()) + 2.0 * s.cols);
}

void validate(const AtaxBenchConfig& config);

std::vector<CaseResult> bench_atax(const AtaxBenchConfig& config, const DeviceFacts& device, const Ceilings* ceilings,
                                   std::ostream& progress);

/// check_atax with the bound that holds for any summation order (k_t = cols + 1, k_y = rows + 1).
CheckResult check_atax_any_order(std::span<const float> y, const AtaxReference& ref, AtaxShape shape);

}  // namespace gpulab
