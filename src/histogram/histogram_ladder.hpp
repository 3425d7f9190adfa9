// The histogram ladder's table: the only place a rung is registered. The bench, the tests, the
// CLI's `list` and the reports all walk this table; adding a rung = one kernel + one line here.
#pragma once

#include "core/ladder.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace gpulab {

/// A histogram rung's launch functions (core/ladder.hpp adds its name, what it adds and its role).
struct HistogramOps {
  /// Whether the rung can count n values into m bins on the current device (shared-memory rungs
  /// cannot hold every m; the register rung takes m ≤ 8; CUB's counters must stay under 2^31).
  bool (*supports)(std::size_t n, std::uint32_t m) = nullptr;
  /// Device workspace the run needs (no zeroing needed: the run prepares it).
  std::size_t (*workspace_bytes)(std::size_t n, std::uint32_t m, unsigned block) = nullptr;
  /// counts[0, m) = the histogram of values[0, n), asynchronously on `stream`; counts need not
  /// be zeroed first.
  void (*run)(const std::int32_t* values, std::size_t n, std::uint32_t m, std::uint32_t* counts, void* workspace,
              std::size_t workspace_bytes, unsigned block, cudaStream_t stream) = nullptr;
};

using HistogramRung = Rung<HistogramOps>;

/// The seed's four rungs, the lane-replicated one, the library's paths and its choice among them
/// (gpulab::histogram), then the vendor (cub::DeviceHistogram::HistogramEven over the bins).
std::span<const HistogramRung> histogram_rungs();

/// Rungs 1–5 take any multiple of 32 up to 1024 threads per block (the seed used 1024).
constexpr bool valid_histogram_block(unsigned block) {
  return block >= 32 && block <= 1024 && block % 32 == 0;
}

}  // namespace gpulab
