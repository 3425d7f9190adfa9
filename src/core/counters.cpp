#include "core/counters.hpp"

#include "core/report.hpp"
#include "core/tables.hpp"

#include <gpulab/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <regex>

namespace gpulab {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
using Metrics = std::map<std::string, double>;

double metric(const Metrics& m, const char* name) {
  const auto it = m.find(name);
  return it == m.end() ? kNaN : it->second;
}
double sum_of(const Metrics& m, std::initializer_list<const char*> names) {
  double s = 0.0;
  for (const char* n : names) s += metric(m, n);
  return s;
}

// The metrics, by what they measure.
constexpr const char* kDuration = "gpu__time_duration.sum";
constexpr const char* kDramPct = "dram__throughput.avg.pct_of_peak_sustained_elapsed";
constexpr const char* kDramRead = "dram__bytes_read.sum";
constexpr const char* kDramWrite = "dram__bytes_write.sum";
constexpr const char* kOccupancy = "sm__warps_active.avg.pct_of_peak_sustained_active";
constexpr const char* kThreadInst = "smsp__thread_inst_executed_pred_on.sum";
constexpr const char* kInst = "smsp__inst_executed.sum";
constexpr const char* kUniformPct = "smsp__sass_average_branch_targets_threads_uniform.pct";
constexpr const char* kBranches = "smsp__sass_branch_targets.sum";
constexpr const char* kConflictsLd = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum";
constexpr const char* kConflictsSt = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum";
constexpr const char* kConflictsAtom = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum";
constexpr const char* kSharedLd = "smsp__sass_inst_executed_op_shared_ld.sum";
constexpr const char* kSharedSt = "smsp__sass_inst_executed_op_shared_st.sum";
constexpr const char* kSharedAtom = "smsp__sass_inst_executed_op_shared_atom.sum";
constexpr const char* kLdSectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
constexpr const char* kLdRequests = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum";
constexpr const char* kStSectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum";
constexpr const char* kStRequests = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum";
constexpr const char* kGlobalLd = "smsp__sass_inst_executed_op_global_ld.sum";
constexpr const char* kRegisters = "launch__registers_per_thread";
constexpr const char* kLocalLd = "l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum";
constexpr const char* kLocalSt = "l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum";
constexpr const char* kIssue = "smsp__issue_active.avg.pct_of_peak_sustained_active";
constexpr const char* kFma = "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active";
constexpr const char* kL2Read = "lts__t_sectors_op_read.sum";

constexpr const char* kAllMetrics[] = {
    kDuration, kDramPct, kDramRead, kDramWrite, kOccupancy, kThreadInst, kInst, kUniformPct, kBranches,
    kConflictsLd, kConflictsSt, kConflictsAtom, kSharedLd, kSharedSt, kSharedAtom, kLdSectors, kLdRequests,
    kStSectors, kStRequests, kGlobalLd, kRegisters, kLocalLd, kLocalSt, kIssue, kFma, kL2Read};

enum class Combine { ratio, max };

/// A counter: Σ num ÷ Σ den over a rung's kernels (Σ num without a den), times `scale`; or the
/// largest num.
struct Counter {
  CounterInfo info;
  double (*num)(const Metrics&);
  double (*den)(const Metrics&);
  double scale = 1.0;
  Combine combine = Combine::ratio;
  const char* format = "{:.1f}";
};

// A share of a duration: percentages of peak weighted by each kernel's time.
template <const char* const* Name>
double timed(const Metrics& m) {
  return metric(m, *Name) * metric(m, kDuration);
}
double duration(const Metrics& m) { return metric(m, kDuration); }
template <const char* const* Name>
double plain(const Metrics& m) {
  return metric(m, *Name);
}

const Counter kCounters[] = {
    {{"time", "µs", "kernel time under ncu (clocks unlocked, caches flushed before each pass)"},
     plain<&kDuration>, nullptr, 1e-3, Combine::ratio, "{:.1f}"},
    {{"dram", "DRAM %", "DRAM throughput, % of its peak over the kernel's time"}, timed<&kDramPct>, duration},
    {{"dram_bytes", "DRAM MB", "bytes read and written in DRAM"},
     [](const Metrics& m) { return sum_of(m, {kDramRead, kDramWrite}); }, nullptr, 1e-6, Combine::ratio, "{:.3g}"},
    {{"occupancy", "occup %", "achieved occupancy: warps resident per cycle, % of the SM's maximum"},
     timed<&kOccupancy>, duration},
    {{"divergence", "lanes on %",
      "threads active and predicated on per instruction, % of 32: divergent branches and predicated-off lanes alike"},
     plain<&kThreadInst>, [](const Metrics& m) { return 32 * metric(m, kInst); }, 100.0},
    {{"branches", "uniform br %", "branches taken the same way by every active thread of the warp, %"},
     [](const Metrics& m) { return metric(m, kUniformPct) * metric(m, kBranches); }, plain<&kBranches>},
    {{"bank_conflicts", "conflicts/req", "shared-memory bank conflicts per shared load, store or atomic (0: none)"},
     [](const Metrics& m) { return sum_of(m, {kConflictsLd, kConflictsSt, kConflictsAtom}); },
     [](const Metrics& m) { return sum_of(m, {kSharedLd, kSharedSt, kSharedAtom}); }, 1.0, Combine::ratio, "{:.2f}"},
    {{"load_sectors", "ld sect/req", "32-byte sectors per global load request (4: 4-byte loads coalesced; 32: scattered)"},
     plain<&kLdSectors>, plain<&kLdRequests>, 1.0, Combine::ratio, "{:.2f}"},
    {{"store_sectors", "st sect/req", "32-byte sectors per global store request"}, plain<&kStSectors>,
     plain<&kStRequests>, 1.0, Combine::ratio, "{:.2f}"},
    {{"global_loads", "ld inst M", "global load instructions executed (warp-level), millions"}, plain<&kGlobalLd>, nullptr,
     1e-6, Combine::ratio, "{:.3g}"},
    {{"instructions", "inst M", "instructions executed (warp-level), millions"}, plain<&kInst>, nullptr, 1e-6,
     Combine::ratio, "{:.3g}"},
    {{"registers", "regs", "registers per thread"}, plain<&kRegisters>, nullptr, 1.0, Combine::max, "{:.0f}"},
    {{"local_memory", "local KB", "local-memory bytes loaded and stored (spills), KB"},
     [](const Metrics& m) { return sum_of(m, {kLocalLd, kLocalSt}); }, nullptr, 1e-3, Combine::ratio, "{:.3g}"},
    {{"issue", "issue %", "cycles a scheduler issued an instruction, % of active cycles"}, timed<&kIssue>, duration},
    {{"fma", "FMA pipe %", "cycles the FMA pipe was busy, % of active cycles"}, timed<&kFma>, duration},
    {{"l2_read", "L2 read MB", "bytes read at the L2 (32-byte sectors; TMA's copies included)"},
     [](const Metrics& m) { return 32 * metric(m, kL2Read); }, nullptr, 1e-6, Combine::ratio, "{:.4g}"},
};

const Counter* find_counter(std::string_view key) {
  for (const auto& c : kCounters)
    if (c.info.key == key) return &c;
  return nullptr;
}

/// One CSV record from `text` at `pos` (RFC 4180: quoted fields, "" for a quote); advances `pos`.
std::vector<std::string> csv_record(std::string_view text, std::size_t& pos) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  while (pos < text.size()) {
    const char ch = text[pos++];
    if (quoted) {
      if (ch == '"' && pos < text.size() && text[pos] == '"') fields.back() += '"', ++pos;
      else if (ch == '"') quoted = false;
      else fields.back() += ch;
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      fields.emplace_back();
    } else if (ch == '\n') {
      break;
    } else if (ch != '\r') {
      fields.back() += ch;
    }
  }
  return fields;
}

