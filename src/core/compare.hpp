// `gpulab compare A.json B.json`: two runs side by side (two GPUs, or two commits on one GPU). Each
// row present in both gets its ratio and a verdict judged from the two runs' repetitions: a row
// moved only when a rank test says the two sets of repetitions differ AND the change is larger than
// either row's own spread (and two floors: a share, since two runs differ by a little even on one
// GPU, and a time, since a few-microsecond kernel moves by whole ticks of the timer).
#pragma once

#include "core/report.hpp"
#include "core/tables.hpp"

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <string>
#include <vector>

namespace gpulab {

struct CompareOptions {
  double alpha = 0.01;        // the rank test's significance level
  double min_change = 0.02;   // changes below this never count (clocks and placement differ run to run)
  double min_change_us = 1.0; // nor changes of the median below this: CUDA events resolve about 0.5 µs
};

enum class Verdict {
  same,      // within the noise
  faster,    // B is faster beyond the noise
  slower,    // B is slower beyond the noise
  broken,    // B's row failed its check or is invalid: its time means nothing
  unjudged,  // A's row failed or is invalid: nothing to compare against
};
std::string_view verdict_name(Verdict v);

/// One row (a rung, the library or the vendor) of one case, in both runs.
struct RowChange {
  std::string id, name;
  bool vendor = false, library = false;
  TimingStats a, b;           // kernel times
  double speedup = 0.0;       // A's median ÷ B's median: > 1 when B is faster
  double change = 0.0;        // B's median ÷ A's median − 1: > 0 when B is slower
  double threshold = 0.0;     // what a change had to exceed: max(min_change, both rows' noise)
  double p_value = 0.0;       // the rank test's; NaN when a report kept no repetitions
  double a_of_ceiling = 0.0, b_of_ceiling = 0.0;  // each row's share of its run's ceiling
  Verdict verdict = Verdict::same;
  std::string why;  // one line: the numbers the verdict came from
};

/// One case present in both runs.
struct CaseChange {
  std::string problem, title;  // title: "NAME  type=float32  n=2^28 …"
  std::vector<std::pair<std::string, std::string>> params;
  std::string ceiling_name, a_ceiling_name;  // B's ceiling; A's where it differs (data in the L2 on one GPU only)
  double a_ceiling = 0.0, b_ceiling = 0.0;  // the measured ceiling that judges the case in each run
  double ceiling_ratio = 0.0;               // b_ceiling ÷ a_ceiling (NaN where either was not measured)
  std::vector<RowChange> rows;
};

struct RunSummary {
  std::string path, device, commit, created_utc, command;
};

struct Comparison {
  RunSummary a, b;
  CompareOptions options;
  std::vector<CaseChange> cases;
  std::vector<std::string> only_in_a, only_in_b;  // "NAME type=float32 …: 3 tree" (rows not in both)
  int count(Verdict v) const;
  /// True when a row got slower beyond its noise, or B's row is broken: what `compare` exits non-zero on.
  bool regressed() const { return count(Verdict::slower) + count(Verdict::broken) > 0; }
};

/// Two-sided p-value of the Mann–Whitney rank test (normal approximation with ties and continuity
/// corrected): how likely samples this far apart are when both come from one distribution.
/// NaN when either side has fewer than 4 samples.
double mann_whitney_p(const std::vector<double>& x, const std::vector<double>& y);

Comparison compare_reports(const Report& a, const Report& b, const CompareOptions& options, std::string a_path = "A",
                           std::string b_path = "B");

/// One case's rows as a table (with the verdicts' reasons for the page).
Table change_table(const CaseChange& c, bool with_why = false);
std::string ceiling_words(const CaseChange& c);     // "read ceiling 3130 → 4410 GB/s, 1.41x"
std::string totals_line(const Comparison& c);       // "45 rows in both: 3 faster, …"
std::string rule_line(const CompareOptions& o);     // how a row is judged, in words

void print_comparison(std::ostream& os, const Comparison& c);
std::string comparison_markdown(const Comparison& c);
nlohmann::ordered_json comparison_json(const Comparison& c);

}  // namespace gpulab
