#include "scan/scan_problem.hpp"

#include "core/cli_options.hpp"
#include "core/dtype.hpp"
#include "core/random.hpp"
#include "core/sizes.hpp"
#include "multi/multi_bench.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <omp.h>

namespace gpulab {

template <class In>
ScanCase<In>::ScanCase(ScanCaseSpec spec, std::span<const ScanRung<In>> table)
    : spec_(spec), table_(table), input_(spec.n) {
  fill_random(std::span<In>(input_.data(), spec.n), spec.seed);
}

template <class In>
std::vector<std::pair<std::string, std::string>> ScanCase<In>::params() const {
  std::vector<std::pair<std::string, std::string>> p{{"type", std::string(dtype_name(dtype_of<In>()))},
                                                     {"kind", std::string(scan_kind_name(spec_.kind))},
                                                     {"n", describe_size(spec_.n)},
                                                     {"block", std::to_string(spec_.block)}};
  if (spec_.offset > 0) p.emplace_back("offset", std::to_string(spec_.offset));
  return p;
}

template <class In>
Work ScanCase<In>::work() const {
  // Every element read once and its prefix written once: the copy ceiling judges it.
  const std::size_t bytes = spec_.n * (sizeof(In) + sizeof(Out));
  return {static_cast<double>(bytes), 0.0, CeilingKind::copy, bytes};
}

template <class In>
std::vector<InputArray> ScanCase<In>::inputs() const {
  return {{input_.data(), spec_.n * sizeof(In), spec_.offset * sizeof(In)}};
}

template <class In>
std::vector<OutputArray> ScanCase<In>::outputs() const {
  return {{spec_.n * sizeof(Out), 0xFF}};  // int32: -1 everywhere; floats: NaN, which never passes
}

template <class In>
void ScanCase<In>::compute_reference() {
  ref_ = std::make_unique_for_overwrite<Ref[]>(spec_.n);
  scan_reference(input(), spec_.kind, std::span<Ref>(ref_.get(), spec_.n));
}

template <class In>
void ScanCase<In>::run_baseline() {
  if (!baseline_) baseline_ = std::make_unique_for_overwrite<Out[]>(spec_.n);
  scan_openmp(input(), spec_.kind, std::span<Out>(baseline_.get(), spec_.n));
}

template <class In>
CheckResult ScanCase<In>::check_baseline() const {
  return check_scan(std::span<const Out>(baseline_.get(), spec_.n), input(), reference(), spec_.kind,
                    scan_openmp_depth(spec_.n, static_cast<std::size_t>(omp_get_max_threads())));
}

template <class In>
std::size_t ScanCase<In>::workspace_bytes(std::size_t rung) const {
  return table_[rung].workspace_bytes(spec_.n, spec_.block);
}

template <class In>
void ScanCase<In>::launch(std::size_t rung, const Arrays& arrays, Workspace ws, cudaStream_t stream) const {
  table_[rung].run(arrays.input<In>(0), arrays.output<Out>(0), spec_.n, spec_.kind, ws.data, ws.bytes, spec_.block,
                   stream);
}

template <class In>
CheckResult ScanCase<In>::check(std::size_t rung, std::span<const std::span<const std::byte>> outputs) const {
  return check_scan(as<Out>(outputs[0]), input(), reference(), spec_.kind, table_[rung].depth(spec_.n, spec_.block));
}

template class ScanCase<std::int8_t>;
template class ScanCase<std::int16_t>;
template class ScanCase<std::int32_t>;
template class ScanCase<float>;
template class ScanCase<double>;

namespace {

class ScanProblem final : public Problem {
 public:
  std::string_view name() const override { return "scan"; }
  std::string_view summary() const override {
    return "inclusive and exclusive prefix sums (int32, float32, float64; int8 and int16 summed into int32)";
  }
  std::string_view semantics() const override {
    return "integer prefixes wrap modulo 2^32 (the same bits as a serial loop); float element i passes within "
           "gamma_k(i) * sum_{l<=i} |x_l|, k(i) the rung's chain of additions (it grows by one a tile for a chained "
           "scan)";
  }
  std::vector<RungInfo> ladder() const override { return ladder_info(scan_rungs<float>()); }

  void add_options(CLI::App& cmd) override {
    cmd.add_option("-n,--n", sizes_, "element counts, e.g. 2^24,1000,2^31+1")->check(size_list_validator())->capture_default_str();
    cmd.add_option("-t,--type", types_, "input types: " + type_choices(kScanTypes) + " (comma list) or all")
        ->check(type_list_validator(kScanTypes))
        ->capture_default_str();
    add_scan_kind_option(cmd, kinds_);
    cmd.add_option("-b,--block", block_, "threads per block of rungs " + block_rungs(ladder()) + " (a power of two, 32-1024)")
        ->capture_default_str();
  }