/// "1,980,000" → 1980000; "" or "n/a" → nullopt.
std::optional<double> csv_number(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), ','), s.end());
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0') return std::nullopt;
  return v;
}

std::string short_kernel_name(const std::string& name) {
  // "void ns::Kernel<T, 256>(const T*, int)" → "Kernel": templates, parameters and namespaces go.
  std::string s;
  int depth = 0;
  for (char ch : name) {
    if (ch == '<' || ch == '(') ++depth;
    else if (ch == '>' || ch == ')') depth = std::max(0, depth - 1);
    else if (depth == 0) s += ch;
  }
  if (const auto sp = s.rfind(' '); sp != std::string::npos && sp + 1 < s.size()) s = s.substr(sp + 1);
  if (const auto ns = s.rfind("::"); ns != std::string::npos) s = s.substr(ns + 2);
  return s.empty() ? name : s;
}

}  // namespace

std::span<const CounterInfo> counter_infos() {
  static const std::vector<CounterInfo> infos = [] {
    std::vector<CounterInfo> v;
    for (const auto& c : kCounters) v.push_back(c.info);
    return v;
  }();
  return infos;
}

std::string ncu_metric_list() {
  std::string s;
  for (const char* m : kAllMetrics) {
    if (!s.empty()) s += ',';
    s += m;
  }
  return s;
}

