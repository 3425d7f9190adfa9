// A verdict of compute-sanitizer per rung: `gpulab sanitize` (and `suite --sanitize`) runs
// `gpulab check PROBLEM` at the problem's small edge sizes under each of memcheck, racecheck,
// synccheck and initcheck. The checked program prints a marker before and after each rung
// (`--markers`), so each error the tool prints between them belongs to that rung. A rung whose
// error ends the process (a kernel killed by memcheck leaves the context unusable) is marked and
// the run goes on in a new process with the rungs after it.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpulab {

/// The four tools, in the order the tables show them.
inline constexpr std::string_view kSanitizerTools[] = {"memcheck", "racecheck", "synccheck", "initcheck"};

/// One tool's verdict on one rung over all of the problem's small cases.
struct ToolVerdict {
  std::string tool;
  std::string verdict = "not run";  // "pass", "fail" or "not run" (the rung supports none of the cases)
  int errors = 0;                   // the tool's reports attributed to the rung
  std::string first_error;          // the first report's headline, or why the process ended
  bool results_ok = true;           // the checked results were right under the tool
  std::string results_detail;
};

struct SanitizerRow {
  std::string problem, id, name;
  std::vector<ToolVerdict> tools;
  bool passed() const;  // every tool run passed and the results were right
};

/// The markers `gpulab check --markers` prints around each rung.
std::string begin_marker(std::size_t rung_index, std::size_t case_index);
std::string end_marker(std::size_t rung_index, bool ok, const std::string& detail);

/// What one process's output says, per rung index.
struct RungFindings {
  int runs = 0;                 // cases begun
  int errors = 0;               // error reports between its begin and end markers
  std::string first_error;      // the first one's headline
  bool check_ok = true;
  std::string check_detail;
};
struct SanitizedRun {
  std::map<std::size_t, RungFindings> rungs;
  std::optional<std::size_t> unfinished;  // a rung begun and never ended: the process died in it
  std::string last_words;                  // what the process printed last (why it ended)
  int errors_outside = 0;                  // reports before the first marker or after the last
};

/// Reads the merged stdout and stderr of `compute-sanitizer … gpulab check … --markers`.
SanitizedRun parse_sanitized_run(std::string_view output);

/// Runs the sanitizer with `tool` on `child_args` (the gpulab command without --variants, which is
/// added per run) for the rungs `rung_indices` of `ladder_ids` (the ids the rows show), re-running
/// in a new process after a rung that ended one. Throws gpulab::Error when the tool cannot run.
struct SanitizeJob {
  std::string sanitizer;                // compute-sanitizer's path
  std::vector<std::string> child_args;  // {gpulab, --device, 0, check, NAME, -n, …, --markers}
  std::vector<std::size_t> rung_indices;
  std::vector<std::string> rung_ids;    // id of each index in the table ("1", "vendor")
};
/// The verdicts by rung index; kOutsideRungs holds reports printed outside every rung's markers.
inline constexpr std::size_t kOutsideRungs = static_cast<std::size_t>(-1);
std::map<std::size_t, ToolVerdict> run_sanitizer(const SanitizeJob& job, std::string_view tool);

}  // namespace gpulab
