// atax as the harness sees it: one case = a matrix and a vector (random, or read from a seed 004
// file), y checked column by column against the double reference with the bound that holds for
// any summation order; the problem = its options (-s), its cases, `atax gen|run|check` and the
// seed's recorded runs.
#pragma once

#include "atax/atax_cpu.hpp"
#include "atax/atax_file.hpp"
#include "atax/atax_ladder.hpp"
#include "core/problem.hpp"

#include <memory>
#include <optional>
#include <span>
#include <string_view>

namespace gpulab {

class AtaxCase final : public BenchCase {
 public:
  explicit AtaxCase(AtaxInput input, std::span<const AtaxRung> table = atax_rungs());

  std::vector<std::pair<std::string, std::string>> params() const override;
  Work work() const override;
  std::vector<InputArray> inputs() const override;
  std::vector<OutputArray> outputs() const override;
  std::string reference_name() const override { return "serial reference (double)"; }
  void compute_reference() override;
  void run_baseline() override;
  CheckResult check_baseline() const override;
  std::size_t workspace_bytes(std::size_t rung) const override;
  void launch(std::size_t rung, const Arrays& arrays, Workspace workspace, cudaStream_t stream) const override;
  CheckResult check(std::size_t rung, std::span<const std::span<const std::byte>> outputs) const override;

  const AtaxInput& input() const { return in_; }

 private:
  AtaxInput in_;
  std::span<const AtaxRung> table_;
  AtaxReference ref_;
  std::vector<float> baseline_;
};

/// "8960x17920" → {cols 8960, rows 17920}; nullopt when malformed or out of range.
std::optional<AtaxShape> parse_atax_shape(std::string_view s);

/// check_atax with the bound that holds for any summation order (k_t = cols + 1, k_y = rows + 1).
CheckResult check_atax_any_order(std::span<const float> y, const AtaxReference& ref, AtaxShape shape);

std::unique_ptr<Problem> make_atax_problem();

/// Its form over several GPUs (multi/multi_bench.hpp): A split by rows, x on every rank.
std::unique_ptr<MultiCase> make_atax_multi(AtaxShape shape, std::uint64_t seed);


}  // namespace gpulab
