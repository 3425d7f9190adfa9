#include "core/tables.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <ostream>

namespace gpulab {

double ratio(double num, double den) {
  return (num > 0 && den > 0) ? num / den : std::numeric_limits<double>::quiet_NaN();
}

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr std::size_t kHeader = static_cast<std::size_t>(-1);  // render_markdown's header line
}  // namespace

const VariantRow* top_rung(const CaseResult& c) {
  for (auto it = c.variants.rbegin(); it != c.variants.rend(); ++it)
    if (!it->vendor) return &*it;
  return nullptr;
}

std::string fmt_ms(double ms) {
  if (!(ms > 0)) return "–";
  if (ms >= 100) return fmt::format("{:.1f}", ms);
  if (ms >= 1) return fmt::format("{:.3f}", ms);
  return fmt::format("{:.4f}", ms);
}
std::string fmt_x(double x) { return std::isfinite(x) ? fmt::format("{:.2f}x", x) : "–"; }
std::string fmt_pct(double x) { return std::isfinite(x) ? fmt::format("{:.1f}%", 100 * x) : "–"; }
std::string fmt_gbs(double x) { return std::isfinite(x) && x > 0 ? fmt::format("{:.1f}", x) : "–"; }
std::string fmt_check(const CheckResult& c) {
  if (!c.ok) return "FAIL";
  if (c.tolerance == 0.0) return "ok (exact)";
  if (std::isfinite(c.median_error)) return fmt::format("ok ({:.1e} <= {:.1e}, median {:.1e})", c.error, c.tolerance, c.median_error);
  return fmt::format("ok ({:.1e} <= {:.1e})", c.error, c.tolerance);
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char ch : s) q += (ch == '"') ? std::string("\"\"") : std::string(1, ch);
  return q + "\"";
}

std::string csv_num(double x) { return std::isfinite(x) ? fmt::format("{:.9g}", x) : ""; }

Table gpu_table(const CaseResult& c) {
  Table t;
  const bool rate = c.flops > 0;
  t.header = {"#", "variant", "time ms", "min..max ms", "GB/s"};
  if (rate) t.header.push_back("GFLOP/s");
  for (const char* h : {"step", "cumulative", "x vendor"}) t.header.push_back(h);
  t.header.push_back("% " + c.ceiling_name);
  if (c.size_copy) t.header.push_back("% same-size copy");
  for (const char* h : {"e2e ms", "check", "flags"}) t.header.push_back(h);
  t.right = std::vector<bool>(t.header.size(), true);
  t.right[1] = t.right[t.header.size() - 2] = t.right[t.header.size() - 1] = false;
  for (const auto& v : c.variants) {
    std::vector<std::string> row{v.id, v.name, fmt_ms(v.kernel.median_ms),
                                 fmt::format("{}..{}", fmt_ms(v.kernel.min_ms), fmt_ms(v.kernel.max_ms)),
                                 fmt_gbs(v.bandwidth_gbs)};
    if (rate) row.push_back(fmt_gbs(v.gflops));
    for (double x : {v.step_speedup, v.cumulative_speedup, v.vs_vendor}) row.push_back(fmt_x(x));
    row.push_back(fmt_pct(v.of_ceiling));
    if (c.size_copy) row.push_back(fmt_pct(v.of_size_copy));
    row.push_back(v.end_to_end ? fmt_ms(v.end_to_end->median_ms) : "–");
    row.push_back(fmt_check(v.check));
    row.push_back(row_flags(v));
    t.rows.push_back(std::move(row));
    std::string kinds = v.vendor ? "vendor" : v.library ? "library" : "rung";
    if (!v.check.ok) kinds += " failed";
    if (!v.invalid.empty()) kinds += " invalid";
    if (v.noisy) kinds += " noisy";
    t.row_kinds.push_back(std::move(kinds));
  }
  return t;
}

Table cpu_table(const CaseResult& c) {
  const VariantRow* top = top_rung(c);
  Table t;
  t.header = {"CPU baseline", "threads", "time ms", "GB/s", "top rung x (kernel)",
              "top rung x (with copies)", "check"};
  t.right = {false, true, true, true, true, true, false};
  for (const auto& r : c.cpu) {
    const double kernel = top ? ratio(r.time.median_ms, top->kernel.median_ms) : kNaN;
    const double e2e = top && top->end_to_end ? ratio(r.time.median_ms, top->end_to_end->median_ms) : kNaN;
    t.rows.push_back({r.name, std::to_string(r.threads), fmt_ms(r.time.median_ms),
                      fmt_gbs(r.bandwidth_gbs), fmt_x(kernel), fmt_x(e2e), fmt_check(r.check)});
  }
  return t;
}

