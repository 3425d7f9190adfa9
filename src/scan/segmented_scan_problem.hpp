// The segmented scan as the harness sees it: one case = (type, kind, n, mean segment length) with
// random values and segment starts, checked element by element against the serial reference; the
// ladder = the library's one pass against CUB's scan by key.
#pragma once

#include "core/dtype.hpp"
#include "core/ladder.hpp"
#include "core/problem.hpp"
#include "scan/scan_cpu.hpp"

#include <gpulab/device_buffer.hpp>
#include <gpulab/scan.hpp>

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <span>

namespace gpulab {

/// A segmented-scan rung's launch functions: the values, each element's head flag (a segment starts
/// where it is nonzero) and its segment's number (the keys CUB's scan by key takes).
template <class T>
struct SegmentedScanOps {
  std::size_t (*workspace_bytes)(std::size_t n) = nullptr;
  void (*run)(const T* in, const std::uint8_t* heads, const std::int32_t* keys, T* out, std::size_t n, ScanKind kind,
              void* workspace, std::size_t workspace_bytes, cudaStream_t stream) = nullptr;
  ScanDepth (*depth)(std::size_t n) = nullptr;
};

template <class T>
using SegmentedScanRung = Rung<SegmentedScanOps<T>>;

/// The ladder: the library, then the vendor (cub::DeviceScan's scan by key).
template <class T>
std::span<const SegmentedScanRung<T>> segmented_scan_rungs();

/// The types the ladder runs (those CUB's scan by key sums in their own type).
inline constexpr DType kSegmentedScanTypes[] = {DType::int32, DType::float32, DType::float64};

struct SegmentedScanSpec {
  std::size_t n = 0;
  ScanKind kind = ScanKind::inclusive;
  std::size_t mean_segment = 1000;  // segments' mean length (element 0 always starts one)
  std::uint64_t seed = 1;
};

template <class T>
class SegmentedScanCase final : public BenchCase {
 public:
  using Ref = scan_ref_t<T>;

  explicit SegmentedScanCase(SegmentedScanSpec spec);

  std::vector<std::pair<std::string, std::string>> params() const override;
  Work work() const override;
  std::vector<InputArray> inputs() const override;
  std::vector<OutputArray> outputs() const override;
  std::string reference_name() const override { return "serial reference (compensated)"; }
  std::string baseline_name() const override { return "serial CPU"; }
  void compute_reference() override;
  void run_baseline() override;
  CheckResult check_baseline() const override;
  std::size_t workspace_bytes(std::size_t rung) const override;
  void launch(std::size_t rung, const Arrays& arrays, Workspace workspace, cudaStream_t stream) const override;
  CheckResult check(std::size_t rung, std::span<const std::span<const std::byte>> outputs) const override;

 private:
  std::span<const T> values() const { return {values_.data(), spec_.n}; }
  std::span<const std::uint8_t> heads() const { return {heads_.data(), spec_.n}; }

  SegmentedScanSpec spec_;
  PinnedBuffer<T> values_;
  PinnedBuffer<std::uint8_t> heads_;
  PinnedBuffer<std::int32_t> keys_;
  std::unique_ptr<Ref[]> ref_;
  std::unique_ptr<T[]> baseline_;
};

/// Segment starts for n elements about `mean` ≥ 1 apart (element 0 always one), as head flags (an
/// assorted nonzero byte each) and, where `keys` is not null, as each element's segment number
/// (consecutive, so that adjacent segments differ even where the numbers wrap past int32).
void segment_starts(std::size_t n, std::size_t mean, std::uint64_t seed, std::uint8_t* heads, std::int32_t* keys = nullptr);

std::unique_ptr<Problem> make_segmented_scan_problem();

}  // namespace gpulab
