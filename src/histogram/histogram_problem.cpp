#include "histogram/histogram_problem.hpp"

#include "core/cli_options.hpp"
#include "core/memory.hpp"
#include "core/sizes.hpp"
#include "multi/multi_bench.hpp"

#include <gpulab/device_buffer.hpp>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

namespace gpulab {

constexpr std::size_t kCountBytes = sizeof(std::uint32_t);

HistogramCase::HistogramCase(HistogramCaseSpec spec, std::span<const HistogramRung> table)
    : spec_(std::move(spec)), table_(table) {}

std::vector<std::pair<std::string, std::string>> HistogramCase::params() const {
  std::vector<std::pair<std::string, std::string>> p{{"input", spec_.source},
                                                     {"n", describe_size(spec_.values.size())},
                                                     {"m", describe_size(spec_.m)},
                                                     {"block", std::to_string(spec_.block)}};
  if (spec_.offset > 0) p.emplace_back("offset", std::to_string(spec_.offset));
  return p;
}

Work HistogramCase::work() const {
  // Every value read once, every count written once.
  const std::size_t bytes = spec_.values.size() * 4 + std::size_t{spec_.m} * kCountBytes;
  return {static_cast<double>(bytes), 0.0, CeilingKind::read, bytes};
}

std::vector<InputArray> HistogramCase::inputs() const {
  return {{spec_.values.data(), spec_.values.size_bytes(), spec_.offset * 4}};
}

// 0xFFFFFFFF: no bin can hold 2^32 − 1 values unless n = 2^32 − 1 and all fall in it.
std::vector<OutputArray> HistogramCase::outputs() const { return {{std::size_t{spec_.m} * kCountBytes, 0xFF}}; }

void HistogramCase::compute_reference() { ref_ = histogram_reference(spec_.values, spec_.m); }
void HistogramCase::run_baseline() { baseline_ = histogram_openmp(spec_.values, spec_.m); }
CheckResult HistogramCase::check_baseline() const { return check_histogram(baseline_, ref_); }

std::optional<std::string> HistogramCase::unsupported(std::size_t rung) const {
  if (table_[rung].supports(spec_.values.size(), spec_.m)) return std::nullopt;
  return fmt::format("cannot count {} values into m = {} bins on this device", spec_.values.size(), spec_.m);
}

std::size_t HistogramCase::workspace_bytes(std::size_t rung) const {
  return table_[rung].workspace_bytes(spec_.values.size(), spec_.m, spec_.block);
}

void HistogramCase::launch(std::size_t rung, const Arrays& arrays, Workspace ws, cudaStream_t stream) const {
  table_[rung].run(arrays.input<std::int32_t>(0), spec_.values.size(), spec_.m, arrays.output<std::uint32_t>(0), ws.data,
                   ws.bytes, spec_.block, stream);
}

CheckResult HistogramCase::check(std::size_t, std::span<const std::span<const std::byte>> outputs) const {
  return check_histogram(as<std::uint32_t>(outputs[0]), ref_);
}

CLI::Validator distribution_list_validator() {
  return word_list_validator("distributions", "uniform, narrow, degenerate",
                             [](const std::string& w) { return parse_histogram_distribution(w).has_value(); },
                             "DISTRIBUTIONS");
}

std::vector<HistogramDistribution> parse_distributions(const std::string& s) {
  if (s == "all") return {HistogramDistribution::uniform, HistogramDistribution::narrow, HistogramDistribution::degenerate};
  std::vector<HistogramDistribution> out;
  for (const auto& item : split_commas(s)) out.push_back(*parse_histogram_distribution(item));
  return out;
}

namespace {

class HistogramProblem final : public Problem {
 public:
  std::string_view name() const override { return "histogram"; }
  std::string_view summary() const override { return "counts of int32 values in m bins"; }
  std::string_view semantics() const override {
    return "value v goes to bin ((v % m) + m) % m; counts must match the CPU exactly";
  }
  std::vector<RungInfo> ladder() const override { return ladder_info(histogram_rungs()); }

  void add_options(CLI::App& cmd) override {
    cmd.add_option("-n,--n", sizes_, "numbers of values (below 2^32), e.g. 2^25,1000")->check(size_list_validator())
        ->capture_default_str();
    cmd.add_option("-m,--bins", bins_, "numbers of bins (1 to 2^32-1), e.g. 8,256,2^20")->check(size_list_validator())
        ->capture_default_str();
    cmd.add_option("-d,--dist", dists_, "uniform, narrow, degenerate (comma list) or all")->check(distribution_list_validator())
        ->capture_default_str();
    cmd.add_option("--input", input_file_,
                   "a file of raw little-endian int32 values to count instead (then -n and -d are not used)");
    cmd.add_option("-b,--block", block_, "threads per block of rungs " + block_rungs(ladder()) + " (a multiple of 32, 32-1024)")
        ->capture_default_str();
  }