/// Seed 002's profile view: where one run of the whole program spends its time.
Table program_run_table(const CaseResult& c) {
  Table t;
  int loops = 0;
  for (const auto& v : c.variants)
    if (v.program_run) loops = v.program_run->loops;
  t.header = {"#", fmt::format("one program run, LOOPS={}", loops), "malloc ms", "H->D ms", "kernels ms",
              "D->H ms", "free ms", "total ms", "kernels %"};
  t.right = {true, false, true, true, true, true, true, true, true};
  for (const auto& v : c.variants) {
    if (!v.program_run) continue;
    const ProgramRun& p = *v.program_run;
    t.rows.push_back({v.id, v.name, fmt_ms(p.allocate_ms), fmt_ms(p.to_device_ms), fmt_ms(p.kernels_ms),
                      fmt_ms(p.to_host_ms), fmt_ms(p.free_ms), fmt_ms(p.total_ms()),
                      fmt_pct(ratio(p.kernels_ms, p.total_ms()))});
  }
  return t;
}

bool has_program_runs(const CaseResult& c) {
  return std::any_of(c.variants.begin(), c.variants.end(), [](const VariantRow& v) { return v.program_run.has_value(); });
}

Table sanitizer_table(const std::vector<SanitizerRow>& rows) {
  Table t;
  t.header = {"problem", "#", "variant"};
  for (auto tool : kSanitizerTools) t.header.emplace_back(tool);
  t.header.insert(t.header.end(), {"results", "first report"});
  t.right = std::vector<bool>(t.header.size(), false);
  for (const auto& r : rows) {
    std::vector<std::string> row{r.problem, r.id, r.name};
    std::string first, results = "ok";
    for (auto tool : kSanitizerTools) {
      const auto it = std::find_if(r.tools.begin(), r.tools.end(), [&](const ToolVerdict& v) { return v.tool == tool; });
      if (it == r.tools.end() || it->verdict == "not run") {
        row.emplace_back("–");
        continue;
      }
      row.push_back(it->verdict == "fail" ? fmt::format("FAIL ({})", it->errors) : it->verdict);
      if (first.empty() && !it->first_error.empty()) first = std::string(tool) + ": " + it->first_error;
      if (!it->results_ok) results = "WRONG: " + it->results_detail;
    }
    row.push_back(results);
    row.push_back(first);
    t.rows.push_back(std::move(row));
    t.row_kinds.emplace_back(r.passed() ? "rung" : "failed");
  }
  return t;
}

void render_aligned(std::ostream& os, const Table& t) {
  std::vector<std::size_t> width(t.header.size());
  auto cells = [](const std::string& s) {  // display width: count UTF-8 code points
    return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char ch) {
      return (static_cast<unsigned char>(ch) & 0xC0) != 0x80;
    }));
  };
  auto text = [&](std::size_t r, std::size_t i) { return t.rows[r][i] + (t.is_marked(r, i) ? "*" : ""); };
  for (std::size_t i = 0; i < width.size(); ++i) width[i] = cells(t.header[i]);
  for (std::size_t r = 0; r < t.rows.size(); ++r)
    for (std::size_t i = 0; i < t.rows[r].size(); ++i) width[i] = std::max(width[i], cells(text(r, i)));
  auto line = [&](const std::vector<std::string>& row) {
    os << " ";
    for (std::size_t i = 0; i < row.size(); ++i) {
      const std::string pad(width[i] - cells(row[i]), ' ');
      os << "  " << (t.right[i] ? pad + row[i] : row[i] + pad);
    }
    os << "\n";
  };
  line(t.header);
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    std::vector<std::string> row;
    for (std::size_t i = 0; i < t.rows[r].size(); ++i) row.push_back(text(r, i));
    line(row);
  }
}

void render_markdown(std::string& out, const Table& t) {
  auto line = [&](const std::vector<std::string>& row, std::size_t r) {
    out += "|";
    for (std::size_t i = 0; i < row.size(); ++i) {
      out += " ";
      for (char ch : row[i]) {  // a cell's '|' would end it, its '*' could start emphasis
        if (ch == '|' || ch == '*') out += '\\';
        out += ch;
      }
      if (r != kHeader && t.is_marked(r, i)) out += "\\*";
      out += " |";
    }
    out += "\n";
  };
  line(t.header, kHeader);
  out += "|";
  for (bool right : t.right) out += right ? "---:|" : "---|";
  out += "\n";
  for (std::size_t r = 0; r < t.rows.size(); ++r) line(t.rows[r], r);
}

