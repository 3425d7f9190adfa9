// What a run reports (SPEC.md, "What every run reports"), and its four renderings: a terminal
// table, JSON (everything, for machines and plots), CSV (one row per measured variant) and
// Markdown. Problems fill CaseResults; everything derived from them is computed here, once.
#pragma once

#include "core/ceilings.hpp"
#include "core/clocks.hpp"
#include "core/check.hpp"
#include "core/counters.hpp"
#include "core/device_info.hpp"
#include "core/multi_report.hpp"
#include "core/sanitizer.hpp"
#include "core/timing.hpp"

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpulab {

/// One run of a whole program around a variant, phase by phase, as a profiler shows it (seed 002):
/// `loops` times allocate, copy the input in, run the kernel(s), copy the result out, free.
/// Milliseconds summed over the loops; the first loop pays the cold start.
struct ProgramRun {
  int loops = 0;
  double allocate_ms = 0.0;
  double to_device_ms = 0.0;
  double kernels_ms = 0.0;  // CUDA events around the variant's launches
  double to_host_ms = 0.0;
  double free_ms = 0.0;
  double total_ms() const { return allocate_ms + to_device_ms + kernels_ms + to_host_ms + free_ms; }
};

/// One GPU variant (a rung of the ladder, or the vendor baseline) at one configuration.
struct VariantRow {
  std::string id;    // "1" … "8" (the position in the problem's table), or "vendor"
  std::string name;  // the rung's name, or the vendor function's
  std::string adds;  // what it adds over the rung before
  bool vendor = false;
  bool library = false;  // the library function's rung
  bool other_units = false;  // RungInfo::other_units: the case's ceiling does not apply
  /// Where other_units and the rung runs on tensor cores (RungInfo::tensor): the ceiling its rate
  /// times `tensor_products` is judged against ("TF32 tensor", "INT8 tensor"; empty: none).
  std::string tensor_ceiling;
  double tensor_ceiling_gflops = 0.0, tensor_ceiling_noise = 0.0;
  int tensor_products = 1;
  std::vector<std::string> claims;      // RungInfo::claims: the counters its line says it changes
  std::vector<KernelCounters> kernels;  // what ncu measured of its launch (`gpulab profile`); empty otherwise
  CheckResult check;
  TimingStats kernel;
  bool remeasured = false;  // timed again: noisy, or slower than a short re-run (core/bench.hpp)
  bool noisy = false;       // still noisy after re-measuring: read its ratios with care
  std::string invalid;      // filled by derive_columns(): faster than the ceiling allows, and why
  std::optional<TimingStats> end_to_end;  // host→device copy + kernel(s) + result copy back
  std::optional<ProgramRun> program_run;  // when asked for (--loops)
  // Filled by derive_columns(); NaN where not applicable (and for invalid rows).
  double bandwidth_gbs = 0.0;       // minimum bytes that must move ÷ median time
  double gflops = 0.0;              // operations that must be done ÷ median time (0 flops: NaN)
  double step_speedup = 0.0;        // previous rung's time ÷ this time
  double cumulative_speedup = 0.0;  // rung 1's time ÷ this time
  double vs_vendor = 0.0;           // vendor's time ÷ this time (> 1: faster than the vendor)
  double of_ceiling = 0.0;          // bandwidth (or GFLOP/s) ÷ the matching measured ceiling (a tensor rung's own)
  double of_size_copy = 0.0;        // the same-size copy's time ÷ this time (CaseResult::size_copy)
};

/// A case's parameters as "type=float32 n=2^28 …", joined by `separator`: the one spelling of a case
/// in progress lines, titles and comparisons.
std::string params_text(const std::vector<std::pair<std::string, std::string>>& params, std::string_view separator = " ");

/// The row's flags in words: "INVALID: …", "noisy", "re-measured"; empty when none.
std::string row_flags(const VariantRow& v);

/// One CPU baseline (the serial reference, the OpenMP baseline).
struct CpuRow {
  std::string name;
  int threads = 1;
  TimingStats time;
  CheckResult check;
  double bandwidth_gbs = 0.0;  // filled by derive_columns()
};

/// One configuration of one problem: every variant, the vendor and the CPU, measured together.
struct CaseResult {
  std::string problem;                                      // the problem's name
  std::vector<std::pair<std::string, std::string>> params;  // ordered: ("type","float32"), …
  double bytes = 0.0;           // the minimum bytes that must move (each input read once, …)
  double flops = 0.0;           // the operations that must be done (0: a problem of moving bytes)
  bool l2_resident = false;     // the working set fits in the L2: judged against the L2 ceiling
  std::string ceiling_name;     // "read", "copy", "write", "L2 read" or "FMA"
  double ceiling_gbs = 0.0;     // its measured value, GB/s or GFLOP/s (0 when not measured)
  double ceiling_noise = 0.0;   // the noise of the ceiling's own measurement
  /// A device-to-device cudaMemcpy moving the case's bytes (half read, half written), timed as the
  /// rows are: what one launch of this size reaches, ramp and tail included, where the ceilings'
  /// 1 GiB streams hide them. Measured with the ceilings, for cases judged by bytes.
  std::optional<TimingStats> size_copy;
  std::vector<VariantRow> variants;
  std::vector<CpuRow> cpu;
  std::vector<std::string> notes;  // e.g. variants that cannot run this configuration, and why
};

struct Report {
  std::string gpulab_version;
  std::string commit;
  std::string created_utc;
  std::string command;
  std::optional<DeviceFacts> device;
  std::optional<Ceilings> ceilings;
  std::optional<ClockReading> clocks_start, clocks_end;  // the GPU's clocks around the run
  std::vector<CaseResult> cases;
  std::vector<SanitizerRow> sanitizer;  // `gpulab sanitize`, `suite --sanitize`: a verdict per rung and tool
  std::optional<MultiGpuRun> multi_gpu;  // `bench PROBLEM --gpus N`: each case on one GPU and on N
};

/// Bandwidths, step and cumulative speedups, ratio to the vendor, share of the ceiling. A row
/// faster than its ceiling allows (above 100 % plus the row's and the ceiling's noise) is marked
/// invalid and takes no part in the speedups.
void derive_columns(CaseResult& c);

/// True when every GPU and CPU row of every case passed its check, every sanitizer verdict, and
/// every multi-GPU row (its check, the same bits everywhere).
bool all_checks_passed(const Report& r);

nlohmann::ordered_json to_json(const Report& r);
// Pieces of the JSON that the multi-GPU section (core/multi_report.cpp) shares.
nlohmann::ordered_json timing_json(const TimingStats& t);
TimingStats timing_from(const nlohmann::ordered_json& j);
nlohmann::ordered_json check_json(const CheckResult& c);
CheckResult check_from(const nlohmann::ordered_json& j);
Report report_from_json(const nlohmann::ordered_json& j);  // throws gpulab::Error on a malformed document
std::string to_csv(const Report& r);
std::string to_markdown(const Report& r);
void print_terminal(std::ostream& os, const Report& r);

/// "2026-11-22T14:03:07Z".
std::string utc_now();

}  // namespace gpulab
