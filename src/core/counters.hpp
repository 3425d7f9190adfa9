// Why a rung is faster, in numbers: what Nsight Compute (ncu) measures of each kernel a rung
// launches, reduced to the counters a ladder's comments speak of (DRAM throughput, occupancy,
// divergence, bank conflicts, sectors per request, registers, local memory…). `gpulab profile`
// runs the problem again under ncu with one NVTX range around each rung's launch (domain "gpulab",
// range "case C rung R"); this file names the metrics to ask for, reads ncu's CSV back, and makes
// the per-rung and per-kernel counters and their table.
#pragma once

#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpulab {

struct CaseResult;
struct Table;

/// One kernel launch as ncu measured it: its raw metrics (ncu's names, base units).
struct KernelCounters {
  std::string kernel;  // demangled name
  std::string grid, block;  // "(1024, 1, 1)"
  std::map<std::string, double> metrics;
};

/// A counter shown in the tables: a key rungs use to say what they change, a column label, and
/// how it is made from a kernel's metrics (Σ numerator ÷ Σ denominator over a rung's kernels, so
/// that a rung of several kernels reads as one).
struct CounterInfo {
  std::string_view key;    // "bank_conflicts"
  std::string_view label;  // "smem wf/req"
  std::string_view what;   // one line for the docs and the legend
};

/// Every counter, in the order of the table's columns.
std::span<const CounterInfo> counter_infos();

/// The metrics `gpulab profile` asks ncu for (a comma list for --metrics).
std::string ncu_metric_list();

/// The NVTX domain and range names that mark a rung's profiled launch, and ncu's filter for them.
inline constexpr const char* kProfileDomain = "gpulab";
std::string profile_range_name(std::size_t case_index, std::size_t rung_index);
std::string ncu_range_filter();

/// A counter's value over some kernels (one rung: all its kernels; NaN where ncu had no value).
double counter_value(std::string_view key, std::span<const KernelCounters> kernels);
/// The counter as its column shows it: "96.9", "1.2 M", "–".
std::string format_counter(std::string_view key, double value);

/// Whether `key` names a counter; the words of a RungInfo::claims list.
bool is_counter_key(std::string_view key);
std::vector<std::string> claim_words(std::string_view claims);

/// ncu's `--csv --page raw` output: per (case, rung index) the kernels launched inside that
/// rung's range, in launch order. Lines that are not CSV (ncu's ==PROF== notes) are skipped.
/// Throws gpulab::Error when the header is missing or a row cannot be read.
using ProfiledKernels = std::map<std::pair<std::size_t, std::size_t>, std::vector<KernelCounters>>;
ProfiledKernels parse_ncu_csv(std::string_view csv);

/// The case's counters: a row per rung (its kernels together), a row per kernel under rungs of
/// several, claimed counters marked (Table::marked: '*' in text, shaded on a page), and the claims
/// column ("lanes on % 75.6 → 62.4").
/// Empty (no rows) when no row of the case was profiled.
Table counters_table(const CaseResult& c);
bool has_counters(const CaseResult& c);

}  // namespace gpulab
