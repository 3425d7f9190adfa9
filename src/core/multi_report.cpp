#include "core/multi_report.hpp"

#include "core/report.hpp"
#include "core/tables.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>

namespace gpulab {

using json = nlohmann::ordered_json;

std::string ranks_words(int gpus, int processes) {
  if (gpus == 1 && processes == 1) return "1 GPU";
  if (processes > 1) return fmt::format("{} GPUs, one MPI process each", gpus);
  return fmt::format("{} GPUs driven by one process", gpus);
}

bool multi_gpu_passed(const MultiGpuRun& run) {
  return std::all_of(run.cases.begin(), run.cases.end(),
                     [](const MultiCaseResult& c) { return multi_case_failures(c).empty(); });
}

json multi_row_json(const MultiRow& r) {
  return {{"gpus", r.gpus}, {"placement", r.placement}, {"local", timing_json(r.local)}, {"total", timing_json(r.total)},
          {"speedup", r.speedup}, {"efficiency", r.efficiency}, {"gbs", r.gbs}, {"host_bytes", r.host_bytes},
          {"graph_local", r.graphed ? timing_json(r.graph_local) : json(nullptr)},
          {"graph_total", r.graphed ? timing_json(r.graph_total) : json(nullptr)}, {"graph_failure", r.graph_failure},
          {"check", check_json(r.check)}, {"identical", r.identical}};
}

MultiRow multi_row_from(const json& j) {
  MultiRow r;
  r.gpus = j.at("gpus").get<int>();
  r.placement = j.at("placement").get<std::string>();
  r.local = timing_from(j.at("local"));
  r.total = timing_from(j.at("total"));
  r.speedup = j.at("speedup").get<double>();
  r.efficiency = j.at("efficiency").get<double>();
  r.gbs = j.at("gbs").get<double>();
  r.host_bytes = j.value("host_bytes", 0.0);  // reports before the host links had none
  r.graphed = !j.at("graph_total").is_null();
  if (r.graphed) {
    r.graph_local = timing_from(j.at("graph_local"));
    r.graph_total = timing_from(j.at("graph_total"));
  }
  r.graph_failure = j.at("graph_failure").get<std::string>();
  r.check = check_from(j.at("check"));
  r.identical = j.at("identical").get<bool>();
  return r;
}

json multi_gpu_json(const MultiGpuRun& run) {
  json bus = json::array();
  for (const auto& b : run.bus)
    bus.push_back({{"bytes", b.bytes}, {"time_us", b.time_us}, {"algbw_gbs", b.algbw_gbs}, {"busbw_gbs", b.busbw_gbs}});
  json links = json::array();
  for (const auto& l : run.host_links)
    links.push_back({{"gpus", l.gpus}, {"bytes_per_gpu", l.bytes_per_gpu}, {"to_gpus_gbs", l.to_gpus_gbs},
                     {"from_gpus_gbs", l.from_gpus_gbs}});
  json cases = json::array();
  for (const auto& c : run.cases) {
    json rows = json::array();
    for (const auto& r : c.rows) rows.push_back(multi_row_json(r));
    json params = json::object();
    for (const auto& [k, v] : c.params) params[k] = v;
    cases.push_back({{"problem", c.problem}, {"params", params}, {"scale", c.scale}, {"rows", rows}});
  }
  return {{"gpus", run.gpus}, {"processes", run.processes}, {"bus_bandwidth", bus}, {"host_links", links}, {"cases", cases}};
}

MultiGpuRun multi_gpu_from(const json& j) {
  MultiGpuRun run;
  run.gpus = j.at("gpus").get<int>();
  run.processes = j.at("processes").get<int>();
  for (const auto& b : j.at("bus_bandwidth"))
    run.bus.push_back({b.at("bytes").get<std::size_t>(), b.at("time_us").get<double>(), b.at("algbw_gbs").get<double>(),
                       b.at("busbw_gbs").get<double>()});
  for (const auto& l : j.value("host_links", json::array()))
    run.host_links.push_back({l.at("gpus").get<int>(), l.at("bytes_per_gpu").get<std::size_t>(), l.at("to_gpus_gbs").get<double>(),
                              l.at("from_gpus_gbs").get<double>()});
  for (const auto& c : j.at("cases")) {
    MultiCaseResult m;
    m.problem = c.at("problem").get<std::string>();
    for (const auto& [k, v] : c.at("params").items()) m.params.emplace_back(k, v.get<std::string>());
    m.scale = c.at("scale").get<std::size_t>();
    for (const auto& r : c.at("rows")) m.rows.push_back(multi_row_from(r));
    run.cases.push_back(std::move(m));
  }
  return run;
}

std::string multi_case_heading(const MultiCaseResult& c) {
  std::string h = c.problem + "  " + params_text(c.params, "  ");
  if (c.scale > 1) h += "  (weak scaling: per GPU; the rows of N GPUs run N times the work)";
  return h;
}

Table bus_table(const std::vector<BusBandwidth>& bus) {
  Table t;
  t.header = {"NCCL all-reduce", "time µs", "algbw GB/s", "busbw GB/s"};
  t.right = {true, true, true, true};
  for (const auto& b : bus)
    t.rows.push_back({fmt::format("{} B", b.bytes), fmt::format("{:.1f}", b.time_us), fmt_gbs(b.algbw_gbs), fmt_gbs(b.busbw_gbs)});
  return t;
}

Table host_link_table(const std::vector<HostLink>& links) {
  Table t;
  t.header = {"GPUs copying at once", "host → GPUs GB/s", "GPUs → host GB/s", "per GPU"};
  t.right = {true, true, true, true};
  for (const auto& l : links)
    t.rows.push_back({std::to_string(l.gpus), fmt_gbs(l.to_gpus_gbs), fmt_gbs(l.from_gpus_gbs),
                      fmt::format("{} MiB pinned", l.bytes_per_gpu >> 20)});
  return t;
}

namespace {

/// A row from host memory: the GB/s it copied in, as a share of what the host gave its GPUs.
std::string host_link_share(const MultiRow& r, const std::vector<HostLink>& links) {
  const auto link = std::find_if(links.begin(), links.end(), [&](const HostLink& l) { return l.gpus == r.gpus; });
  if (r.host_bytes <= 0.0 || link == links.end() || link->to_gpus_gbs <= 0.0) return "—";
  return fmt_pct(ratio(r.host_bytes / 1e9, r.total.median_ms * 1e-3) / link->to_gpus_gbs);
}

}  // namespace

Table multi_case_table(const MultiCaseResult& c, const std::vector<HostLink>& links) {
  Table t;
  t.header = {"GPUs", "data", "local ms", "total ms", "collective + combine ms", "speed-up", "efficiency", "GB/s",
              "of host link", "graph: total ms", "graph: collective + combine ms", "check", "same bits"};
  t.right = {true, false, true, true, true, true, true, true, true, true, true, false, false};
  for (const auto& r : c.rows) {
    t.rows.push_back({std::to_string(r.gpus), r.placement, fmt_ms(r.local.median_ms), fmt_ms(r.total.median_ms),
                      fmt::format("{:.4f}", r.total.median_ms - r.local.median_ms), fmt_x(r.speedup), fmt_pct(r.efficiency),
                      fmt_gbs(r.gbs), host_link_share(r, links), r.graphed ? fmt_ms(r.graph_total.median_ms) : "—",
                      r.graphed ? fmt::format("{:.4f}", r.graph_total.median_ms - r.graph_local.median_ms) : "—",
                      fmt_check(r.check), r.identical ? "yes" : "NO"});
    t.row_kinds.push_back(!r.check.ok || !r.identical ? "failed" : "");
  }
  return t;
}

std::vector<std::string> multi_case_failures(const MultiCaseResult& c) {
  std::vector<std::string> failures;
  for (const auto& r : c.rows) {
    if (!r.check.ok) failures.push_back(fmt::format("on {} GPU(s), {}: {}", r.gpus, r.placement, r.check.detail));
    if (!r.identical)
      failures.push_back(fmt::format("on {} GPU(s), {}: the ranks, a repeated run or the replayed graph gave different bits",
                                     r.gpus, r.placement));
  }
  return failures;
}

std::vector<std::string> multi_case_notes(const MultiCaseResult& c) {
  std::vector<std::string> notes;
  for (const auto& r : c.rows) {
    if (!r.graph_failure.empty())
      notes.push_back(fmt::format("not replayed as a CUDA graph on {} GPU(s): {}", r.gpus, r.graph_failure));
  }
  return notes;
}

void print_multi(std::ostream& os, const MultiGpuRun& run) {
  os << "\nseveral GPUs through NCCL: " << ranks_words(run.gpus, run.processes) << "\n";
  if (!run.bus.empty()) render_aligned(os, bus_table(run.bus));
  if (!run.host_links.empty()) {
    os << "\nwhat the host gives the GPUs copying at once (the ceiling of the rows from host memory):\n";
    render_aligned(os, host_link_table(run.host_links));
  }
  for (const auto& c : run.cases) {
    os << "\n" << multi_case_heading(c) << "\n";
    render_aligned(os, multi_case_table(c, run.host_links));
    for (const auto& note : multi_case_notes(c)) os << "  note: " << note << "\n";
    for (const auto& f : multi_case_failures(c)) os << "  FAILED " << f << "\n";
  }
}

void render_multi_markdown(std::string& out, const MultiGpuRun& run) {
  out += "\n## Several GPUs through NCCL: " + ranks_words(run.gpus, run.processes) + "\n";
  if (!run.bus.empty()) {
    out += "\nNCCL all-reduce bus bandwidth (the communication ceiling):\n\n";
    render_markdown(out, bus_table(run.bus));
  }
  if (!run.host_links.empty()) {
    out += "\nWhat the host gives the GPUs copying at once (the ceiling of the rows from host memory):\n\n";
    render_markdown(out, host_link_table(run.host_links));
  }
  for (const auto& c : run.cases) {
    out += "\n### " + multi_case_heading(c) + "\n\n";
    render_markdown(out, multi_case_table(c, run.host_links));
    const auto notes = multi_case_notes(c), failures = multi_case_failures(c);
    if (!notes.empty() || !failures.empty()) out += "\n";
    for (const auto& note : notes) out += "- " + note + "\n";
    for (const auto& f : failures) out += "- FAILED " + f + "\n";
  }
}

std::string multi_csv(const MultiGpuRun& run) {
  std::string out =
      "problem,params,scale,gpus,placement,local_ms,total_ms,total_noise,speedup,efficiency,gbs,graph_local_ms,"
      "graph_total_ms,ok,error,tolerance,identical\n";
  for (const auto& c : run.cases)
    for (const auto& r : c.rows)
      out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_field(c.problem),
                         csv_field(params_text(c.params)), c.scale, r.gpus, csv_field(r.placement), csv_num(r.local.median_ms),
                         csv_num(r.total.median_ms), csv_num(r.total.noise), csv_num(r.speedup), csv_num(r.efficiency),
                         csv_num(r.gbs), r.graphed ? csv_num(r.graph_local.median_ms) : "",
                         r.graphed ? csv_num(r.graph_total.median_ms) : "", r.check.ok ? 1 : 0, csv_num(r.check.error),
                         csv_num(r.check.tolerance), r.identical ? 1 : 0);
  return out;
}

}  // namespace gpulab