std::string profile_range_name(std::size_t case_index, std::size_t rung_index) {
  return fmt::format("case {} rung {}", case_index, rung_index);
}

std::string ncu_range_filter() { return fmt::format("regex:{}@case [0-9]+ rung [0-9]+/", kProfileDomain); }

double counter_value(std::string_view key, std::span<const KernelCounters> kernels) {
  const Counter* c = find_counter(key);
  if (!c || kernels.empty()) return kNaN;
  if (c->combine == Combine::max) {
    double best = kNaN;
    for (const auto& k : kernels) {
      const double v = c->num(k.metrics);
      if (std::isfinite(v) && !(v <= best)) best = v;
    }
    return best * c->scale;
  }
  double num = 0.0, den = c->den ? 0.0 : 1.0;
  for (const auto& k : kernels) {
    num += c->num(k.metrics);
    if (c->den) den += c->den(k.metrics);
  }
  return std::isfinite(num) && std::isfinite(den) && den > 0 ? c->scale * num / den : kNaN;
}

std::string format_counter(std::string_view key, double value) {
  const Counter* c = find_counter(key);
  if (!c || !std::isfinite(value)) return "–";
  return fmt::format(fmt::runtime(c->format), value);
}

bool is_counter_key(std::string_view key) { return find_counter(key) != nullptr; }

std::vector<std::string> claim_words(std::string_view claims) {
  std::vector<std::string> words;
  std::string word;
  for (char ch : std::string(claims) + " ") {
    if (ch == ' ' || ch == ',') {
      if (!word.empty()) words.push_back(word);
      word.clear();
    } else {
      word += ch;
    }
  }
  return words;
}

