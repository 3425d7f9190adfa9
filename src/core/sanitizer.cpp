#include "core/sanitizer.hpp"

#include "core/process.hpp"

#include <gpulab/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <sstream>

namespace gpulab {
namespace {

constexpr std::string_view kMarker = "@gpulab ";
constexpr std::string_view kToolPrefix = "========= ";

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

/// A report's first line: "========= Invalid __global__ write of size 4 bytes", not its indented
/// details, not the tool's banner and summaries, not a warning.
bool is_error_headline(std::string_view line) {
  if (!starts_with(line, kToolPrefix)) return false;
  const std::string_view text = line.substr(kToolPrefix.size());
  if (text.empty() || text.front() == ' ' || text.front() == '\t') return false;
  for (std::string_view quiet : {"COMPUTE-SANITIZER", "ERROR SUMMARY", "RACECHECK SUMMARY", "LEAK SUMMARY",
                                 "Target application returned", "Warning", "WARNING"})
    if (starts_with(text, quiet)) return false;
  return true;
}

std::string trimmed(std::string_view s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ')) s.remove_suffix(1);
  return std::string(s);
}

}  // namespace

bool SanitizerRow::passed() const {
  return std::all_of(tools.begin(), tools.end(),
                     [](const ToolVerdict& t) { return t.verdict != "fail" && t.results_ok; });
}

std::string begin_marker(std::size_t rung_index, std::size_t case_index) {
  return fmt::format("{}begin {} {}", kMarker, rung_index, case_index);
}

std::string end_marker(std::size_t rung_index, bool ok, const std::string& detail) {
  return fmt::format("{}end {} {}{}", kMarker, rung_index, ok ? "ok" : "failed", ok ? "" : " " + detail);
}

SanitizedRun parse_sanitized_run(std::string_view output) {
  SanitizedRun run;
  std::optional<std::size_t> current;
  std::vector<std::string> tail;  // the last lines, for why a process ended
  std::istringstream in{std::string(output)};
  for (std::string raw; std::getline(in, raw);) {
    const std::string line = trimmed(raw);
    if (!line.empty() && !starts_with(line, kMarker)) {
      tail.push_back(line);
      if (tail.size() > 6) tail.erase(tail.begin());
    }
    if (starts_with(line, kMarker)) {
      std::istringstream words(line.substr(kMarker.size()));
      std::string what;
      std::size_t rung = 0;
      words >> what >> rung;
      if (!words) continue;
      RungFindings& f = run.rungs[rung];
      if (what == "begin") {
        ++f.runs;
        current = rung;
        tail.clear();
      } else if (what == "end") {
        std::string verdict;
        words >> verdict;
        if (verdict == "failed" && f.check_ok) {
          f.check_ok = false;
          std::getline(words, f.check_detail);
          f.check_detail = trimmed(f.check_detail.substr(std::min<std::size_t>(1, f.check_detail.size())));
        }
        current.reset();
      }
    } else if (is_error_headline(line)) {
      if (!current) {
        ++run.errors_outside;
        continue;
      }
      RungFindings& f = run.rungs[*current];
      if (f.errors++ == 0) f.first_error = line.substr(kToolPrefix.size());
    }
  }
  run.unfinished = current;
  for (const auto& l : tail) run.last_words += (run.last_words.empty() ? "" : " | ") + l;
  return run;
}

std::map<std::size_t, ToolVerdict> run_sanitizer(const SanitizeJob& job, std::string_view tool) {
  std::map<std::size_t, ToolVerdict> verdicts;
  std::vector<std::size_t> remaining = job.rung_indices;
  for (std::size_t r : remaining) verdicts[r].tool = std::string(tool);
  while (!remaining.empty()) {
    std::string variants;
    for (std::size_t r : remaining) variants += (variants.empty() ? "" : ",") + job.rung_ids.at(r);
    std::vector<std::string> argv{job.sanitizer, "--tool", std::string(tool), "--error-exitcode", "86",
                                  "--print-limit", "20"};
    argv.insert(argv.end(), job.child_args.begin(), job.child_args.end());
    argv.insert(argv.end(), {"--variants", variants});
    const ProcessResult result = run_process(argv, true);
    const SanitizedRun run = parse_sanitized_run(result.out);
    if (run.rungs.empty() && result.exit_code != 0)
      throw Error(fmt::format("compute-sanitizer --tool {} ended with exit code {} before any rung ran: {}", tool,
                              result.exit_code, run.last_words));
    for (const auto& [rung, f] : run.rungs) {
      ToolVerdict& v = verdicts[rung];
      if (f.runs > 0 && v.verdict == "not run") v.verdict = "pass";
      if (f.errors > 0) {
        if (v.errors == 0) v.first_error = f.first_error;
        v.errors += f.errors;
        v.verdict = "fail";
      }
      if (!f.check_ok && v.results_ok) v.results_ok = false, v.results_detail = f.check_detail;
    }
    if (run.errors_outside > 0) {  // reports no marker encloses: kept, on a row of their own
      ToolVerdict& v = verdicts[kOutsideRungs];
      v.tool = std::string(tool);
      v.verdict = "fail";
      v.errors += run.errors_outside;
      if (v.first_error.empty()) v.first_error = "reports outside every rung: " + run.last_words;
    }
    if (!run.unfinished) {
      if (result.exit_code != 0 && run.errors_outside == 0 &&
          std::all_of(run.rungs.begin(), run.rungs.end(), [](const auto& f) { return f.second.errors == 0 && f.second.check_ok; }))
        throw Error(fmt::format("compute-sanitizer --tool {} ended with exit code {} and no report: {}", tool,
                                result.exit_code, run.last_words));
      break;
    }
    // The process died inside a rung: that rung fails, the rest go on in a new process.
    ToolVerdict& v = verdicts[*run.unfinished];
    v.verdict = "fail";
    if (v.first_error.empty()) v.first_error = "the process ended inside this rung: " + run.last_words;
    v.errors = std::max(v.errors, 1);
    remaining.erase(std::remove(remaining.begin(), remaining.end(), *run.unfinished), remaining.end());
  }
  return verdicts;
}

}  // namespace gpulab
