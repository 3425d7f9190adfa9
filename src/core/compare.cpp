#include "core/compare.hpp"

#include "core/tables.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <ostream>

namespace gpulab {

using json = nlohmann::ordered_json;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// What matches a case across two runs: its problem and parameters.
std::string case_key(const CaseResult& c) { return c.problem + " " + params_text(c.params); }

RunSummary summary(const Report& r, std::string path) {
  return {std::move(path), r.device ? r.device->name : "unknown device", r.commit, r.created_utc, r.command};
}

/// The "ceiling" of a multi-GPU case: each row is judged against its own run, not a ceiling.
constexpr const char* kOverGpus = "several GPUs";

/// A multi-GPU case as a case of rows to match and judge: a row per number of GPUs and placement,
/// timed by its whole function (local part, collectives, combine); different bits across ranks or
/// runs count as a failed check. Matched only with multi-GPU cases (the problem's name says so).
CaseResult as_case(const MultiCaseResult& m) {
  CaseResult c;
  c.problem = m.problem + " over GPUs";
  c.params = m.params;
  c.ceiling_name = kOverGpus;
  if (m.scale > 1) c.params.emplace_back("weak", fmt::format("{}x per {} GPUs", m.scale, m.scale));
  for (const auto& r : m.rows) {
    VariantRow v;
    v.id = std::to_string(r.gpus);
    v.name = fmt::format("{} GPU{}, {}", r.gpus, r.gpus == 1 ? "" : "s", r.placement);
    v.kernel = r.total;
    v.check = r.check;
    if (v.check.ok && !r.identical) v.check = {false, 0.0, 0.0, "the ranks, a repeated run or the graph gave different bits"};
    v.of_ceiling = kNaN;  // judged against one GPU, not a ceiling
    c.variants.push_back(std::move(v));
  }
  return c;
}

/// The report's ladder cases, then its multi-GPU cases as cases.
std::vector<CaseResult> cases_of(const Report& r) {
  std::vector<CaseResult> out = r.cases;
  if (r.multi_gpu)
    for (const auto& m : r.multi_gpu->cases) out.push_back(as_case(m));
  return out;
}

/// Rows are matched by name (numbers shift when a rung is added between two commits).
const VariantRow* find_row(const CaseResult& c, const std::string& name) {
  for (const auto& v : c.variants)
    if (v.name == name) return &v;
  return nullptr;
}

RowChange judge(const VariantRow& a, const VariantRow& b, const CompareOptions& opt) {
  RowChange r;
  r.id = b.id;
  r.name = b.name;
  r.vendor = b.vendor;
  r.library = b.library;
  r.a = a.kernel;
  r.b = b.kernel;
  r.speedup = ratio(a.kernel.median_ms, b.kernel.median_ms);
  r.change = ratio(b.kernel.median_ms, a.kernel.median_ms) - 1.0;
  r.threshold = std::max({opt.min_change, a.kernel.noise, b.kernel.noise});
  r.p_value = mann_whitney_p(a.kernel.samples_ms, b.kernel.samples_ms);
  r.a_of_ceiling = a.of_ceiling;
  r.b_of_ceiling = b.of_ceiling;
  if (!b.check.ok || !b.invalid.empty()) {
    r.verdict = Verdict::broken;
    r.why = !b.check.ok ? "B's check failed: " + b.check.detail : "B's row is invalid: " + b.invalid;
    return r;
  }
  if (!a.check.ok || !a.invalid.empty()) {
    r.verdict = Verdict::unjudged;
    r.why = !a.check.ok ? "A's check failed" : "A's row is invalid";
    return r;
  }
  const double delta_us = 1e3 * std::fabs(b.kernel.median_ms - a.kernel.median_ms);
  const bool beyond_spread = std::fabs(r.change) > r.threshold && delta_us > opt.min_change_us;
  const bool tested = std::isfinite(r.p_value);
  const bool significant = !tested || r.p_value < opt.alpha;
  if (beyond_spread && significant) r.verdict = r.change > 0 ? Verdict::slower : Verdict::faster;
  const std::string test = tested ? fmt::format("p = {:.2g}", r.p_value) : "no repetitions kept: spread alone";
  r.why = fmt::format("{:+.1f}% ({:.2f} µs) against a threshold of {:.1f}% and {:.1f} µs, {}", 100 * r.change, delta_us,
                      100 * r.threshold, opt.min_change_us, test);
  return r;
}

std::string fmt_p(double p) { return std::isfinite(p) ? fmt::format("{:.2g}", p) : "–"; }
std::string fmt_change(double x) { return std::isfinite(x) ? fmt::format("{:+.1f}%", 100 * x) : "–"; }

}  // namespace

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::same: return "same";
    case Verdict::faster: return "faster";
    case Verdict::slower: return "SLOWER";
    case Verdict::broken: return "BROKEN";
    case Verdict::unjudged: return "unjudged";
  }
  return "?";
}

