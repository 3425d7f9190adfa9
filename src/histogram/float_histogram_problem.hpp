// Histograms of float values as the harness sees them: one case = (value type, form, n, m) with
// values over [-1.5, 1.5) and the awkward ones among them, counted into m equal bins over [-1, 1]
// (torch.histc's rule) or between m + 1 uneven sorted edges (torch.histogram's), each bin compared
// exactly with the serial reference; the ladder = an atomic a value in global memory, then the
// library (each value's bin made, then counted by the int32 histogram's paths).
#pragma once

#include "core/dtype.hpp"
#include "core/ladder.hpp"
#include "core/problem.hpp"

#include <gpulab/device_buffer.hpp>

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace gpulab {

/// The bins of a float histogram: equal widths over [lo, hi], or between sorted edges.
enum class FloatBins { range, edges };

/// What a float-histogram rung is given: n values of T, m bins, and either [lo, hi] or the m + 1
/// edges in device memory (nullptr for a range).
template <class T>
struct FloatHistogramArgs {
  const T* values;
  std::size_t n;
  std::uint32_t m;
  T lo, hi;
  const T* edges;
};

/// A float-histogram rung's launch function.
template <class T>
struct FloatHistogramOps {
  void (*run)(const FloatHistogramArgs<T>& args, std::uint32_t* counts, cudaStream_t stream) = nullptr;
};

template <class T>
using FloatHistogramRung = Rung<FloatHistogramOps<T>>;

template <class T>
std::span<const FloatHistogramRung<T>> float_histogram_rungs();

inline constexpr DType kFloatHistogramTypes[] = {DType::float32, DType::float64};

struct FloatHistogramSpec {
  FloatBins bins = FloatBins::range;
  std::size_t n = 0;
  std::uint32_t m = 256;
  std::uint64_t seed = 1;
};

template <class T>
class FloatHistogramCase final : public BenchCase {
 public:
  explicit FloatHistogramCase(FloatHistogramSpec spec);

  std::vector<std::pair<std::string, std::string>> params() const override;
  Work work() const override;
  std::vector<InputArray> inputs() const override;
  std::vector<OutputArray> outputs() const override;
  std::string reference_name() const override { return "serial reference"; }
  std::string baseline_name() const override { return "serial CPU"; }
  void compute_reference() override;
  void run_baseline() override;
  CheckResult check_baseline() const override;
  void launch(std::size_t rung, const Arrays& arrays, Workspace workspace, cudaStream_t stream) const override;
  CheckResult check(std::size_t rung, std::span<const std::span<const std::byte>> outputs) const override;

 private:
  std::vector<std::uint32_t> count_on_cpu() const;

  FloatHistogramSpec spec_;
  PinnedBuffer<T> values_;
  std::vector<T> edges_;
  std::vector<std::uint32_t> ref_, baseline_;
};

std::unique_ptr<Problem> make_float_histogram_problem();

}  // namespace gpulab