  void validate() const override {
    if (!valid_scan_block(block_))
      throw UsageError(fmt::format("scan: block size {} is not a power of two in [32, 1024]", block_));
  }

  int default_reps() const override { return 30; }

  std::size_t case_count() const override {
    return parse_types(types_, kScanTypes).size() * parse_scan_kinds(kinds_).size() * size_list(sizes_).size();
  }
  void for_each_case(std::uint64_t seed, const std::function<void(BenchCase&)>& run) const override {
    for (DType type : parse_types(types_, kScanTypes))
      for (ScanKind kind : parse_scan_kinds(kinds_))
        for (std::size_t n : size_list(sizes_))
          visit_scan_type(type, [&](auto t) {
            ScanCase<decltype(t)> c({n, kind, block_, seed});
            run(c);
          });
  }

  std::vector<std::string> sanitize_args() const override {
    return {"-n", "1,1000,70001", "-t", "float32,int8", "--kind", "all"};
  }

  bool has_multi_gpu() const override { return true; }
  void for_each_multi_case(std::uint64_t seed, const std::function<void(const MultiCaseMaker&)>& run) const override {
    for (DType type : parse_types(types_, kScanTypes))
      for (ScanKind kind : parse_scan_kinds(kinds_))
        for (std::size_t n : size_list(sizes_)) run([=](std::size_t scale) { return make_scan_multi(type, kind, n * scale, seed); });
  }

  std::vector<Showcase> showcase() const override {
    std::vector<Showcase> runs{
        {"scan", "the scan ladder: every type, inclusive, n = 2^20, 2^24, 2^28", {"bench", "scan"}},
        {"scan_exclusive", "exclusive scans, int32 and float32, n = 2^24, 2^28",
         {"bench", "scan", "--kind", "exclusive", "--type", "int32,float32", "--n", "2^24,2^28", "--no-cpu"}},
        {"scan_small", "small scans, where launches and look-back latency count: n = 2^16, 2^18",
         {"bench", "scan", "--n", "2^16,2^18", "--no-cpu"}},
        {"scan_past_2g", "past 2^31 elements: every type, n = 2^31 + 1001",
         {"bench", "scan", "--n", "2^31+1001", "--no-cpu", "--reps", "10"}},
        {"profile_scan", "scan: every rung under Nsight Compute (the manual's kernel without and with padding among them), "
         "float32, n = 2^24",
         {"profile", "scan", "-n", "2^24", "-t", "float32"}, true, ShowcasePart::profiles},
        {"peers_scan", "scan: what users call instead (torch.cumsum, cupy.cumsum), n = 2^28", {"src/scan/peers.py", "--n", "2^28"},
         true, ShowcasePart::peers},
        {"multi_scan_kinds", "scan: both kinds, four types, resident",
         {"bench", "scan", "-n", "2^20,2^28", "-t", "float32,int32,int8,float64", "--kind", "inclusive,exclusive", "--placement",
          "resident", "--reps", "10"},
         true, ShowcasePart::multi_more},
        {"multi_scan_weak", "scan: weak scaling, 4 GB a GPU in, 4 GB out",
         {"bench", "scan", "-n", "2^30", "-t", "float32", "--kind", "inclusive", "--placement", "resident", "--weak", "--reps", "10"},
         true, ShowcasePart::multi_weak},
    };
    for (auto& s : over_gpus("scan", "scan: float32, 2^20 and 2^30",
                             {"bench", "scan", "-n", "2^20,2^30", "-t", "float32", "--kind", "inclusive", "--reps", "10"}))
      runs.push_back(s);
    return runs;
  }

 private:
  std::string sizes_ = "2^20,2^24,2^28";
  std::string types_ = "all";
  std::string kinds_ = "inclusive";
  unsigned block_ = 256;
};

}  // namespace

std::unique_ptr<Problem> make_scan_problem() { return std::make_unique<ScanProblem>(); }

void add_scan_kind_option(CLI::App& cmd, std::string& kinds) {
  cmd.add_option("--kind", kinds, "inclusive, exclusive (comma list) or all")
      ->check(word_list_validator("kinds", "inclusive, exclusive",
                                  [](const std::string& w) { return w == "inclusive" || w == "exclusive"; }, "KINDS"))
      ->capture_default_str();
}

std::vector<ScanKind> parse_scan_kinds(const std::string& text) {
  if (text == "all") return {ScanKind::inclusive, ScanKind::exclusive};
  std::vector<ScanKind> kinds;
  for (const auto& word : split_commas(text)) kinds.push_back(word == "exclusive" ? ScanKind::exclusive : ScanKind::inclusive);
  return kinds;
}

}  // namespace gpulab