std::string ceiling_words(const CaseChange& c) {
  if (c.ceiling_name == kOverGpus && c.a_ceiling_name == kOverGpus) return "several GPUs: each row its whole function's time";
  if (c.a_ceiling_name != c.ceiling_name)
    return fmt::format("judged by different ceilings: {} in A, {} in B", c.a_ceiling_name, c.ceiling_name);
  if (!std::isfinite(c.ceiling_ratio)) return fmt::format("{} ceiling not measured in both", c.ceiling_name);
  const char* unit = c.ceiling_name == "FMA" ? "GFLOP/s" : "GB/s";
  return fmt::format("{} ceiling {:.0f} → {:.0f} {}, {}", c.ceiling_name, c.a_ceiling, c.b_ceiling, unit,
                     fmt_x(c.ceiling_ratio));
}

Table change_table(const CaseChange& c, bool with_why) {
  Table t;
  t.header = {"#", "variant", "A ms", "B ms", "B speed ÷ A", "change", "threshold", "p", "A % ceiling", "B % ceiling",
              "verdict"};
  if (with_why) t.header.push_back("why");
  t.right = std::vector<bool>(t.header.size(), true);
  t.right[1] = t.right[10] = t.right.back() = false;
  for (const auto& r : c.rows) {
    t.rows.push_back({r.id, r.name, fmt_ms(r.a.median_ms), fmt_ms(r.b.median_ms), fmt_x(r.speedup),
                      fmt_change(r.change), fmt::format("{:.1f}%", 100 * r.threshold), fmt_p(r.p_value),
                      fmt_pct(r.a_of_ceiling), fmt_pct(r.b_of_ceiling),
                      r.verdict == Verdict::same ? std::string("within noise") : std::string(verdict_name(r.verdict))});
    if (with_why) t.rows.back().push_back(r.why);
    t.row_kinds.push_back(std::string(verdict_name(r.verdict)) + (r.vendor ? " vendor" : r.library ? " library" : ""));
  }
  return t;
}

std::string totals_line(const Comparison& c) {
  int rows = 0;
  for (const auto& k : c.cases) rows += static_cast<int>(k.rows.size());
  return fmt::format("{} rows in both: {} faster, {} slower, {} within noise, {} broken in B, {} unjudged; "
                     "{} only in A, {} only in B",
                     rows, c.count(Verdict::faster), c.count(Verdict::slower), c.count(Verdict::same),
                     c.count(Verdict::broken), c.count(Verdict::unjudged), c.only_in_a.size(), c.only_in_b.size());
}

std::string rule_line(const CompareOptions& o) {
  return fmt::format("A row moved when the Mann–Whitney test on the two runs' repetitions gives p < {} and its "
                     "median changed by more than its spread (interquartile range ÷ median, either run), {:.0f}% and "
                     "{:.1f} µs.",
                     o.alpha, 100 * o.min_change, o.min_change_us);
}