std::string case_title(const CaseResult& c) {
  return c.params.empty() ? c.problem : c.problem + "  " + params_text(c.params, "  ");
}

std::string case_subtitle(const CaseResult& c) {
  std::string s = fmt::format("{:.4g} bytes must move", c.bytes);
  if (c.flops > 0) s += fmt::format(", {:.4g} operations", c.flops);
  if (c.ceiling_gbs > 0)
    s += fmt::format("; measured {} ceiling {:.1f} {}", c.ceiling_name, c.ceiling_gbs,
                     c.ceiling_name == "FMA" ? "GFLOP/s" : "GB/s");
  if (c.l2_resident) s += "; the data fits in the L2, so the L2 ceiling judges it";
  if (c.size_copy)
    s += fmt::format("; a copy moving the same bytes takes {} ms ({:.1f} GB/s)", fmt_ms(c.size_copy->median_ms),
                     ratio(c.bytes / 1e9, c.size_copy->median_ms * 1e-3));
  return s;
}

std::vector<std::string> failures(const CaseResult& c) {
  std::vector<std::string> out;
  for (const auto& v : c.variants)
    if (!v.check.ok) out.push_back(fmt::format("{} {}: {}", v.id, v.name, v.check.detail));
  for (const auto& r : c.cpu)
    if (!r.check.ok) out.push_back(fmt::format("{}: {}", r.name, r.check.detail));
  return out;
}

std::string ceilings_line(const Ceilings& k) {
  std::string tensor;
  if (k.tf32.gflops > 0) tensor += fmt::format(", TF32 tensor {:.0f} GFLOP/s ({})", k.tf32.gflops, k.tf32.form);
  if (k.int8.gflops > 0) tensor += fmt::format(", INT8 tensor {:.0f} GOP/s ({})", k.int8.gflops, k.int8.form);
  return fmt::format("copy {:.1f} GB/s (read+write), read {:.1f} GB/s, write {:.1f} GB/s, "
                     "stream add {:.1f} GB/s (2 read, 1 written), fp32 FMA {:.0f} GFLOP/s{}, L2 read {:.0f} GB/s ({} buffers)",
                     k.copy_gbs, k.read_gbs, k.write_gbs, k.add_gbs, k.fma_gflops, tensor, k.l2_read_gbs,
                     fmt::format("{:.2f} GB", static_cast<double>(k.buffer_bytes) / 1e9));
}
Table in_flight_table(const Ceilings& k) {
  Table t;
  t.header = {"warps an SM", "loads a thread", "KiB in flight an SM", "GB/s", "of read", "latency ns (Little)"};
  t.right = std::vector<bool>(t.header.size(), true);
  for (const auto& p : k.in_flight)
    t.rows.push_back({std::to_string(p.warps_per_sm), std::to_string(p.loads_per_thread),
                      fmt::format("{}", static_cast<double>(p.bytes_per_sm) / 1024), fmt_gbs(p.gbs), fmt_pct(ratio(p.gbs, k.read_gbs)),
                      fmt::format("{:.0f}", p.latency_ns)});
  return t;
}

std::string in_flight_summary(const Ceilings& k) {
  double best = 0.0;
  for (const auto& p : k.in_flight) best = std::max(best, p.gbs);
  const auto kib = [&](double fraction) { return static_cast<double>(in_flight_bytes_for(k.in_flight, fraction)) / 1024; };
  return fmt::format("the best point {} GB/s ({} of the read ceiling); 90% of it from {} KiB in flight an SM, 95% from {} KiB",
                     fmt_gbs(best), fmt_pct(ratio(best, k.read_gbs)), kib(0.90), kib(0.95));
}

std::string clocks_line(const Report& r) {
  auto one = [](const std::optional<ClockReading>& c) {
    return c ? fmt::format("SM {} MHz (max {}), memory {} MHz{}", c->sm_mhz, c->max_sm_mhz, c->memory_mhz,
                           c->throttle_reasons & ~1ull ? fmt::format(", clock-event reasons 0x{:x}", c->throttle_reasons) : "")
             : std::string("not read");
  };
  return "GPU clocks at the start: " + one(r.clocks_start) + "; at the end: " + one(r.clocks_end);
}

}  // namespace gpulab