ProfiledKernels parse_ncu_csv(std::string_view csv) {
  ProfiledKernels out;
  std::size_t pos = 0;
  std::vector<std::string> header;
  while (pos < csv.size() && header.empty()) {
    const std::size_t start = pos;
    auto record = csv_record(csv, pos);
    if (csv[start] == '"' && record.size() > 1 && record[0] == "ID") header = std::move(record);
  }
  if (header.empty()) throw Error("ncu printed no table (no CSV header with an ID column)");
  auto column = [&](auto&& matches) -> std::ptrdiff_t {
    const auto it = std::find_if(header.begin(), header.end(), matches);
    return it == header.end() ? -1 : it - header.begin();
  };
  const auto name_col = column([](const std::string& h) { return h == "Kernel Name"; });
  const auto grid_col = column([](const std::string& h) { return h == "Grid Size"; });
  const auto block_col = column([](const std::string& h) { return h == "Block Size"; });
  const auto nvtx_col = column([](const std::string& h) { return h.rfind("thread Domain:Push/Pop_Range", 0) == 0; });
  if (name_col < 0 || nvtx_col < 0) throw Error("ncu's table has no kernel name or NVTX column (was --nvtx given?)");
  const std::regex range(std::string(kProfileDomain) + ":case ([0-9]+) rung ([0-9]+)");
  while (pos < csv.size()) {
    const std::size_t start = pos;
    const auto record = csv_record(csv, pos);
    if (csv[start] != '"' || record.empty() || record[0].empty()) continue;  // ==PROF== lines, the units row
    if (record.size() != header.size())
      throw Error(fmt::format("ncu's row {} has {} fields where the header has {}", record[0], record.size(), header.size()));
    std::smatch m;
    if (!std::regex_search(record[static_cast<std::size_t>(nvtx_col)], m, range)) continue;  // outside every range
    KernelCounters k;
    k.kernel = record[static_cast<std::size_t>(name_col)];
    if (grid_col >= 0) k.grid = record[static_cast<std::size_t>(grid_col)];
    if (block_col >= 0) k.block = record[static_cast<std::size_t>(block_col)];
    for (const char* name : kAllMetrics) {
      const auto col = column([&](const std::string& h) { return h == name; });
      if (col < 0) continue;
      if (auto v = csv_number(record[static_cast<std::size_t>(col)])) k.metrics[name] = *v;
    }
    out[{std::stoul(m[1].str()), std::stoul(m[2].str())}].push_back(std::move(k));
  }
  return out;
}

bool has_counters(const CaseResult& c) {
  return std::any_of(c.variants.begin(), c.variants.end(), [](const VariantRow& v) { return !v.kernels.empty(); });
}

Table counters_table(const CaseResult& c) {
  Table t;
  t.header = {"#", "variant / kernel"};
  for (const auto& k : kCounters) t.header.emplace_back(k.info.label);
  t.header.emplace_back("what its line claims: the rung before → this one");
  t.right = std::vector<bool>(t.header.size(), true);
  t.right[1] = t.right.back() = false;
  if (!has_counters(c)) return t;
  const VariantRow* previous = nullptr;
  for (const auto& v : c.variants) {
    if (v.kernels.empty()) continue;
    std::vector<std::string> row{v.id, v.name};
    for (const auto& k : kCounters) {
      const bool claimed = std::find(v.claims.begin(), v.claims.end(), k.info.key) != v.claims.end();
      if (claimed) t.marked.insert({t.rows.size(), row.size()});
      row.push_back(format_counter(k.info.key, counter_value(k.info.key, v.kernels)));
    }
    std::string claims;
    for (const auto& key : v.claims) {
      const Counter* k = find_counter(key);
      if (!k) continue;
      const std::string now = format_counter(key, counter_value(key, v.kernels));
      claims += (claims.empty() ? "" : "; ") + std::string(k->info.label) + " " +
                (previous && !v.vendor ? format_counter(key, counter_value(key, previous->kernels)) + " → " + now : now);
    }
    row.push_back(claims);
    t.rows.push_back(std::move(row));
    t.row_kinds.push_back(v.vendor ? "vendor" : v.library ? "library" : "rung");
    if (v.kernels.size() > 1)
      for (const auto& kernel : v.kernels) {
        std::vector<std::string> sub{"", "· " + short_kernel_name(kernel.kernel) + " " + kernel.grid + "x" + kernel.block};
        for (const auto& k : kCounters)
          sub.push_back(format_counter(k.info.key, counter_value(k.info.key, std::span(&kernel, 1))));
        sub.emplace_back();
        t.rows.push_back(std::move(sub));
        t.row_kinds.emplace_back("kernel");
      }
    if (!v.vendor) previous = &v;
  }
  return t;
}

}  // namespace gpulab