int Comparison::count(Verdict v) const {
  int n = 0;
  for (const auto& c : cases)
    n += static_cast<int>(std::count_if(c.rows.begin(), c.rows.end(), [v](const RowChange& r) { return r.verdict == v; }));
  return n;
}

double mann_whitney_p(const std::vector<double>& x, const std::vector<double>& y) {
  const std::size_t n1 = x.size(), n2 = y.size(), n = n1 + n2;
  if (n1 < 4 || n2 < 4) return kNaN;
  std::vector<std::pair<double, int>> all;  // (value, 0 for x / 1 for y)
  for (double v : x) all.emplace_back(v, 0);
  for (double v : y) all.emplace_back(v, 1);
  std::sort(all.begin(), all.end());
  double rank_sum_x = 0.0, ties = 0.0;  // ties: Σ (t³ − t) over groups of equal values
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j < n && all[j].first == all[i].first) ++j;
    const double t = static_cast<double>(j - i);
    const double mid_rank = 0.5 * static_cast<double>(i + 1 + j);  // ranks i+1 … j, averaged
    for (std::size_t k = i; k < j; ++k)
      if (all[k].second == 0) rank_sum_x += mid_rank;
    ties += t * t * t - t;
    i = j;
  }
  const double a = static_cast<double>(n1), b = static_cast<double>(n2), m = static_cast<double>(n);
  const double u = rank_sum_x - a * (a + 1) / 2;
  const double variance = a * b / 12.0 * ((m + 1) - ties / (m * (m - 1)));
  if (variance <= 0) return 1.0;  // every sample equal
  const double z = std::max(0.0, std::fabs(u - a * b / 2) - 0.5) / std::sqrt(variance);
  return std::erfc(z / std::sqrt(2.0));
}

Comparison compare_reports(const Report& a, const Report& b, const CompareOptions& options, std::string a_path,
                           std::string b_path) {
  Comparison out;
  out.a = summary(a, std::move(a_path));
  out.b = summary(b, std::move(b_path));
  out.options = options;
  const std::vector<CaseResult> all_a = cases_of(a), all_b = cases_of(b);
  std::map<std::string, const CaseResult*> a_cases;
  for (const auto& c : all_a) a_cases.emplace(case_key(c), &c);
  std::map<std::string, bool> matched;
  for (const auto& cb : all_b) {
    const std::string key = case_key(cb);
    const auto it = a_cases.find(key);
    if (it == a_cases.end()) {
      out.only_in_b.push_back(key + ": the whole case");
      continue;
    }
    matched[key] = true;
    const CaseResult& ca = *it->second;
    CaseChange cc;
    cc.problem = cb.problem;
    cc.title = case_title(cb);
    cc.params = cb.params;
    cc.ceiling_name = cb.ceiling_name;
    cc.a_ceiling_name = ca.ceiling_name;
    cc.a_ceiling = ca.ceiling_name == cb.ceiling_name ? ca.ceiling_gbs : 0.0;
    cc.b_ceiling = cb.ceiling_gbs;
    cc.ceiling_ratio = ratio(cc.b_ceiling, cc.a_ceiling);
    for (const auto& vb : cb.variants) {
      if (const VariantRow* va = find_row(ca, vb.name))
        cc.rows.push_back(judge(*va, vb, options));
      else
        out.only_in_b.push_back(fmt::format("{}: {} {}", key, vb.id, vb.name));
    }
    for (const auto& va : ca.variants)
      if (!find_row(cb, va.name)) out.only_in_a.push_back(fmt::format("{}: {} {}", key, va.id, va.name));
    out.cases.push_back(std::move(cc));
  }
  for (const auto& ca : all_a) {
    const std::string key = case_key(ca);
    if (!matched.count(key)) out.only_in_a.push_back(key + ": the whole case");
  }
  return out;
}

