#include "core/report.hpp"

#include "core/tables.hpp"

#include <gpulab/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <limits>
#include <ostream>

namespace gpulab {

using json = nlohmann::ordered_json;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// ---- the derived columns ------------------------------------------------------------------------

const VariantRow* find_vendor(const CaseResult& c) {
  for (const auto& v : c.variants)
    if (v.vendor) return &v;
  return nullptr;
}

double gbs(double bytes, double ms) { return ratio(bytes / 1e9, ms * 1e-3); }

// ---- JSON -------------------------------------------------------------------------------------------

json num(double x) { return std::isfinite(x) ? json(x) : json(nullptr); }
double num_from(const json& j) { return j.is_null() ? kNaN : j.get<double>(); }

json device_json(const DeviceFacts& d) {
  return {{"index", d.index}, {"name", d.name}, {"compute_capability", fmt::format("{}.{}", d.cc_major, d.cc_minor)},
          {"sm_count", d.sm_count}, {"warp_size", d.warp_size},
          {"max_threads_per_sm", d.max_threads_per_sm}, {"max_blocks_per_sm", d.max_blocks_per_sm},
          {"max_threads_per_block", d.max_threads_per_block},
          {"max_block_dim", {d.max_block_dim[0], d.max_block_dim[1], d.max_block_dim[2]}},
          {"regs_per_sm", d.regs_per_sm}, {"regs_per_block", d.regs_per_block},
          {"smem_per_sm", d.smem_per_sm}, {"smem_per_block", d.smem_per_block},
          {"smem_per_block_optin", d.smem_per_block_optin}, {"l2_bytes", d.l2_bytes},
          {"global_mem_bytes", d.global_mem_bytes}, {"sm_clock_khz", d.sm_clock_khz},
          {"mem_clock_khz", d.mem_clock_khz}, {"mem_bus_bits", d.mem_bus_bits},
          {"theoretical_bandwidth_gbs", d.theoretical_bandwidth_gbs()},
          {"max_resident_blocks", {{"64", d.max_resident_blocks(64)}, {"128", d.max_resident_blocks(128)},
                                   {"256", d.max_resident_blocks(256)}, {"512", d.max_resident_blocks(512)}}},
          {"driver_version", d.driver_version}, {"runtime_version", d.runtime_version}};
}
DeviceFacts device_from(const json& j) {
  DeviceFacts d;
  d.index = j.at("index").get<int>();
  d.name = j.at("name").get<std::string>();
  const auto cc = j.at("compute_capability").get<std::string>();
  if (std::sscanf(cc.c_str(), "%d.%d", &d.cc_major, &d.cc_minor) != 2)
    throw Error("bad compute_capability '" + cc + "'");
  d.sm_count = j.at("sm_count").get<int>();
  d.warp_size = j.at("warp_size").get<int>();
  d.max_threads_per_sm = j.at("max_threads_per_sm").get<int>();
  d.max_blocks_per_sm = j.at("max_blocks_per_sm").get<int>();
  d.max_threads_per_block = j.at("max_threads_per_block").get<int>();
  for (int i = 0; i < 3; ++i) d.max_block_dim[i] = j.at("max_block_dim").at(static_cast<std::size_t>(i)).get<int>();
  d.regs_per_sm = j.at("regs_per_sm").get<int>();
  d.regs_per_block = j.at("regs_per_block").get<int>();
  d.smem_per_sm = j.at("smem_per_sm").get<std::size_t>();
  d.smem_per_block = j.at("smem_per_block").get<std::size_t>();
  d.smem_per_block_optin = j.at("smem_per_block_optin").get<std::size_t>();
  d.l2_bytes = j.at("l2_bytes").get<std::size_t>();
  d.global_mem_bytes = j.at("global_mem_bytes").get<std::size_t>();
  d.sm_clock_khz = j.at("sm_clock_khz").get<int>();
  d.mem_clock_khz = j.at("mem_clock_khz").get<int>();
  d.mem_bus_bits = j.at("mem_bus_bits").get<int>();
  d.driver_version = j.at("driver_version").get<int>();
  d.runtime_version = j.at("runtime_version").get<int>();
  return d;
}

json in_flight_json(const std::vector<InFlightPoint>& points) {
  json a = json::array();
  for (const auto& p : points)
    a.push_back({{"warps_per_sm", p.warps_per_sm}, {"loads_per_thread", p.loads_per_thread}, {"bytes_per_sm", p.bytes_per_sm},
                 {"gbs", p.gbs}, {"latency_ns", p.latency_ns}, {"time", timing_json(p.time)}});
  return a;
}
std::vector<InFlightPoint> in_flight_from(const json& a) {
  std::vector<InFlightPoint> points;
  for (const auto& j : a)
    points.push_back({j.at("warps_per_sm").get<int>(), j.at("loads_per_thread").get<int>(), j.at("bytes_per_sm").get<std::size_t>(),
                      j.at("gbs").get<double>(), j.at("latency_ns").get<double>(), timing_from(j.at("time"))});
  return points;
}

json tensor_ceiling_json(const TensorCeiling& t) {
  if (t.gflops <= 0) return nullptr;
  return {{"gflops", t.gflops}, {"form", t.form}, {"time", timing_json(t.time)}};
}
TensorCeiling tensor_ceiling_from(const json& j) {
  TensorCeiling t;
  if (j.is_null()) return t;
  t.gflops = j.at("gflops").get<double>();
  t.form = j.at("form").get<std::string>();
  t.time = timing_from(j.at("time"));
  return t;
}

json ceilings_json(const Ceilings& k) {
  return {{"buffer_bytes", k.buffer_bytes}, {"copy_gbs", k.copy_gbs}, {"read_gbs", k.read_gbs},
          {"write_gbs", k.write_gbs}, {"add_gbs", k.add_gbs}, {"fma_gflops", k.fma_gflops},
          {"l2_read_gbs", k.l2_read_gbs}, {"copy", timing_json(k.copy)}, {"read", timing_json(k.read)},
          {"write", timing_json(k.write)}, {"add", timing_json(k.add)}, {"fma", timing_json(k.fma)},
          {"l2_read", timing_json(k.l2_read)}, {"in_flight", in_flight_json(k.in_flight)},
          {"tf32", tensor_ceiling_json(k.tf32)}, {"int8", tensor_ceiling_json(k.int8)}};
}
Ceilings ceilings_from(const json& j) {
  Ceilings k;
  k.buffer_bytes = j.at("buffer_bytes").get<std::size_t>();
  k.copy_gbs = j.at("copy_gbs").get<double>();
  k.read_gbs = j.at("read_gbs").get<double>();
  k.write_gbs = j.at("write_gbs").get<double>();
  k.fma_gflops = j.at("fma_gflops").get<double>();
  k.copy = timing_from(j.at("copy"));
  k.read = timing_from(j.at("read"));
  k.write = timing_from(j.at("write"));
  k.fma = timing_from(j.at("fma"));
  k.l2_read_gbs = j.value("l2_read_gbs", 0.0);
  if (j.contains("l2_read")) k.l2_read = timing_from(j.at("l2_read"));
  k.add_gbs = j.value("add_gbs", 0.0);  // reports before the stream-add ceiling have none
  if (j.contains("add")) k.add = timing_from(j.at("add"));
  if (j.contains("in_flight")) k.in_flight = in_flight_from(j.at("in_flight"));
  if (j.contains("tf32")) k.tf32 = tensor_ceiling_from(j.at("tf32"));  // reports before the tensor ceilings have none
  if (j.contains("int8")) k.int8 = tensor_ceiling_from(j.at("int8"));
  return k;
}

json clocks_json(const std::optional<ClockReading>& c) {
  if (!c) return nullptr;
  return {{"sm_mhz", c->sm_mhz}, {"memory_mhz", c->memory_mhz}, {"max_sm_mhz", c->max_sm_mhz},
          {"throttle_reasons", c->throttle_reasons}, {"utc", c->utc}};
}
std::optional<ClockReading> clocks_from(const json& j) {
  if (j.is_null()) return std::nullopt;
  return ClockReading{j.at("sm_mhz").get<unsigned>(), j.at("memory_mhz").get<unsigned>(), j.at("max_sm_mhz").get<unsigned>(),
                      j.at("throttle_reasons").get<unsigned long long>(), j.at("utc").get<std::string>()};
}

json program_run_json(const std::optional<ProgramRun>& p) {
  if (!p) return nullptr;
  return {{"loops", p->loops}, {"allocate_ms", p->allocate_ms}, {"to_device_ms", p->to_device_ms},
          {"kernels_ms", p->kernels_ms}, {"to_host_ms", p->to_host_ms}, {"free_ms", p->free_ms}};
}
std::optional<ProgramRun> program_run_from(const json& j) {
  if (j.is_null()) return std::nullopt;
  return ProgramRun{j.at("loops").get<int>(), j.at("allocate_ms").get<double>(), j.at("to_device_ms").get<double>(),
                    j.at("kernels_ms").get<double>(), j.at("to_host_ms").get<double>(), j.at("free_ms").get<double>()};
}

json kernels_json(const std::vector<KernelCounters>& kernels) {
  json out = json::array();
  for (const auto& k : kernels) {
    json metrics = json::object();
    for (const auto& [name, value] : k.metrics) metrics[name] = num(value);
    out.push_back({{"kernel", k.kernel}, {"grid", k.grid}, {"block", k.block}, {"metrics", metrics}});
  }
  return out;
}
std::vector<KernelCounters> kernels_from(const json& j) {
  std::vector<KernelCounters> out;
  for (const auto& k : j) {
    KernelCounters c{k.at("kernel").get<std::string>(), k.at("grid").get<std::string>(), k.at("block").get<std::string>(), {}};
    for (const auto& [name, value] : k.at("metrics").items()) c.metrics[name] = num_from(value);
    out.push_back(std::move(c));
  }
  return out;
}

json sanitizer_json(const std::vector<SanitizerRow>& rows) {
  json out = json::array();
  for (const auto& r : rows) {
    json tools = json::object();
    for (const auto& t : r.tools)
      tools[t.tool] = {{"verdict", t.verdict}, {"errors", t.errors}, {"first_error", t.first_error},
                       {"results_ok", t.results_ok}, {"results_detail", t.results_detail}};
    out.push_back({{"problem", r.problem}, {"id", r.id}, {"name", r.name}, {"passed", r.passed()}, {"tools", tools}});
  }
  return out;
}
std::vector<SanitizerRow> sanitizer_from(const json& j) {
  std::vector<SanitizerRow> out;
  for (const auto& r : j) {
    SanitizerRow row{r.at("problem").get<std::string>(), r.at("id").get<std::string>(), r.at("name").get<std::string>(), {}};
    for (const auto& [tool, t] : r.at("tools").items())
      row.tools.push_back({tool, t.at("verdict").get<std::string>(), t.at("errors").get<int>(),
                           t.at("first_error").get<std::string>(), t.value("results_ok", true),
                           t.value("results_detail", std::string())});
    out.push_back(std::move(row));
  }
  return out;
}

json tensor_ceiling_row_json(const VariantRow& v) {
  if (v.tensor_ceiling.empty()) return nullptr;
  return {{"name", v.tensor_ceiling}, {"gflops", v.tensor_ceiling_gflops}, {"noise", v.tensor_ceiling_noise}, {"products", v.tensor_products}};
}

json case_json(const CaseResult& c) {
  json params = json::object();
  for (const auto& [k, v] : c.params) params[k] = v;
  json variants = json::array();
  for (const auto& v : c.variants) {
    variants.push_back({{"id", v.id}, {"name", v.name}, {"adds", v.adds}, {"vendor", v.vendor}, {"library", v.library},
                        {"other_units", v.other_units}, {"tensor_ceiling", tensor_ceiling_row_json(v)}, {"claims", v.claims}, {"kernels", kernels_json(v.kernels)},
                        {"check", check_json(v.check)}, {"kernel", timing_json(v.kernel)},
                        {"remeasured", v.remeasured}, {"noisy", v.noisy}, {"invalid", v.invalid},
                        {"flags", row_flags(v)}, {"gflops", num(v.gflops)},
                        {"end_to_end", v.end_to_end ? timing_json(*v.end_to_end) : json(nullptr)},
                        {"program_run", program_run_json(v.program_run)},
                        {"bandwidth_gbs", num(v.bandwidth_gbs)}, {"step_speedup", num(v.step_speedup)},
                        {"cumulative_speedup", num(v.cumulative_speedup)},
                        {"vs_vendor", num(v.vs_vendor)}, {"of_ceiling", num(v.of_ceiling)},
                        {"of_size_copy", num(v.of_size_copy)}});
  }
  json cpu = json::array();
  for (const auto& r : c.cpu)
    cpu.push_back({{"name", r.name}, {"threads", r.threads}, {"time", timing_json(r.time)},
                   {"check", check_json(r.check)}, {"bandwidth_gbs", num(r.bandwidth_gbs)}});
  return {{"problem", c.problem}, {"params", params}, {"bytes", c.bytes}, {"flops", c.flops},
          {"l2_resident", c.l2_resident},
          {"ceiling", {{"name", c.ceiling_name}, {"gbs", c.ceiling_gbs}, {"noise", c.ceiling_noise}}},
          {"size_copy", c.size_copy ? timing_json(*c.size_copy) : json(nullptr)},
          {"variants", variants}, {"cpu", cpu}, {"notes", c.notes}};
}

CaseResult case_from(const json& j) {
  CaseResult c;
  c.problem = j.at("problem").get<std::string>();
  for (const auto& [k, v] : j.at("params").items()) c.params.emplace_back(k, v.get<std::string>());
  c.bytes = j.at("bytes").get<double>();
  c.ceiling_name = j.at("ceiling").at("name").get<std::string>();
  c.ceiling_gbs = j.at("ceiling").at("gbs").get<double>();
  c.ceiling_noise = j.at("ceiling").value("noise", 0.0);
  c.flops = j.value("flops", 0.0);
  c.l2_resident = j.value("l2_resident", false);
  if (j.contains("size_copy") && !j.at("size_copy").is_null()) c.size_copy = timing_from(j.at("size_copy"));
  for (const auto& v : j.at("variants")) {
    VariantRow r;
    r.id = v.at("id").get<std::string>();
    r.name = v.at("name").get<std::string>();
    r.adds = v.at("adds").get<std::string>();
    r.vendor = v.at("vendor").get<bool>();
    r.library = v.value("library", false);
    r.other_units = v.value("other_units", false);
    if (const auto t = v.find("tensor_ceiling"); t != v.end() && !t->is_null()) {
      r.tensor_ceiling = t->at("name").get<std::string>();
      r.tensor_ceiling_gflops = t->at("gflops").get<double>();
      r.tensor_ceiling_noise = t->value("noise", 0.0);
      r.tensor_products = t->at("products").get<int>();
    }
    r.claims = v.value("claims", std::vector<std::string>{});
    if (v.contains("kernels")) r.kernels = kernels_from(v.at("kernels"));
    r.check = check_from(v.at("check"));
    r.kernel = timing_from(v.at("kernel"));
    r.remeasured = v.value("remeasured", false);
    r.noisy = v.value("noisy", false);
    r.invalid = v.value("invalid", std::string());
    r.gflops = v.contains("gflops") ? num_from(v.at("gflops")) : kNaN;
    if (!v.at("end_to_end").is_null()) r.end_to_end = timing_from(v.at("end_to_end"));
    if (v.contains("program_run")) r.program_run = program_run_from(v.at("program_run"));
    r.bandwidth_gbs = num_from(v.at("bandwidth_gbs"));
    r.step_speedup = num_from(v.at("step_speedup"));
    r.cumulative_speedup = num_from(v.at("cumulative_speedup"));
    r.vs_vendor = num_from(v.at("vs_vendor"));
    r.of_ceiling = num_from(v.at("of_ceiling"));
    r.of_size_copy = v.contains("of_size_copy") ? num_from(v.at("of_size_copy")) : kNaN;
    c.variants.push_back(std::move(r));
  }
  for (const auto& v : j.at("cpu")) {
    CpuRow r;
    r.name = v.at("name").get<std::string>();
    r.threads = v.at("threads").get<int>();
    r.time = timing_from(v.at("time"));
    r.check = check_from(v.at("check"));
    r.bandwidth_gbs = num_from(v.at("bandwidth_gbs"));
    c.cpu.push_back(std::move(r));
  }
  if (j.contains("notes")) c.notes = j.at("notes").get<std::vector<std::string>>();
  return c;
}

}  // namespace

