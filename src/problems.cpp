// The problem registry: one line a problem. Adding a problem = its folder, one line here and its
// lines in CMakeLists.txt (docs/adding.md).
#include "core/problem.hpp"

#include "atax/atax_problem.hpp"
#include "conv/conv_problem.hpp"
#include "histogram/float_histogram_problem.hpp"
#include "histogram/histogram_problem.hpp"
#include "histogram/weighted_histogram_problem.hpp"
#include "matrix/matrix_problem.hpp"
#include "reduce/reduce_problem.hpp"
#include "scan/scan_problem.hpp"
#include "scan/segmented_scan_problem.hpp"
#include "sgemm/sgemm_problem.hpp"

namespace gpulab {

std::vector<std::unique_ptr<Problem>> make_problems() {
  std::vector<std::unique_ptr<Problem>> problems;
  problems.push_back(make_reduce_problem());
  problems.push_back(make_scan_problem());
  problems.push_back(make_segmented_scan_problem());
  problems.push_back(make_histogram_problem());
  problems.push_back(make_weighted_histogram_problem());
  problems.push_back(make_float_histogram_problem());
  problems.push_back(make_atax_problem());
  problems.push_back(make_matrix_problem(MatrixOp::transpose));
  problems.push_back(make_matrix_problem(MatrixOp::add));
  problems.push_back(make_matrix_problem(MatrixOp::triangle));
  problems.push_back(make_sgemm_problem());
  problems.push_back(make_conv_problem());
  return problems;
}

}  // namespace gpulab
