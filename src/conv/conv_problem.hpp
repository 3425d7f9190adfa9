// The 3×3 filter as the harness sees it: one case = an RGB image (generated or read from a file),
// a filter, a border rule and the rows' layout; every rung's bytes compared with the CPU's. The
// problem = its options, its cases and `conv gen|run|check`.
#pragma once

#include "conv/conv_cpu.hpp"
#include "conv/conv_ladder.hpp"
#include "conv/image.hpp"
#include "core/problem.hpp"

#include <gpulab/multi_gpu.hpp>

#include <memory>
#include <optional>
#include <span>

namespace gpulab {

class ConvCase final : public BenchCase {
 public:
  /// `pitch`: bytes between rows of the input and the output on the device (0: packed). Run with the
  /// rungs of `table` (the ladder unless a test passes another: the known-wrong rungs).
  ConvCase(RgbImage image, Filter3x3 filter, Border border, std::size_t pitch = 0,
           std::span<const ConvRung> table = conv_rungs());

  std::vector<std::pair<std::string, std::string>> params() const override;
  Work work() const override;
  std::vector<InputArray> inputs() const override;
  std::vector<OutputArray> outputs() const override;
  std::string reference_name() const override { return "serial reference"; }
  void compute_reference() override;
  void run_baseline() override;
  CheckResult check_baseline() const override;
  std::optional<std::string> unsupported(std::size_t rung) const override;
  void launch(std::size_t rung, const Arrays& arrays, Workspace workspace, cudaStream_t stream) const override;
  CheckResult check(std::size_t rung, std::span<const std::span<const std::byte>> outputs) const override;

  const RgbImage& image() const { return in_; }
  /// The output as an image (from a read-back output of this case).
  RgbImage output_image(std::span<const std::byte> bytes) const;

 private:
  std::span<const ConvRung> table_;
  RgbImage in_;  // in the device layout (its pitch)
  Filter3x3 filter_;
  Border border_;
  std::int32_t weights_reversed_[9];  // input 1: NPP's order
  RgbImage ref_, baseline_;
  mutable std::optional<RgbImage> ref_toward_zero_;  // the vendor's rule, made when first needed
};

std::unique_ptr<Problem> make_conv_problem();

/// Its form over several GPUs (multi/multi_bench.hpp): a generated packed image filtered in bands of
/// rows, the result gathered on every rank, or each rank keeping its own rows.
std::unique_ptr<MultiCase> make_conv_multi(std::size_t width, std::size_t height, const Filter3x3& filter, Border border,
                                           std::uint64_t seed, multi::Gather gather = multi::Gather::all);


}  // namespace gpulab