json timing_json(const TimingStats& t) {
  json samples = json::array();  // to the nanosecond: CUDA events resolve about half a microsecond
  for (double ms : t.samples_ms) samples.push_back(std::round(ms * 1e6) / 1e6);
  return {{"median_ms", t.median_ms}, {"min_ms", t.min_ms}, {"max_ms", t.max_ms}, {"reps", t.reps}, {"noise", t.noise},
          {"samples_ms", samples}};
}
TimingStats timing_from(const json& j) {
  // Reports before 2026-11-23 kept no samples: compare then judges from the noise alone.
  return {j.at("median_ms").get<double>(), j.at("min_ms").get<double>(), j.at("max_ms").get<double>(),
          j.at("reps").get<int>(), j.value("noise", 0.0), j.value("samples_ms", std::vector<double>{})};
}
json check_json(const CheckResult& c) {
  json j = {{"ok", c.ok}, {"error", num(c.error)}, {"tolerance", num(c.tolerance)}, {"detail", c.detail}};
  if (std::isfinite(c.median_error)) j["median_error"] = c.median_error;
  return j;
}
CheckResult check_from(const json& j) {
  CheckResult c;
  c.ok = j.at("ok").get<bool>();
  c.error = num_from(j.at("error"));
  c.tolerance = num_from(j.at("tolerance"));
  c.detail = j.at("detail").get<std::string>();
  if (j.contains("median_error")) c.median_error = num_from(j.at("median_error"));
  return c;
}

