#include "histogram/float_histogram_problem.hpp"

#include "core/cli_options.hpp"
#include "core/sizes.hpp"
#include "histogram/histogram_cpu.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

namespace gpulab {
namespace {

constexpr double kLo = -1.0, kHi = 1.0;  // the range of every case (its values reach past both ends)

std::string_view bins_name(FloatBins b) { return b == FloatBins::range ? "range" : "edges"; }

}  // namespace

template <class T>
FloatHistogramCase<T>::FloatHistogramCase(FloatHistogramSpec spec) : spec_(spec), values_(spec.n) {
  fill_float_histogram_input<T>(values_.span(), spec.seed);
  if (spec.bins == FloatBins::edges) edges_ = uneven_edges<T>(spec.m);
}

template <class T>
std::vector<std::pair<std::string, std::string>> FloatHistogramCase<T>::params() const {
  return {{"type", std::string(dtype_name(dtype_of<T>()))},
          {"bins", std::string(bins_name(spec_.bins))},
          {"n", describe_size(spec_.n)},
          {"m", describe_size(spec_.m)}};
}

template <class T>
Work FloatHistogramCase<T>::work() const {
  // Every value read once; the counts and edges are small beside them.
  const std::size_t bytes = spec_.n * sizeof(T) + std::size_t{spec_.m} * sizeof(std::uint32_t) + edges_.size() * sizeof(T);
  return {static_cast<double>(bytes), 0.0, CeilingKind::read, bytes};
}

template <class T>
std::vector<InputArray> FloatHistogramCase<T>::inputs() const {
  return {{values_.data(), spec_.n * sizeof(T)}, {edges_.data(), edges_.size() * sizeof(T)}};
}

template <class T>
std::vector<OutputArray> FloatHistogramCase<T>::outputs() const {
  return {{std::size_t{spec_.m} * sizeof(std::uint32_t), 0xFF}};
}

template <class T>
std::vector<std::uint32_t> FloatHistogramCase<T>::count_on_cpu() const {
  const std::span<const T> values(values_.data(), spec_.n);
  return spec_.bins == FloatBins::range ? histogram_range_reference<T>(values, spec_.m, T(kLo), T(kHi))
                                        : histogram_edges_reference<T>(values, edges_);
}

template <class T>
void FloatHistogramCase<T>::compute_reference() {
  ref_ = count_on_cpu();
}

template <class T>
void FloatHistogramCase<T>::run_baseline() {
  baseline_ = count_on_cpu();
}

template <class T>
CheckResult FloatHistogramCase<T>::check_baseline() const {
  return check_histogram(baseline_, ref_);
}

template <class T>
void FloatHistogramCase<T>::launch(std::size_t rung, const Arrays& arrays, Workspace, cudaStream_t stream) const {
  const FloatHistogramArgs<T> args{arrays.input<T>(0), spec_.n, spec_.m, T(kLo), T(kHi),
                                   spec_.bins == FloatBins::edges ? arrays.input<T>(1) : nullptr};
  float_histogram_rungs<T>()[rung].run(args, arrays.output<std::uint32_t>(0), stream);
}

template <class T>
CheckResult FloatHistogramCase<T>::check(std::size_t, std::span<const std::span<const std::byte>> outputs) const {
  return check_histogram(as<std::uint32_t>(outputs[0]), ref_);
}

template class FloatHistogramCase<float>;
template class FloatHistogramCase<double>;

namespace {

class FloatHistogramProblem final : public Problem {
 public:
  std::string_view name() const override { return "float_histogram"; }
  std::string_view summary() const override { return "counts of float32 or float64 values in equal bins or between edges"; }
  std::string_view semantics() const override {
    return "range: bin (int)((v - lo)*m/(hi - lo)) in the values' type, hi in the last bin (torch.histc); edges: "
           "edges[b] <= v < edges[b+1], the last bin closed (torch.histogram); outside and NaN not counted; exact";
  }
  std::vector<RungInfo> ladder() const override { return ladder_info(float_histogram_rungs<float>()); }

  void add_options(CLI::App& cmd) override {
    cmd.add_option("-n,--n", sizes_, "value counts, e.g. 2^24,1000")->check(size_list_validator())->capture_default_str();
    cmd.add_option("-m,--bins", bins_, "numbers of bins, e.g. 256,4096")->check(size_list_validator())->capture_default_str();
    cmd.add_option("-t,--type", types_, "value types: " + type_choices(kFloatHistogramTypes) + " (comma list) or all")
        ->check(type_list_validator(kFloatHistogramTypes))
        ->capture_default_str();
    cmd.add_option("--form", forms_, "range (equal bins over [-1, 1]), edges (uneven sorted edges) or all")
        ->check(CLI::IsMember({"range", "edges", "all"}))
        ->capture_default_str();
  }

  void validate() const override {
    for (std::size_t m : size_list(bins_))
      if (m == 0 || m >= 0xFFFFFFFFu) throw UsageError(fmt::format("float_histogram: m = {} bins; m must be in [1, 2^32 − 1)", m));
    for (std::size_t n : size_list(sizes_))
      if (n >= (std::size_t{1} << 32)) throw UsageError(fmt::format("float_histogram: n = {} values; n must be below 2^32", n));
  }

  std::size_t case_count() const override {
    return parse_types(types_, kFloatHistogramTypes).size() * forms().size() * size_list(sizes_).size() * size_list(bins_).size();
  }
  void for_each_case(std::uint64_t seed, const std::function<void(BenchCase&)>& run) const override {
    for (DType type : parse_types(types_, kFloatHistogramTypes))
      for (FloatBins form : forms())
        for (std::size_t n : size_list(sizes_))
          for (std::size_t m : size_list(bins_))
            visit_dtype_among<float, double>(type, [&](auto t) {
              FloatHistogramCase<decltype(t)> c({form, n, static_cast<std::uint32_t>(m), seed});
              run(c);
            });
  }

  std::vector<std::string> sanitize_args() const override { return {"-n", "1,1000,70001", "-m", "1,7,256,5000", "-t", "all"}; }

  std::vector<Showcase> showcase() const override {
    return {{"float_histogram", "float histograms: float32 and float64 values, torch.histc's and torch.histogram's bins",
             {"bench", "float_histogram", "--no-cpu"}},
            {"peers_float_histogram", "float histograms: torch.histc, bucketize + bincount, cupy.histogram, n = 2^26",
             {"src/histogram/peers_float.py", "--n", "2^26"}, true, ShowcasePart::peers}};
  }

 private:
  std::vector<FloatBins> forms() const {
    if (forms_ == "all") return {FloatBins::range, FloatBins::edges};
    return {forms_ == "range" ? FloatBins::range : FloatBins::edges};
  }

  std::string sizes_ = "2^26";
  std::string bins_ = "256,4096";
  std::string types_ = "all";
  std::string forms_ = "all";
};

}  // namespace

std::unique_ptr<Problem> make_float_histogram_problem() { return std::make_unique<FloatHistogramProblem>(); }

}  // namespace gpulab
