// The reduction as the harness sees it: one case = (type, n, block) with its random input, checked
// against the compensated CPU sum; the problem = its options (-n, -t, -b), its cases and the seeds'
// recorded runs.
#pragma once

#include "core/dtype.hpp"
#include "core/problem.hpp"
#include "reduce/reduce_cpu.hpp"
#include "reduce/reduce_ladder.hpp"

#include <gpulab/device_buffer.hpp>

#include <cstdint>
#include <memory>
#include <span>

namespace gpulab {

struct ReduceCaseSpec {
  std::size_t n = 0;
  unsigned block = 256;
  std::uint64_t seed = 1;
  std::size_t offset = 0;  // elements the input starts past a 256-byte boundary
};

/// One (type, n, block) of the reduction, run with the rungs of `table` (the ladder unless a test
/// passes another: the known-wrong rungs).
template <class T>
class ReduceCase final : public BenchCase {
 public:
  explicit ReduceCase(ReduceCaseSpec spec, std::span<const ReduceRung<T>> table = reduce_rungs<T>());

  std::vector<std::pair<std::string, std::string>> params() const override;
  Work work() const override;
  std::vector<InputArray> inputs() const override;
  std::vector<OutputArray> outputs() const override;
  std::string reference_name() const override { return "serial reference (compensated)"; }
  void compute_reference() override;
  void run_baseline() override;
  CheckResult check_baseline() const override;
  std::size_t workspace_bytes(std::size_t rung) const override;
  void launch(std::size_t rung, const Arrays& arrays, Workspace workspace, cudaStream_t stream) const override;
  CheckResult check(std::size_t rung, std::span<const std::span<const std::byte>> outputs) const override;

  const ReduceReference<T>& reference() const { return ref_; }

 private:
  ReduceCaseSpec spec_;
  std::span<const ReduceRung<T>> table_;
  PinnedBuffer<T> input_;
  ReduceReference<T> ref_;
  T baseline_{};
};

std::unique_ptr<Problem> make_reduce_problem();

/// Its form over several GPUs (multi/multi_bench.hpp): the input split by elements.
std::unique_ptr<MultiCase> make_reduce_multi(DType type, std::size_t n, std::uint64_t seed);


}  // namespace gpulab