void derive_columns(CaseResult& c) {
  const bool rate = c.ceiling_name == "FMA";  // judged by GFLOP/s rather than GB/s
  for (auto& v : c.variants) {
    v.bandwidth_gbs = gbs(c.bytes, v.kernel.median_ms);
    v.gflops = c.flops > 0 ? ratio(c.flops / 1e9, v.kernel.median_ms * 1e-3) : kNaN;
    const bool tensor = !v.tensor_ceiling.empty();  // judged by its tensor cores' own ceiling
    v.of_ceiling = tensor          ? ratio(v.gflops * v.tensor_products, v.tensor_ceiling_gflops)
                   : v.other_units ? kNaN
                                   : ratio(rate ? v.gflops : v.bandwidth_gbs, c.ceiling_gbs);
    v.of_size_copy = v.other_units || !c.size_copy ? kNaN : ratio(c.size_copy->median_ms, v.kernel.median_ms);
    v.invalid.clear();
    const double allowed = 1.0 + v.kernel.noise + (tensor ? v.tensor_ceiling_noise : c.ceiling_noise);
    if (std::isfinite(v.of_ceiling) && v.of_ceiling > allowed)
      v.invalid = fmt::format("{:.0f}% of the {} ceiling, more than the measurement allows", 100 * v.of_ceiling,
                              tensor ? v.tensor_ceiling : c.ceiling_name);
  }
  const VariantRow* vendor = find_vendor(c);
  const double vendor_ms = vendor && vendor->invalid.empty() ? vendor->kernel.median_ms : 0.0;
  const VariantRow* previous = nullptr;
  const VariantRow* first = nullptr;
  for (auto& v : c.variants) {
    v.step_speedup = v.cumulative_speedup = v.vs_vendor = kNaN;
    if (!v.invalid.empty()) continue;  // never ranked
    v.vs_vendor = ratio(vendor_ms, v.kernel.median_ms);
    if (v.vendor) continue;  // the vendor stands outside the ladder's steps
    v.step_speedup = previous ? ratio(previous->kernel.median_ms, v.kernel.median_ms) : kNaN;
    if (!first) first = &v;
    v.cumulative_speedup = ratio(first->kernel.median_ms, v.kernel.median_ms);
    previous = &v;
  }
  for (auto& r : c.cpu) r.bandwidth_gbs = gbs(c.bytes, r.time.median_ms);
}