void print_comparison(std::ostream& os, const Comparison& c) {
  os << fmt::format("A: {} ({}, commit {}, {})\nB: {} ({}, commit {}, {})\n", c.a.path, c.a.device, c.a.commit,
                    c.a.created_utc, c.b.path, c.b.device, c.b.commit, c.b.created_utc);
  os << rule_line(c.options) << "\n";
  for (const auto& k : c.cases) {
    os << "\n" << k.title << "   (" << ceiling_words(k) << ")\n";
    render_aligned(os, change_table(k));
  }
  for (const auto& s : c.only_in_a) os << "only in A: " << s << "\n";
  for (const auto& s : c.only_in_b) os << "only in B: " << s << "\n";
  os << "\n" << totals_line(c) << "\n";
}

std::string comparison_markdown(const Comparison& c) {
  std::string out = "# gpulab comparison\n\n";
  out += fmt::format("- A: `{}`: {}, commit {}, {}\n", c.a.path, c.a.device, c.a.commit, c.a.created_utc);
  out += fmt::format("- B: `{}`: {}, commit {}, {}\n", c.b.path, c.b.device, c.b.commit, c.b.created_utc);
  out += "- " + rule_line(c.options) + "\n- " + totals_line(c) + "\n";
  for (const auto& k : c.cases) {
    out += "\n## " + k.title + "\n\n" + ceiling_words(k) + "\n\n";
    render_markdown(out, change_table(k));
  }
  for (const auto& s : c.only_in_a) out += "\n- only in A: " + s;
  for (const auto& s : c.only_in_b) out += "\n- only in B: " + s;
  return out + "\n";
}

json comparison_json(const Comparison& c) {
  auto run = [](const RunSummary& r) {
    return json{{"path", r.path}, {"device", r.device}, {"commit", r.commit}, {"created_utc", r.created_utc},
                {"command", r.command}};
  };
  auto num = [](double x) { return std::isfinite(x) ? json(x) : json(nullptr); };
  json cases = json::array();
  for (const auto& k : c.cases) {
    json params = json::object();
    for (const auto& [key, v] : k.params) params[key] = v;
    json rows = json::array();
    for (const auto& r : k.rows)
      rows.push_back({{"id", r.id}, {"name", r.name}, {"vendor", r.vendor}, {"library", r.library},
                      {"a_median_ms", r.a.median_ms}, {"b_median_ms", r.b.median_ms}, {"a_noise", r.a.noise},
                      {"b_noise", r.b.noise}, {"speedup", num(r.speedup)}, {"change", num(r.change)},
                      {"threshold", r.threshold}, {"p_value", num(r.p_value)}, {"a_of_ceiling", num(r.a_of_ceiling)},
                      {"b_of_ceiling", num(r.b_of_ceiling)}, {"verdict", verdict_name(r.verdict)}, {"why", r.why}});
    cases.push_back({{"problem", k.problem}, {"title", k.title}, {"params", params},
                     {"ceiling", {{"name", k.ceiling_name}, {"a_name", k.a_ceiling_name}, {"a", k.a_ceiling}, {"b", k.b_ceiling},
                                  {"ratio", num(k.ceiling_ratio)}}},
                     {"rows", rows}});
  }
  return {{"a", run(c.a)}, {"b", run(c.b)},
          {"options", {{"alpha", c.options.alpha}, {"min_change", c.options.min_change},
                       {"min_change_us", c.options.min_change_us}}},
          {"summary", {{"faster", c.count(Verdict::faster)}, {"slower", c.count(Verdict::slower)},
                       {"same", c.count(Verdict::same)}, {"broken", c.count(Verdict::broken)},
                       {"unjudged", c.count(Verdict::unjudged)}, {"regressed", c.regressed()}}},
          {"cases", cases}, {"only_in_a", c.only_in_a}, {"only_in_b", c.only_in_b}};
}

}  // namespace gpulab
