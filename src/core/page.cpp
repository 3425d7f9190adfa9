#include "core/page.hpp"

#include "core/counters.hpp"
#include "core/process.hpp"
#include "core/tables.hpp"

#include <gpulab/error.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#ifndef GPULAB_PLOTS_SOURCE
#define GPULAB_PLOTS_SOURCE ""
#endif

namespace gpulab {
namespace {

namespace fs = std::filesystem;

constexpr const char* kStyle = R"(
body { font: 14px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 1400px; padding: 0 24px 48px; color: #1d1d1f; }
h1 { margin: 24px 0 4px; } h2 { border-bottom: 2px solid #ddd; padding-bottom: 4px; margin-top: 36px; }
h3 { margin-top: 32px; } h4 { margin: 20px 0 2px; font-size: 15px; }
.sub { color: #555; margin: 0 0 8px; } code { background: #f3f3f3; padding: 1px 4px; border-radius: 3px; }
nav a { margin-right: 14px; }
table { border-collapse: collapse; margin: 6px 0 10px; font-size: 12.5px; }
th, td { padding: 3px 8px; border-bottom: 1px solid #e4e4e4; white-space: nowrap; }
th { background: #f6f6f6; text-align: left; position: sticky; top: 0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.vendor td { color: #555; font-style: italic; } tr.library td { font-weight: 600; }
td.claimed { background: #e0ecff; font-weight: 600; } tr.kernel td { color: #666; font-size: 90%; }
tr.invalid td { background: #fde2e1; } tr.noisy td { background: #fff4d6; } tr.failed td { background: #f8b4b0; }
tr.faster td { background: #e3f6e3; } tr.SLOWER td { background: #fde2e1; } tr.BROKEN td { background: #f8b4b0; }
.box { border-left: 4px solid #999; background: #f7f7f7; padding: 8px 12px; margin: 12px 0; }
.box.warn { border-color: #d62728; background: #fff1f0; } .box.ok { border-color: #2ca02c; background: #f1fbf1; }
.charts { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; }
.chart svg { max-width: 100%; height: auto; }
.case { display: grid; grid-template-columns: minmax(380px, 560px) 1fr; gap: 16px; align-items: start; }
.case > div { overflow-x: auto; }
@media (max-width: 1000px) { .case { grid-template-columns: 1fr; } }
)";

std::string escape(const std::string& s) { return html_escape(s); }

std::string html_table(const Table& t, const char* css_class = "") {
  std::string out = fmt::format("<table class=\"{}\"><thead><tr>", css_class);
  for (const auto& h : t.header) out += "<th>" + escape(h) + "</th>";
  out += "</tr></thead><tbody>\n";
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    out += r < t.row_kinds.size() ? "<tr class=\"" + escape(t.row_kinds[r]) + "\">" : std::string("<tr>");
    for (std::size_t i = 0; i < t.rows[r].size(); ++i) {
      std::string classes = i < t.right.size() && t.right[i] ? "num" : "";
      if (t.is_marked(r, i)) classes += classes.empty() ? "claimed" : " claimed";  // e.g. a counter a rung claims
      out += fmt::format("<td{}>{}</td>", classes.empty() ? "" : " class=\"" + classes + "\"", escape(t.rows[r][i]));
    }
    out += "</tr>\n";
  }
  return out + "</tbody></table>\n";
}

std::string facts_table(const DeviceFacts& d) {
  Table t;
  t.header = {"device", "value"};
  t.right = {false, false};
  auto add = [&](std::string k, std::string v) { t.rows.push_back({std::move(k), std::move(v)}); };
  add("name", d.name);
  add("compute capability", fmt::format("{}.{}", d.cc_major, d.cc_minor));
  add("SMs", std::to_string(d.sm_count));
  add("memory", fmt::format("{:.1f} GiB", static_cast<double>(d.global_mem_bytes) / (1ull << 30)));
  add("L2", fmt::format("{:.0f} MiB", static_cast<double>(d.l2_bytes) / (1 << 20)));
  add("theoretical bandwidth", fmt::format("{:.0f} GB/s ({} MHz memory clock, {}-bit bus)", d.theoretical_bandwidth_gbs(),
                                           d.mem_clock_khz / 1000, d.mem_bus_bits));
  add("SM clock", fmt::format("{} MHz", d.sm_clock_khz / 1000));
  add("shared memory per SM / per block (opt-in)", fmt::format("{} KiB / {} KiB", d.smem_per_sm / 1024, d.smem_per_block_optin / 1024));
  add("registers per SM", std::to_string(d.regs_per_sm));
  add("driver / runtime", fmt::format("{} / {}", d.driver_version, d.runtime_version));
  return html_table(t, "facts");
}

std::string ceilings_table(const Ceilings& k) {
  Table t;
  t.header = {"measured ceiling", "value", "spread", "what it does"};
  t.right = {false, true, true, false};
  auto add = [&](const char* name, double value, const char* unit, const TimingStats& s, const char* what) {
    if (value > 0) t.rows.push_back({name, fmt::format("{:.1f} {}", value, unit), fmt_pct(s.noise), what});
    else t.rows.push_back({name, "not measured", "–", what});  // reports from before that ceiling existed
  };
  add("copy", k.copy_gbs, "GB/s", k.copy, "read + write, each byte counted once");
  add("read", k.read_gbs, "GB/s", k.read, "every byte read once, a sum kept");
  add("write", k.write_gbs, "GB/s", k.write, "every byte written once");
  add("stream add", k.add_gbs, "GB/s", k.add, "two read, one written");
  add("L2 read", k.l2_read_gbs, "GB/s", k.l2_read, "a working set that fits the L2");
  add("fp32 FMA", k.fma_gflops, "GFLOP/s", k.fma, "fused multiply-adds, 2 operations each");
  auto tensor = [](const char* what, const TensorCeiling& c) {
    return std::string("dense ") + what + " products, 2 operations a multiply-add" + (c.form.empty() ? "" : ": " + c.form);
  };
  const std::string tf32 = tensor("TF32", k.tf32), int8 = tensor("INT8", k.int8);
  add("TF32 tensor", k.tf32.gflops, "GFLOP/s", k.tf32.time, tf32.c_str());
  add("INT8 tensor", k.int8.gflops, "GOP/s", k.int8.time, int8.c_str());
  return html_table(t, "ceilings");
}

std::string chart(const Plot& p) {
  return "<figure class=\"chart\" title=\"" + escape(p.title) + "\">" + p.svg + "</figure>\n";
}

std::string missing_box(const Plots& plots) {
  if (plots.missing.empty()) return "";
  return "<div class=\"box warn\">No charts on this page: " + escape(plots.missing) + "</div>\n";
}

/// The problems of `cases` (ladder or multi-GPU ones), each once, in their first case's order.
template <class Cases>
std::vector<std::string> problems_in(const Cases& cases) {
  std::vector<std::string> problems;
  for (const auto& c : cases)
    if (std::find(problems.begin(), problems.end(), c.problem) == problems.end()) problems.push_back(c.problem);
  return problems;
}

std::string anchor(const std::string& s) {
  std::string a;
  for (char ch : s) a += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '-';
  return a;
}

/// Flags of a run worth reading first: failed checks, invalid and noisy rows, with links.
std::string flags_box(const Report& r, int run) {
  std::vector<std::string> items;
  int checked = 0;
  for (std::size_t i = 0; i < r.cases.size(); ++i) {
    const CaseResult& c = r.cases[i];
    for (const auto& v : c.variants) {
      ++checked;
      std::string what;
      if (!v.check.ok) what = "FAILED its check: " + v.check.detail;
      else if (!v.invalid.empty()) what = "INVALID: " + v.invalid;
      else if (v.noisy) what = fmt::format("noisy ({:.0f}% spread after re-measuring)", 100 * v.kernel.noise);
      if (!what.empty())
        items.push_back(fmt::format("<li><a href=\"#run{}-case{}\">{}</a>: {} {}: {}</li>", run, i, escape(case_title(c)),
                                    escape(v.id), escape(v.name), escape(what)));
    }
  }
  if (r.multi_gpu)
    for (const auto& c : r.multi_gpu->cases) {
      checked += static_cast<int>(c.rows.size());
      for (const auto& f : multi_case_failures(c))
        items.push_back(fmt::format("<li><a href=\"#run{}-multi\">{}</a>: FAILED {}</li>", run, escape(multi_case_heading(c)),
                                    escape(f)));
    }
  for (const auto& s : r.sanitizer) {
    ++checked;
    if (!s.passed())
      items.push_back(fmt::format("<li><a href=\"#run{}-sanitizer\">compute-sanitizer</a>: {} {} {} failed</li>", run,
                                  escape(s.problem), escape(s.id), escape(s.name)));
  }
  if (items.empty())
    return fmt::format("<div class=\"box ok\">{} rows, every check passed; no row invalid or noisy.</div>\n", checked);
  std::string out = fmt::format("<div class=\"box warn\">{} of {} rows need a second look:<ul>", items.size(), checked);
  for (const auto& s : items) out += s;
  return out + "</ul></div>\n";
}

/// A multi-GPU run: NCCL's bus bandwidth, the host's links, the speed-up charts, each case's rows and notes.
std::string multi_gpu_section(const MultiGpuRun& m, int run, const Plots& plots) {
  std::string out = fmt::format(
      "<section class=\"problem\" id=\"run{}-multi\">\n<h3>several GPUs through NCCL: {}</h3>\n<p class=\"sub\">"
      "Each case on one GPU and on several (up to {}), in one run; speed-up: work per second over one GPU's (weak scaling: N times "
      "the work on N GPUs); each time the slowest rank's, the median of the repetitions.</p>\n<div class=\"charts\">",
      run, escape(ranks_words(m.gpus, m.processes)), m.gpus);
  for (const auto& p : plots.plots)
    if (p.run == run && p.kind == "scaling") out += chart(p);
  out += "</div>\n";
  if (!m.bus.empty())
    out += "<p class=\"sub\">NCCL's all-reduce bus bandwidth, the communication ceiling:</p>" + html_table(bus_table(m.bus), "bus");
  if (!m.host_links.empty())
    out += "<p class=\"sub\">What the host gives the GPUs copying at once, the ceiling of the rows from host memory:</p>" +
           html_table(host_link_table(m.host_links), "bus");
  for (const auto& c : m.cases) {
    out += "<h4>" + escape(multi_case_heading(c)) + "</h4>\n" + html_table(multi_case_table(c, m.host_links), "multi");
    for (const auto& note : multi_case_notes(c)) out += "<p class=\"sub\">note: " + escape(note) + "</p>";
    for (const auto& f : multi_case_failures(c)) out += "<p class=\"box warn\">FAILED " + escape(f) + "</p>";
  }
  return out + "</section>\n";
}

std::string run_section(const std::string& path, const Report& r, int run, const Plots& plots) {
  std::string out = fmt::format("<section class=\"run\" id=\"run{}\">\n<h2>{}</h2>\n", run,
                                escape(r.device ? r.device->name : "unknown device"));
  out += fmt::format("<p class=\"sub\">gpulab {}, commit <code>{}</code>, {}; <code>{}</code>; from <code>{}</code></p>\n",
                     escape(r.gpulab_version), escape(r.commit), escape(r.created_utc), escape(r.command), escape(path));
  out += "<div class=\"charts\">";
  if (r.device) out += "<div>" + facts_table(*r.device) + "</div>";
  if (r.ceilings) out += "<div>" + ceilings_table(*r.ceilings) + "</div>";
  out += "</div>\n";
  if (r.clocks_start || r.clocks_end) out += "<p class=\"sub\">" + escape(clocks_line(r)) + "</p>\n";
  out += flags_box(r, run);
  for (const auto& p : plots.plots)
    if (p.run == run && p.kind == "summary") out += "<div class=\"charts\">" + chart(p) + "</div>\n";

  for (const auto& problem : problems_in(r.cases)) {
    out += fmt::format("<section class=\"problem\" id=\"run{}-{}\">\n<h3>{}</h3>\n<div class=\"charts\">", run,
                       anchor(problem), escape(problem));
    for (const auto& p : plots.plots)
      if (p.run == run && p.kind == "sweep" && p.problem == problem) out += chart(p);
    out += "</div>\n";
    for (std::size_t i = 0; i < r.cases.size(); ++i) {
      const CaseResult& c = r.cases[i];
      if (c.problem != problem) continue;
      out += fmt::format("<h4 id=\"run{}-case{}\">{}</h4>\n<p class=\"sub\">{}</p>\n<div class=\"case\"><div>", run, i,
                         escape(case_title(c)), escape(case_subtitle(c)));
      for (const auto& p : plots.plots)
        if (p.run == run && p.kind == "case" && p.case_index == static_cast<int>(i)) out += chart(p);
      out += "</div><div>" + html_table(gpu_table(c), "ladder");
      if (!c.cpu.empty()) out += html_table(cpu_table(c), "cpu");
      if (has_program_runs(c)) out += html_table(program_run_table(c), "program");
      if (has_counters(c))
        out += "<p class=\"sub\">Nsight Compute's counters of one launch; shaded: the counters the rung's line claims "
               "to change.</p>" + html_table(counters_table(c), "counters");
      for (const auto& note : c.notes) out += "<p class=\"sub\">note: " + escape(note) + "</p>";
      for (const auto& f : failures(c)) out += "<p class=\"box warn\">FAILED " + escape(f) + "</p>";
      out += "</div></div>\n";
    }
    out += "</section>\n";
  }
  if (r.multi_gpu) out += multi_gpu_section(*r.multi_gpu, run, plots);
  if (!r.sanitizer.empty())
    out += fmt::format("<section class=\"problem\" id=\"run{}-sanitizer\">\n<h3>compute-sanitizer</h3>\n<p class=\"sub\">"
                       "Each rung at its problem's small edge sizes under memcheck, racecheck, synccheck and initcheck; "
                       "FAIL (n): n reports.</p>\n{}</section>\n",
                       run, html_table(sanitizer_table(r.sanitizer), "sanitizer"));
  return out + "</section>\n";
}

std::string page(const std::string& title, const std::string& body) {
  return "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<meta name=\"viewport\" "
         "content=\"width=device-width, initial-scale=1\">\n<title>" +
         escape(title) + "</title>\n<style>" + kStyle + "</style></head>\n<body>\n" + body + "</body></html>\n";
}

std::string python_interpreter() {
  const char* env = std::getenv("GPULAB_PYTHON");
  return env && *env ? env : "python3";
}

}  // namespace

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += ch;
    }
  }
  return out;
}

std::string plots_script() {
  std::vector<fs::path> places;
  if (const std::string dir = executable_dir(); !dir.empty()) {
    places.push_back(fs::path(dir) / "gpulab_plots.py");
    places.push_back(fs::path(dir) / ".." / "share" / "gpulab" / "gpulab_plots.py");
  }
  places.emplace_back(GPULAB_PLOTS_SOURCE);  // a build tree's tests
  for (const auto& p : places) {
    std::error_code ec;
    if (!p.empty() && fs::is_regular_file(p, ec)) return p.lexically_normal().string();
  }
  return "";
}

Plots draw_plots(const std::vector<std::string>& script_args) {
  Plots plots;
  const std::string script = plots_script();
  if (script.empty()) {
    plots.missing = "the plotting script gpulab_plots.py is not installed beside the gpulab program";
    return plots;
  }
  std::vector<std::string> argv{python_interpreter(), script};
  argv.insert(argv.end(), script_args.begin(), script_args.end());
  ProcessResult result;
  try {
    result = run_process(argv);
  } catch (const Error& e) {
    plots.missing = std::string(e.what()) + " (set GPULAB_PYTHON to a Python 3 with matplotlib)";
    return plots;
  }
  if (result.exit_code != 0) {
    std::string why = result.err.substr(0, 400);
    while (!why.empty() && std::isspace(static_cast<unsigned char>(why.back()))) why.pop_back();
    plots.missing = fmt::format("{} {} exited with code {}: {}", argv[0], script, result.exit_code, why);
    return plots;
  }
  try {
    const auto j = nlohmann::json::parse(result.out);
    for (const auto& p : j.at("plots")) {
      Plot plot;
      plot.kind = p.at("kind").get<std::string>();
      plot.title = p.value("title", std::string());
      plot.problem = p.value("problem", std::string());
      plot.run = p.value("run", 0);
      plot.case_index = p.value("case", -1);
      plot.svg = p.at("svg").get<std::string>();
      plots.plots.push_back(std::move(plot));
    }
  } catch (const nlohmann::json::exception& e) {
    plots.plots.clear();
    plots.missing = std::string("the plotting script printed no charts gpulab could read: ") + e.what();
  }
  return plots;
}

std::string report_page(const std::vector<std::pair<std::string, Report>>& runs, const Plots& plots) {
  std::set<std::string> devices;
  for (const auto& [path, r] : runs) devices.insert(r.device ? r.device->name : "unknown device");
  std::string names;
  for (const auto& d : devices) names += (names.empty() ? "" : ", ") + d;
  std::string body = "<h1>gpulab report</h1>\n<p class=\"sub\">" + escape(names) + fmt::format(
      "; {} run(s). Rows: <b>bold</b> the library's rung, <i>italic</i> the vendor; red: invalid or failed, "
      "yellow: noisy. Charts: the library's rung red, the vendor grey, the measured ceiling green; whiskers "
      "span the fastest and slowest repetition; hatched bars are invalid or noisy.</p>\n", runs.size());
  body += "<nav>";
  for (std::size_t run = 0; run < runs.size(); ++run) {
    const Report& r = runs[run].second;
    const std::string prefix = runs.size() > 1 ? fmt::format("{}: ", run + 1) : "";
    for (const auto& problem : problems_in(r.cases))
      body += fmt::format("<a href=\"#run{}-{}\">{}{}</a>", run, anchor(problem), prefix, escape(problem));
    if (r.multi_gpu) {
      std::string label;  // the problems it ran over several GPUs
      for (const auto& p : problems_in(r.multi_gpu->cases)) label += (label.empty() ? "" : ", ") + p;
      body += fmt::format("<a href=\"#run{}-multi\">{}{} over GPUs</a>", run, prefix,
                          escape(label.empty() ? std::string("nothing") : label));
    }
  }
  body += "</nav>\n" + missing_box(plots);
  for (std::size_t run = 0; run < runs.size(); ++run)
    body += run_section(runs[run].first, runs[run].second, static_cast<int>(run), plots);
  return page("gpulab report: " + names, body);
}

std::string comparison_page(const Comparison& c, const Plots& plots) {
  std::string body = "<h1>gpulab comparison</h1>\n";
  Table runs;
  runs.header = {"", "device", "commit", "created", "report", "command"};
  runs.right = std::vector<bool>(6, false);
  runs.rows.push_back({"A", c.a.device, c.a.commit, c.a.created_utc, c.a.path, c.a.command});
  runs.rows.push_back({"B", c.b.device, c.b.commit, c.b.created_utc, c.b.path, c.b.command});
  body += html_table(runs, "runs");
  body += fmt::format("<div class=\"box {}\">{}. {}</div>\n", c.regressed() ? "warn" : "ok", escape(totals_line(c)),
                      escape(rule_line(c.options)));
  body += missing_box(plots);
  for (const auto& p : plots.plots)
    if (p.kind == "summary") body += "<div class=\"charts\">" + chart(p) + "</div>\n";
  std::string problem;
  for (std::size_t i = 0; i < c.cases.size(); ++i) {
    const CaseChange& k = c.cases[i];
    if (k.problem != problem) body += "<h2 id=\"" + anchor(k.problem) + "\">" + escape(problem = k.problem) + "</h2>\n";
    body += fmt::format("<h4>{}</h4>\n<p class=\"sub\">{}</p>\n<div class=\"case\"><div>", escape(k.title),
                        escape(ceiling_words(k)));
    for (const auto& p : plots.plots)
      if (p.kind == "case" && p.case_index == static_cast<int>(i)) body += chart(p);
    body += "</div><div>" + html_table(change_table(k, true), "compare") + "</div></div>\n";
  }
  if (!c.only_in_a.empty() || !c.only_in_b.empty()) {
    body += "<h2>Rows in one run only</h2><ul>";
    for (const auto& s : c.only_in_a) body += "<li>only in A: " + escape(s) + "</li>";
    for (const auto& s : c.only_in_b) body += "<li>only in B: " + escape(s) + "</li>";
    body += "</ul>\n";
  }
  return page(fmt::format("gpulab comparison: {} vs {}", c.a.device, c.b.device), body);
}

}  // namespace gpulab