std::string params_text(const std::vector<std::pair<std::string, std::string>>& params, std::string_view separator) {
  std::string s;
  for (const auto& [k, v] : params) s += fmt::format("{}{}={}", s.empty() ? "" : separator, k, v);
  return s;
}

std::string row_flags(const VariantRow& v) {
  std::string s;
  auto add = [&s](const std::string& f) { s += (s.empty() ? "" : "; ") + f; };
  if (!v.invalid.empty()) add("INVALID: " + v.invalid);
  if (!v.tensor_ceiling.empty())
    add(v.tensor_products == 1 ? fmt::format("of the {} ceiling", v.tensor_ceiling)
                               : fmt::format("of the {} ceiling, {} products an operation", v.tensor_ceiling, v.tensor_products));
  else if (v.other_units)
    add("other units: the ceiling does not apply");
  if (v.noisy) add(fmt::format("noisy ({:.0f}% spread)", 100 * v.kernel.noise));
  else if (v.remeasured) add("re-measured");
  return s;
}

bool all_checks_passed(const Report& r) {
  for (const auto& c : r.cases)
    if (!failures(c).empty()) return false;
  return std::all_of(r.sanitizer.begin(), r.sanitizer.end(), [](const SanitizerRow& s) { return s.passed(); }) &&
         (!r.multi_gpu || multi_gpu_passed(*r.multi_gpu));
}

