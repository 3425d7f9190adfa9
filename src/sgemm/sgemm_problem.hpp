// SGEMM as the harness sees it: one case = a shape, alpha, beta, a row padding and random inputs;
// every rung checked against the double reference with its arithmetic's bound (sgemm_cpu.hpp).
#pragma once

#include "core/problem.hpp"
#include "sgemm/sgemm_cpu.hpp"
#include "sgemm/sgemm_ladder.hpp"

#include <memory>
#include <span>

namespace gpulab {

class SgemmCase final : public BenchCase {
 public:
  /// `form`: how A and B are stored on the device (the reference and the check are op(A)·op(B)'s,
  /// from the input as it is); rungs that read operands as stored only are skipped in other forms.
  /// `more`: further members of a strided batch of the same shape (each operand's members laid end
  /// to end), run by the rungs that take batches.
  SgemmCase(SgemmInput input, std::uint64_t seed, std::span<const SgemmRung> table = sgemm_rungs(), SgemmForm form = {},
            std::vector<SgemmInput> more = {});

  std::vector<std::pair<std::string, std::string>> params() const override;
  Work work() const override;
  std::vector<InputArray> inputs() const override;
  std::vector<OutputArray> outputs() const override;
  std::string reference_name() const override;
  void compute_reference() override;
  void run_baseline() override;
  CheckResult check_baseline() const override;
  std::optional<std::string> unsupported(std::size_t rung) const override;
  /// beta ≠ 0: C starts as C₀ (input 0), so every rung runs "in place" on it.
  bool in_place(std::size_t) const override { return in_.beta != 0.f; }
  void launch(std::size_t rung, const Arrays& arrays, Workspace workspace, cudaStream_t stream) const override;
  CheckResult check(std::size_t rung, std::span<const std::span<const std::byte>> outputs) const override;

  const SgemmInput& input() const { return in_; }

 private:
  /// Member i of the batch (0: in_).
  const SgemmInput& member(std::size_t i) const { return i == 0 ? in_ : more_[i - 1]; }
  std::size_t batch() const { return 1 + more_.size(); }

  SgemmInput in_;
  std::uint64_t seed_;
  std::span<const SgemmRung> table_;
  SgemmForm form_;
  std::vector<SgemmInput> more_;
  std::vector<float> a_all_, b_all_, c_all_;  // every member's operands as the device holds them, end to end
  std::size_t lda_ = 0, ldb_ = 0;             // the stored operands' leading dimensions
  std::vector<SgemmReference> refs_;          // a member's each
  std::vector<std::vector<float>> baselines_;
};

std::unique_ptr<Problem> make_sgemm_problem();

/// Its form over several GPUs (multi/multi_bench.hpp): C = alpha·A·B (beta 0, packed), A split by rows,
/// C gathered on every rank.
std::unique_ptr<MultiCase> make_sgemm_multi(SgemmShape shape, float alpha, std::uint64_t seed);


}  // namespace gpulab
