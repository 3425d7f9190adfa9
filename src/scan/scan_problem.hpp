// The prefix scan as the harness sees it: one case = (type, kind, n, block) with its random input,
// checked element by element against the serial reference; the problem = its options (-n, -t,
// -b, --kind), its cases and its recorded runs.
#pragma once

#include "core/dtype.hpp"
#include "core/problem.hpp"
#include "scan/scan_cpu.hpp"
#include "scan/scan_ladder.hpp"

#include <gpulab/device_buffer.hpp>

#include <cstdint>
#include <memory>
#include <span>

namespace CLI {
class App;
}

namespace gpulab {

struct ScanCaseSpec {
  std::size_t n = 0;
  ScanKind kind = ScanKind::inclusive;
  unsigned block = 256;
  std::uint64_t seed = 1;
  std::size_t offset = 0;  // elements the input starts past a 256-byte boundary
};

/// One (type, kind, n, block) of the scan, run with the rungs of `table` (the ladder unless a test
/// passes another: the known-wrong rungs).
template <class In>
class ScanCase final : public BenchCase {
 public:
  using Out = scan_result_t<In>;
  using Ref = scan_ref_t<Out>;

  explicit ScanCase(ScanCaseSpec spec, std::span<const ScanRung<In>> table = scan_rungs<In>());

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

  std::span<const In> input() const { return {input_.data(), spec_.n}; }
  std::span<const Ref> reference() const { return {ref_.get(), ref_ ? spec_.n : 0}; }

 private:
  ScanCaseSpec spec_;
  std::span<const ScanRung<In>> table_;
  PinnedBuffer<In> input_;
  std::unique_ptr<Ref[]> ref_;
  std::unique_ptr<Out[]> baseline_;
};

/// The scan's input types, in the order `-t all` runs them.
inline constexpr DType kScanTypes[] = {DType::int32, DType::float32, DType::float64, DType::int8, DType::int16};

/// Calls fn(In{}) with the C++ input type named by t (one of kScanTypes).
template <class Fn>
decltype(auto) visit_scan_type(DType t, Fn&& fn) {
  return visit_dtype_among<std::int32_t, float, double, std::int8_t, std::int16_t>(t, fn);
}

std::unique_ptr<Problem> make_scan_problem();

/// The scans' --kind option (inclusive, exclusive, a comma list, or all), and its words as kinds.
void add_scan_kind_option(CLI::App& cmd, std::string& kinds);
std::vector<ScanKind> parse_scan_kinds(const std::string& text);

/// Its form over several GPUs (multi/multi_bench.hpp), In among int8, int16, int32, float32, float64:
/// the input split by elements, each rank holding its share of the global scan.
std::unique_ptr<MultiCase> make_scan_multi(DType type, ScanKind kind, std::size_t n, std::uint64_t seed);


}  // namespace gpulab