json to_json(const Report& r) {
  json cases = json::array();
  for (const auto& c : r.cases) cases.push_back(case_json(c));
  return {{"gpulab_version", r.gpulab_version}, {"commit", r.commit}, {"created_utc", r.created_utc},
          {"command", r.command}, {"device", r.device ? device_json(*r.device) : json(nullptr)},
          {"ceilings", r.ceilings ? ceilings_json(*r.ceilings) : json(nullptr)},
          {"clocks", {{"start", clocks_json(r.clocks_start)}, {"end", clocks_json(r.clocks_end)}}}, {"cases", cases},
          {"sanitizer", sanitizer_json(r.sanitizer)},
          {"multi_gpu", r.multi_gpu ? multi_gpu_json(*r.multi_gpu) : json(nullptr)}};
}

Report report_from_json(const json& j) {
  try {
    Report r;
    r.gpulab_version = j.at("gpulab_version").get<std::string>();
    r.commit = j.at("commit").get<std::string>();
    r.created_utc = j.at("created_utc").get<std::string>();
    r.command = j.at("command").get<std::string>();
    if (!j.at("device").is_null()) r.device = device_from(j.at("device"));
    if (!j.at("ceilings").is_null()) r.ceilings = ceilings_from(j.at("ceilings"));
    if (j.contains("clocks")) {
      r.clocks_start = clocks_from(j.at("clocks").at("start"));
      r.clocks_end = clocks_from(j.at("clocks").at("end"));
    }
    for (const auto& c : j.at("cases")) r.cases.push_back(case_from(c));
    if (j.contains("sanitizer")) r.sanitizer = sanitizer_from(j.at("sanitizer"));
    if (j.contains("multi_gpu") && !j.at("multi_gpu").is_null()) r.multi_gpu = multi_gpu_from(j.at("multi_gpu"));
    return r;
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("malformed gpulab report: ") + e.what());
  }
}

