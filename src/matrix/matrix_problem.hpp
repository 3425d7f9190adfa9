// The three matrix problems as the harness sees them: transpose, add and triangle zeroing share
// one case (a shape, a layout, random inputs in their device layout, the exact check, padding
// included) and one set of options (shapes, layouts); each has its own ladder and extra options.
#pragma once

#include "core/problem.hpp"
#include "matrix/matrix_cpu.hpp"
#include "matrix/matrix_ladder.hpp"

#include <memory>
#include <span>

namespace gpulab {

enum class MatrixOp { transpose, add, triangle };

/// Packed: rows cols·4 bytes apart. Pitched: as cudaMallocPitch lays them out.
enum class MatrixLayout { packed, pitched };

struct MatrixCaseSpec {
  MatrixOp op = MatrixOp::transpose;
  MatrixShape shape;              // of the input (transpose: of a; its output is cols x rows)
  std::size_t in_pitch = 0;       // bytes between input rows (a and b alike)
  std::size_t out_pitch = 0;      // bytes between output rows (zeroing: in_pitch)
  std::string layout = "packed";  // how the pitches were chosen, for the report
  float alpha = 1.f, beta = 1.f;  // add
  Triangle part = Triangle::upper;
  std::uint64_t seed = 1;
};

/// The pitches of `layout` for a case of `op` on `shape` (pitched: asks cudaMallocPitch).
MatrixCaseSpec matrix_case_spec(MatrixOp op, MatrixShape shape, MatrixLayout layout);

/// One configuration of a matrix problem, run with the rungs of `table` (the problem's ladder
/// unless a test passes another: the known-wrong rungs).
class MatrixCase final : public BenchCase {
 public:
  MatrixCase(MatrixCaseSpec spec, std::span<const MatrixRung> table);

  std::vector<std::pair<std::string, std::string>> params() const override;
  Work work() const override;
  std::vector<InputArray> inputs() const override;
  std::vector<OutputArray> outputs() const override;
  std::string reference_name() const override { return "serial reference"; }
  void compute_reference() override;
  void run_baseline() override;
  CheckResult check_baseline() const override;
  std::optional<std::string> unsupported(std::size_t rung) const override;
  bool in_place(std::size_t rung) const override { return table_[rung].in_place; }
  void launch(std::size_t rung, const Arrays& arrays, Workspace workspace, cudaStream_t stream) const override;
  CheckResult check(std::size_t rung, std::span<const std::span<const std::byte>> outputs) const override;

 private:
  MatrixShape out_shape() const;
  void compute(HostMatrix& out, bool parallel) const;

  MatrixCaseSpec spec_;
  std::span<const MatrixRung> table_;
  HostMatrix a_, b_;  // b_: add's second input
  HostMatrix ref_, baseline_;
};

/// The rungs of `op`'s ladder.
std::span<const MatrixRung> matrix_rungs(MatrixOp op);

std::unique_ptr<Problem> make_matrix_problem(MatrixOp op);

}  // namespace gpulab
