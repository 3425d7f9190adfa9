// The histogram as the harness sees it: one case = (input, m, block), counts checked exactly
// against the serial reference; the problem = its options (-n, -m, -d, --input, -b), its cases
// (inputs made once and shared by every m) and seed 002's recorded runs.
#pragma once

#include "core/cli_options.hpp"
#include "core/problem.hpp"
#include "histogram/histogram_cpu.hpp"
#include "histogram/histogram_ladder.hpp"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace gpulab {

struct HistogramCaseSpec {
  std::string source;                   // "uniform", "narrow", "degenerate" or "file:NAME"
  std::span<const std::int32_t> values;  // host values (pinned for full-speed copies); not owned
  std::uint32_t m = 1;
  unsigned block = 256;
  std::size_t offset = 0;  // values the device input starts past a 256-byte boundary
};

class HistogramCase final : public BenchCase {
 public:
  explicit HistogramCase(HistogramCaseSpec spec, std::span<const HistogramRung> table = histogram_rungs());

  std::vector<std::pair<std::string, std::string>> params() const override;
  Work work() const override;
  std::vector<InputArray> inputs() const override;
  std::vector<OutputArray> outputs() const override;
  std::string reference_name() const override { return "serial reference (calculateHistogramByCpu)"; }
  void compute_reference() override;
  void run_baseline() override;
  CheckResult check_baseline() const override;
  std::optional<std::string> unsupported(std::size_t rung) const override;
  std::size_t workspace_bytes(std::size_t rung) const override;
  void launch(std::size_t rung, const Arrays& arrays, Workspace workspace, cudaStream_t stream) const override;
  CheckResult check(std::size_t rung, std::span<const std::span<const std::byte>> outputs) const override;

 private:
  HistogramCaseSpec spec_;
  std::span<const HistogramRung> table_;
  std::vector<std::uint32_t> ref_, baseline_;
};

std::unique_ptr<Problem> make_histogram_problem();

/// The -d option's check and its words ("all" or a comma list of uniform, narrow, degenerate), for
/// the problems whose inputs are the histogram's.
CLI::Validator distribution_list_validator();
std::vector<HistogramDistribution> parse_distributions(const std::string& s);

/// Its form over several GPUs (multi/multi_bench.hpp): the values split by elements.
std::unique_ptr<MultiCase> make_histogram_multi(HistogramDistribution d, std::size_t n, std::uint32_t m,
                                                std::uint64_t seed);


}  // namespace gpulab