std::string to_csv(const Report& r) {
  std::string out =
      "problem,params,kind,id,name,ok,error,tolerance,median_ms,min_ms,max_ms,reps,bandwidth_gbs,"
      "step_speedup,cumulative_speedup,vs_vendor,of_ceiling,end_to_end_ms,threads,noise,gflops,flags,median_error,of_size_copy\n";
  for (const auto& c : r.cases) {
    std::string params;
    for (const auto& [k, v] : c.params) params += (params.empty() ? "" : ";") + k + "=" + v;
    for (const auto& v : c.variants) {
      out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},,{},{},{},{},{}\n", csv_field(c.problem),
                         csv_field(params), v.vendor ? "vendor" : "gpu", csv_field(v.id), csv_field(v.name),
                         v.check.ok ? 1 : 0, csv_num(v.check.error), csv_num(v.check.tolerance),
                         csv_num(v.kernel.median_ms), csv_num(v.kernel.min_ms), csv_num(v.kernel.max_ms),
                         v.kernel.reps, csv_num(v.bandwidth_gbs), csv_num(v.step_speedup),
                         csv_num(v.cumulative_speedup), csv_num(v.vs_vendor), csv_num(v.of_ceiling),
                         v.end_to_end ? csv_num(v.end_to_end->median_ms) : "", csv_num(v.kernel.noise), csv_num(v.gflops),
                         csv_field(row_flags(v)), csv_num(v.check.median_error), csv_num(v.of_size_copy));
    }
    for (const auto& p : c.cpu) {
      out += fmt::format("{},{},cpu,,{},{},{},{},{},{},{},{},{},,,,,,{},{},,,{},\n", csv_field(c.problem),
                         csv_field(params), csv_field(p.name), p.check.ok ? 1 : 0, csv_num(p.check.error),
                         csv_num(p.check.tolerance), csv_num(p.time.median_ms), csv_num(p.time.min_ms),
                         csv_num(p.time.max_ms), p.time.reps, csv_num(p.bandwidth_gbs), p.threads, csv_num(p.time.noise),
                         csv_num(p.check.median_error));
    }
  }
  // A multi-GPU run's rows have columns of their own: its CSV is their table (after the ladders'
  // where a report holds both, with a header of its own).
  if (r.multi_gpu) return r.cases.empty() ? multi_csv(*r.multi_gpu) : out + "\n" + multi_csv(*r.multi_gpu);
  return out;
}

