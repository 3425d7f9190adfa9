// A report's tables as rows of cells, and the number formats they share: rendered aligned for the
// terminal, as Markdown and as HTML (report.cpp, page.cpp) and reused by `gpulab compare`.
#pragma once

#include "core/report.hpp"

#include <cstddef>
#include <iosfwd>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace gpulab {

/// num ÷ den where both are positive, NaN otherwise.
double ratio(double num, double den);

std::string fmt_ms(double ms);      // "0.3450", "1.234", "123.4"; "–" for none
std::string fmt_x(double x);        // "1.02x"; "–" for NaN
std::string fmt_pct(double x);      // 0.99 → "99.0%"
std::string fmt_gbs(double x);      // "3110.2"
std::string fmt_check(const CheckResult& c);
std::string csv_field(const std::string& s);  // quoted (RFC 4180) where it holds a comma, quote or newline
std::string csv_num(double x);                // "%.9g"; empty for NaN or infinity

struct Table {
  std::vector<std::string> header;
  std::vector<bool> right;  // right-align this column
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row_kinds;  // per row, words a page styles it by ("vendor invalid"); may be empty
  /// Cells to set apart (row, column): a '*' after them in text, shaded on a page.
  std::set<std::pair<std::size_t, std::size_t>> marked;
  bool is_marked(std::size_t row, std::size_t column) const { return marked.count({row, column}) > 0; }
};

/// The last GPU row that is not the vendor's.
const VariantRow* top_rung(const CaseResult& c);

Table gpu_table(const CaseResult& c);
Table cpu_table(const CaseResult& c);
/// Seed 002's profile view: where one run of the whole program spends its time.
Table program_run_table(const CaseResult& c);
bool has_program_runs(const CaseResult& c);
/// A row per rung: each sanitizer tool's verdict, whether the results were right, the first report.
Table sanitizer_table(const std::vector<SanitizerRow>& rows);

void render_aligned(std::ostream& os, const Table& t);
void render_markdown(std::string& out, const Table& t);

std::string case_title(const CaseResult& c);     // "NAME  type=float32  n=2^28 …"
std::string case_subtitle(const CaseResult& c);  // bytes, operations, the ceiling that judges it
std::vector<std::string> failures(const CaseResult& c);
std::string ceilings_line(const Ceilings& k);
/// `gpulab ceilings --in-flight`: a row per point (warps an SM, loads a thread, KiB in flight an SM,
/// GB/s, of the read ceiling, Little's latency), and the fewest bytes that reach 90% and 95% of the best.
Table in_flight_table(const Ceilings& k);
std::string in_flight_summary(const Ceilings& k);
std::string clocks_line(const Report& r);

}  // namespace gpulab
