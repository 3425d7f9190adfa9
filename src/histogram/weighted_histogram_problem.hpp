// The weighted histogram as the harness sees it: one case = (weight type, distribution, n, m) with
// int32 values of the histogram problem's distributions and random weights in [-1, 1), each bin
// checked against the compensated serial sums; the ladder = global float atomics (what PyTorch's
// bincount does), the library's warp-owned sub-histograms with lanes grouped by ballots, then the
// library (grouped by __match_any_sync; sorted by bin past shared memory): the same bits every call.
#pragma once

#include "core/dtype.hpp"
#include "core/ladder.hpp"
#include "core/problem.hpp"
#include "histogram/histogram_cpu.hpp"

#include <gpulab/device_buffer.hpp>

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

namespace gpulab {

/// A weighted-histogram rung's launch functions.
template <class W>
struct WeightedHistogramOps {
  std::size_t (*workspace_bytes)(std::size_t n, std::uint32_t m) = nullptr;
  void (*run)(const std::int32_t* values, const W* weights, std::size_t n, std::uint32_t m, W* sums, void* workspace,
              std::size_t workspace_bytes, cudaStream_t stream) = nullptr;
  /// Whether each weight is added to its bin in W, one at a time (float atomics): the check then
  /// allows a chain of as many additions in W as the bin has values, not the library's in double.
  bool sums_in_w = false;
  /// Whether it takes only m ≤ histogram_weighted_max_bins() (a warp's sub-histogram in shared memory).
  bool shared_memory_only = false;
};

template <class W>
using WeightedHistogramRung = Rung<WeightedHistogramOps<W>>;

template <class W>
std::span<const WeightedHistogramRung<W>> weighted_histogram_rungs();

inline constexpr DType kWeightedHistogramTypes[] = {DType::float32, DType::float64};

struct WeightedHistogramSpec {
  HistogramDistribution distribution = HistogramDistribution::uniform;
  std::size_t n = 0;
  std::uint32_t m = 256;
  std::uint64_t seed = 1;
};

template <class W>
class WeightedHistogramCase final : public BenchCase {
 public:
  explicit WeightedHistogramCase(WeightedHistogramSpec spec);

  std::vector<std::pair<std::string, std::string>> params() const override;
  Work work() const override;
  std::vector<InputArray> inputs() const override;
  std::vector<OutputArray> outputs() const override;
  std::string reference_name() const override { return "serial reference (compensated)"; }
  std::string baseline_name() const override { return "serial CPU"; }
  void compute_reference() override;
  void run_baseline() override;
  CheckResult check_baseline() const override;
  std::optional<std::string> unsupported(std::size_t rung) const override;
  std::size_t workspace_bytes(std::size_t rung) const override;
  void launch(std::size_t rung, const Arrays& arrays, Workspace workspace, cudaStream_t stream) const override;
  CheckResult check(std::size_t rung, std::span<const std::span<const std::byte>> outputs) const override;

 private:
  WeightedHistogramSpec spec_;
  PinnedBuffer<std::int32_t> values_;
  PinnedBuffer<W> weights_;
  WeightedHistogram ref_;
  std::vector<W> baseline_;
};

std::unique_ptr<Problem> make_weighted_histogram_problem();

}  // namespace gpulab