std::string to_markdown(const Report& r) {
  std::string out = "# gpulab report\n\n";
  out += fmt::format("- gpulab {} (commit {}), {}\n", r.gpulab_version, r.commit, r.created_utc);
  out += fmt::format("- command: `{}`\n", r.command);
  if (r.device)
    out += fmt::format("- device: {} (cc {}.{}, {} SMs, {:.1f} GiB, L2 {:.0f} MiB, theoretical {:.0f} GB/s)\n",
                       r.device->name, r.device->cc_major, r.device->cc_minor, r.device->sm_count,
                       static_cast<double>(r.device->global_mem_bytes) / (1u << 30),
                       static_cast<double>(r.device->l2_bytes) / (1u << 20),
                       r.device->theoretical_bandwidth_gbs());
  if (r.ceilings) out += "- measured ceilings: " + ceilings_line(*r.ceilings) + "\n";
  if (r.clocks_start || r.clocks_end) out += "- " + clocks_line(r) + "\n";
  if (r.ceilings && !r.ceilings->in_flight.empty()) {
    out += "\n## The read by bytes in flight an SM\n\n" + in_flight_summary(*r.ceilings) + "\n\n";
    render_markdown(out, in_flight_table(*r.ceilings));
  }
  for (const auto& c : r.cases) {
    out += "\n## " + case_title(c) + "\n\n" + case_subtitle(c) + "\n\n";
    render_markdown(out, gpu_table(c));
    if (!c.cpu.empty()) {
      out += "\n";
      render_markdown(out, cpu_table(c));
    }
    if (has_program_runs(c)) {
      out += "\n";
      render_markdown(out, program_run_table(c));
    }
    if (has_counters(c)) {
      out += "\nNsight Compute's counters of one launch (`*`: a counter the rung's line claims to change):\n\n";
      render_markdown(out, counters_table(c));
    }
    for (const auto& note : c.notes) out += "\n- " + note + "\n";
    for (const auto& f : failures(c)) out += "\n**FAILED** " + f + "\n";
  }
  if (!r.sanitizer.empty()) {
    out += "\n## compute-sanitizer, each rung at small edge sizes\n\n";
    render_markdown(out, sanitizer_table(r.sanitizer));
  }
  if (r.multi_gpu) render_multi_markdown(out, *r.multi_gpu);
  return out;
}

void print_terminal(std::ostream& os, const Report& r) {
  if (r.device)
    os << fmt::format("{} (cc {}.{}, {} SMs), gpulab {} commit {}\n", r.device->name, r.device->cc_major,
                      r.device->cc_minor, r.device->sm_count, r.gpulab_version, r.commit);
  if (r.ceilings) os << "measured ceilings: " << ceilings_line(*r.ceilings) << "\n";
  if (r.clocks_start || r.clocks_end) os << clocks_line(r) << "\n";
  if (r.ceilings && !r.ceilings->in_flight.empty()) {
    os << "\nthe read by bytes in flight an SM: " << in_flight_summary(*r.ceilings) << "\n";
    render_aligned(os, in_flight_table(*r.ceilings));
  }
  for (const auto& c : r.cases) {
    os << "\n" << case_title(c) << "   (" << case_subtitle(c) << ")\n";
    render_aligned(os, gpu_table(c));
    if (!c.cpu.empty()) render_aligned(os, cpu_table(c));
    if (has_program_runs(c)) render_aligned(os, program_run_table(c));
    if (has_counters(c)) {
      os << "  Nsight Compute's counters of one launch (*: a counter the rung's line claims to change)\n";
      render_aligned(os, counters_table(c));
    }
    for (const auto& note : c.notes) os << "  note: " << note << "\n";
    for (const auto& f : failures(c)) os << "  FAILED " << f << "\n";
  }
  if (!r.sanitizer.empty()) {
    os << "\ncompute-sanitizer, each rung at small edge sizes\n";
    render_aligned(os, sanitizer_table(r.sanitizer));
  }
  if (r.multi_gpu) print_multi(os, *r.multi_gpu);
}

std::string utc_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace gpulab
