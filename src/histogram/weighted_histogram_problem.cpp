#include "histogram/weighted_histogram_problem.hpp"

#include "core/cli_options.hpp"
#include "core/random.hpp"
#include "core/sizes.hpp"
#include "histogram/histogram_problem.hpp"

#include <gpulab/histogram.hpp>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <limits>

namespace gpulab {

template <class W>
WeightedHistogramCase<W>::WeightedHistogramCase(WeightedHistogramSpec spec) : spec_(spec), values_(spec.n), weights_(spec.n) {
  fill_histogram_input(values_.span(), spec.distribution, spec.seed);
  fill_random(weights_.span(), spec.seed + 1);
}

template <class W>
std::vector<std::pair<std::string, std::string>> WeightedHistogramCase<W>::params() const {
  return {{"weights", std::string(dtype_name(dtype_of<W>()))},
          {"dist", std::string(histogram_distribution_name(spec_.distribution))},
          {"n", describe_size(spec_.n)},
          {"m", describe_size(spec_.m)}};
}

template <class W>
Work WeightedHistogramCase<W>::work() const {
  // Every value and weight read once; the sums are small beside them.
  const std::size_t bytes = spec_.n * (sizeof(std::int32_t) + sizeof(W)) + std::size_t{spec_.m} * sizeof(W);
  return {static_cast<double>(bytes), 0.0, CeilingKind::read, bytes};
}

template <class W>
std::vector<InputArray> WeightedHistogramCase<W>::inputs() const {
  return {{values_.data(), spec_.n * sizeof(std::int32_t)}, {weights_.data(), spec_.n * sizeof(W)}};
}

template <class W>
std::vector<OutputArray> WeightedHistogramCase<W>::outputs() const {
  return {{std::size_t{spec_.m} * sizeof(W), 0xFF}};  // NaN, which never passes
}

template <class W>
void WeightedHistogramCase<W>::compute_reference() {
  ref_ = histogram_weighted_reference<W>({values_.data(), spec_.n}, std::span<const W>(weights_.data(), spec_.n), spec_.m);
}

template <class W>
void WeightedHistogramCase<W>::run_baseline() {
  // A serial loop in double, rounded once: the library's arithmetic in another order.
  std::vector<double> sums(spec_.m, 0.0);
  for (std::size_t i = 0; i < spec_.n; ++i) sums[histogram_bin(values_.data()[i], spec_.m)] += static_cast<double>(weights_.data()[i]);
  baseline_.assign(sums.begin(), sums.end());
}

template <class W>
CheckResult WeightedHistogramCase<W>::check_baseline() const {
  return check_histogram_weighted<W>(baseline_, ref_, spec_.n + 1);
}

template <class W>
std::optional<std::string> WeightedHistogramCase<W>::unsupported(std::size_t rung) const {
  if (!weighted_histogram_rungs<W>()[rung].shared_memory_only || spec_.m <= histogram_weighted_max_bins()) return std::nullopt;
  return fmt::format("m = {} is past the {} bins a warp's sub-histogram of doubles can hold here", spec_.m,
                     histogram_weighted_max_bins());
}

template <class W>
std::size_t WeightedHistogramCase<W>::workspace_bytes(std::size_t rung) const {
  return weighted_histogram_rungs<W>()[rung].workspace_bytes(spec_.n, spec_.m);
}

template <class W>
void WeightedHistogramCase<W>::launch(std::size_t rung, const Arrays& arrays, Workspace ws, cudaStream_t stream) const {
  weighted_histogram_rungs<W>()[rung].run(arrays.input<std::int32_t>(0), arrays.input<W>(1), spec_.n, spec_.m,
                                          arrays.output<W>(0), ws.data, ws.bytes, stream);
}

template <class W>
CheckResult WeightedHistogramCase<W>::check(std::size_t rung, std::span<const std::span<const std::byte>> outputs) const {
  if (weighted_histogram_rungs<W>()[rung].sums_in_w) return check_histogram_weighted_in_w<W>(as<W>(outputs[0]), ref_);
  // Any order of at most n additions in double (a chunk's 32 lanes, a warp's chunks, the warps, the
  // blocks: n + 1000 bounds them), then one rounding to W.
  return check_histogram_weighted<W>(as<W>(outputs[0]), ref_, spec_.n + 1000);
}

template class WeightedHistogramCase<float>;
template class WeightedHistogramCase<double>;

namespace {

class WeightedHistogramProblem final : public Problem {
 public:
  std::string_view name() const override { return "weighted_histogram"; }
  std::string_view summary() const override { return "sums of float32 or float64 weights by bin of int32 values"; }
  std::string_view semantics() const override {
    return "value v goes to bin ((v % m) + m) % m; each bin within u_W*|sum| + gamma_(n+1000)(double)*sum|w| of the "
           "compensated serial sum; an empty bin exactly 0";
  }
  std::vector<RungInfo> ladder() const override { return ladder_info(weighted_histogram_rungs<float>()); }

  void add_options(CLI::App& cmd) override {
    cmd.add_option("-n,--n", sizes_, "value counts, e.g. 2^24,1000")->check(size_list_validator())->capture_default_str();
    cmd.add_option("-m,--bins", bins_, "numbers of bins, e.g. 256,4096")->check(size_list_validator())->capture_default_str();
    cmd.add_option("-t,--type", types_, "weight types: " + type_choices(kWeightedHistogramTypes) + " (comma list) or all")
        ->check(type_list_validator(kWeightedHistogramTypes))
        ->capture_default_str();
    cmd.add_option("-d,--dist", dists_, "uniform, narrow, degenerate (comma list) or all")
        ->check(distribution_list_validator())
        ->capture_default_str();
  }

  void validate() const override {
    for (std::size_t m : size_list(bins_))
      if (m == 0 || m > std::numeric_limits<std::uint32_t>::max())
        throw UsageError(fmt::format("weighted_histogram: m = {} bins; m must be in [1, 2^32)", m));
  }

  std::size_t case_count() const override {
    return parse_types(types_, kWeightedHistogramTypes).size() * parse_distributions(dists_).size() * size_list(sizes_).size() *
           size_list(bins_).size();
  }
  void for_each_case(std::uint64_t seed, const std::function<void(BenchCase&)>& run) const override {
    for (DType type : parse_types(types_, kWeightedHistogramTypes))
      for (HistogramDistribution d : parse_distributions(dists_))
        for (std::size_t n : size_list(sizes_))
          for (std::size_t m : size_list(bins_))
            visit_dtype_among<float, double>(type, [&](auto w) {
              WeightedHistogramCase<decltype(w)> c({d, n, static_cast<std::uint32_t>(m), seed});
              run(c);
            });
  }

  std::vector<std::string> sanitize_args() const override {
    return {"-n", "1,1000,70001", "-m", "1,7,256,5000", "-t", "all", "-d", "uniform,degenerate"};
  }

  std::vector<Showcase> showcase() const override {
    return {{"weighted_histogram", "weighted histograms: float32 and float64 weights, m = 256 and 4096, every distribution",
             {"bench", "weighted_histogram", "--no-cpu"}},
            {"peers_weighted_histogram", "weighted histogram: torch.bincount(weights=), n = 2^26",
             {"src/histogram/peers_weighted.py", "--n", "2^26"}, true, ShowcasePart::peers}};
  }

 private:
  std::string sizes_ = "2^26";
  std::string bins_ = "256,4096";
  std::string types_ = "all";
  std::string dists_ = "all";
};

}  // namespace

std::unique_ptr<Problem> make_weighted_histogram_problem() { return std::make_unique<WeightedHistogramProblem>(); }

}  // namespace gpulab