  void validate() const override {
    if (!valid_histogram_block(block_))
      throw UsageError(fmt::format("histogram: {} threads per block is not a multiple of 32 in [32, 1024]", block_));
    for (std::size_t m : size_list(bins_))
      if (m == 0 || m > 0xFFFFFFFFull) throw UsageError(fmt::format("histogram: m = {} bins; m must be in [1, 2^32)", m));
    if (size_list(bins_).empty()) throw UsageError("histogram: the list of bins is empty");
    if (input_file_.empty()) {
      for (std::size_t n : size_list(sizes_)) validate_histogram_shape(n, 1);
    } else {
      std::error_code ec;
      if (!std::filesystem::is_regular_file(input_file_, ec))
        throw UsageError(fmt::format("input file '{}' does not exist or is not a regular file", input_file_));
    }
  }

  std::size_t case_count() const override {
    const std::size_t inputs = input_file_.empty() ? parse_distributions(dists_).size() * size_list(sizes_).size() : 1;
    return inputs * size_list(bins_).size();
  }
  void for_each_case(std::uint64_t seed, const std::function<void(BenchCase&)>& run) const override {
    auto each_m = [&](const std::string& source, const PinnedBuffer<std::int32_t>& values) {
      for (std::size_t m : size_list(bins_)) {
        HistogramCase c({source, std::span<const std::int32_t>(values.data(), values.size()), static_cast<std::uint32_t>(m),
                         block_});
        run(c);
      }
    };
    if (!input_file_.empty()) {
      const std::vector<std::int32_t> loaded = load_raw_int32(input_file_, host_memory_allowance());
      PinnedBuffer<std::int32_t> values(loaded.size());
      std::copy(loaded.begin(), loaded.end(), values.data());
      each_m("file:" + std::filesystem::path(input_file_).filename().string(), values);
      return;
    }
    for (HistogramDistribution d : parse_distributions(dists_))
      for (std::size_t n : size_list(sizes_)) {
        PinnedBuffer<std::int32_t> values(n);
        fill_histogram_input(values.span(), d, seed);
        each_m(std::string(histogram_distribution_name(d)), values);
      }
  }

  bool has_multi_gpu() const override { return true; }
  void for_each_multi_case(std::uint64_t seed, const std::function<void(const MultiCaseMaker&)>& run) const override {
    if (!input_file_.empty()) throw UsageError("histogram --gpus takes generated inputs (--dist), not --input");
    for (HistogramDistribution d : parse_distributions(dists_))
      for (std::size_t n : size_list(sizes_))
        for (std::size_t m : size_list(bins_))
          run([=](std::size_t scale) { return make_histogram_multi(d, n * scale, static_cast<std::uint32_t>(m), seed); });
  }

  // m = 1 and 7 (packed registers), 256, 5000 (halfword counters), 2^17+1 (the cluster's passes).
  std::vector<std::string> sanitize_args() const override {
    return {"-n", "1000,70001", "-m", "1,7,256,5000,2^17+1", "-d", "uniform,degenerate"};
  }

  std::vector<Showcase> showcase() const override {
    std::vector<Showcase> runs;
    for (const char* loops : {"1", "10"})
      runs.push_back({fmt::format("seed002_loops{}", loops),
                      fmt::format("seed 002's table: n = 2^25, m = 8, 1024 threads, LOOPS {}", loops),
                      {"bench", "histogram", "--n", "2^25", "--bins", "8", "--dist", "uniform", "--block", "1024", "--loops",
                       loops}});
    runs.push_back({"histogram", "the histogram ladder: m = 8 ... 2^20, every distribution", {"bench", "histogram", "--no-cpu"}});
    runs.push_back({"hist_sampled", "histogram past shared memory: hot-cached atomics, the partition and the library's sampled "
                     "choice, n = 2^22 ... 2^28, m = 2^17, 2^20, 2^24, 2^26, every distribution",
                     {"bench", "histogram", "-n", "2^22,2^24,2^26,2^28", "-m", "2^17,2^20,2^24,2^26", "--variants",
                      "hot_cached_global,range_partitioned,range_ranked,library", "--no-cpu", "--reps", "10"}});
    runs.push_back({"profile_histogram", "histogram: every rung under Nsight Compute, n = 2^24, m = 8, 256, 2^20",
                    {"profile", "histogram", "-n", "2^24", "-m", "8,256,2^20", "-d", "uniform"}, true, ShowcasePart::profiles});
    for (auto& s : over_gpus("histogram", "histogram: 2^20 and 2^31 values, m = 256 and 2^20",
                             {"bench", "histogram", "-n", "2^20,2^31", "-m", "256,2^20", "-d", "uniform", "--reps", "10"}))
      runs.push_back(s);
    // The counts are 32-bit: up to eight GPUs' values together stay below 2^32 (2^31 − 1 a GPU,
    // the size of the strong rows, was refused over four).
    runs.push_back({"multi_histogram_weak", "histogram: weak scaling, 2^29 − 1 values a GPU",
                    {"bench", "histogram", "-n", "536870911", "-m", "256", "-d", "uniform", "--weak", "--reps", "10"}, true,
                    ShowcasePart::multi_weak});
    return runs;
  }

 private:
  std::string sizes_ = "2^26";
  std::string bins_ = "8,256,4096,65536,2^20";
  std::string dists_ = "all";
  std::string input_file_;
  unsigned block_ = 256;
};

}  // namespace

std::unique_ptr<Problem> make_histogram_problem() { return std::make_unique<HistogramProblem>(); }

}  // namespace gpulab
