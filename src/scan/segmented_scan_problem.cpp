#include "scan/segmented_scan_problem.hpp"

#include "core/cli_options.hpp"
#include "core/random.hpp"
#include "core/sizes.hpp"
#include "scan/scan_problem.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cmath>

namespace gpulab {
void segment_starts(std::size_t n, std::size_t mean, std::uint64_t seed, std::uint8_t* heads, std::int32_t* keys) {
  std::uint64_t s = seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
  const auto next = [&] { return s ^= s << 13, s ^= s >> 7, s ^= s << 17, s; };
  std::uint32_t segment = 0;
  std::size_t next_head = 0;
  for (std::size_t i = 0; i < n; ++i) {
    heads[i] = 0;
    if (i == next_head) {
      if (i > 0) ++segment;
      heads[i] = static_cast<std::uint8_t>(1 + next() % 255);  // any nonzero byte starts a segment
      const double u = static_cast<double>(next() >> 11) * 0x1p-53;
      next_head = i + 1 + static_cast<std::size_t>(std::llround(u * 2.0 * static_cast<double>(mean - 1)));
    }
    if (keys != nullptr) keys[i] = static_cast<std::int32_t>(segment & 0x7fffffffu);
  }
}

template <class T>
SegmentedScanCase<T>::SegmentedScanCase(SegmentedScanSpec spec)
    : spec_(spec), values_(spec.n), heads_(spec.n), keys_(spec.n) {
  fill_random(std::span<T>(values_.data(), spec.n), spec.seed);
  segment_starts(spec.n, std::max<std::size_t>(spec.mean_segment, 1), spec.seed, heads_.data(), keys_.data());
}

template <class T>
std::vector<std::pair<std::string, std::string>> SegmentedScanCase<T>::params() const {
  return {{"type", std::string(dtype_name(dtype_of<T>()))},
          {"kind", std::string(scan_kind_name(spec_.kind))},
          {"n", describe_size(spec_.n)},
          {"segments", describe_size(spec_.mean_segment)}};
}

template <class T>
Work SegmentedScanCase<T>::work() const {
  // Every value and flag read once, every output written once: the copy ceiling judges it.
  const std::size_t bytes = spec_.n * (2 * sizeof(T) + 1);
  return {static_cast<double>(bytes), 0.0, CeilingKind::copy, bytes};
}

template <class T>
std::vector<InputArray> SegmentedScanCase<T>::inputs() const {
  return {{values_.data(), spec_.n * sizeof(T)}, {heads_.data(), spec_.n}, {keys_.data(), spec_.n * sizeof(std::int32_t)}};
}

template <class T>
std::vector<OutputArray> SegmentedScanCase<T>::outputs() const {
  return {{spec_.n * sizeof(T), 0xFF}};  // int32: -1 everywhere; floats: NaN, which never passes
}

template <class T>
void SegmentedScanCase<T>::compute_reference() {
  ref_ = std::make_unique_for_overwrite<Ref[]>(spec_.n);
  scan_reference(values(), spec_.kind, std::span<Ref>(ref_.get(), spec_.n), heads());
}

template <class T>
void SegmentedScanCase<T>::run_baseline() {
  // A serial loop in the output's own arithmetic (integers wrapping).
  if (!baseline_) baseline_ = std::make_unique_for_overwrite<T[]>(spec_.n);
  using W = std::conditional_t<std::is_integral_v<T>, std::uint32_t, T>;
  W s = 0;
  for (std::size_t i = 0; i < spec_.n; ++i) {
    if (heads_.data()[i] != 0) s = 0;
    if (spec_.kind == ScanKind::exclusive) baseline_[i] = static_cast<T>(s);
    s += static_cast<W>(values_.data()[i]);
    if (spec_.kind == ScanKind::inclusive) baseline_[i] = static_cast<T>(s);
  }
}

template <class T>
CheckResult SegmentedScanCase<T>::check_baseline() const {
  return check_scan<T>(std::span<const T>(baseline_.get(), spec_.n), values(), {ref_.get(), spec_.n}, spec_.kind,
                       {spec_.n + 1}, heads());
}

template <class T>
std::size_t SegmentedScanCase<T>::workspace_bytes(std::size_t rung) const {
  return segmented_scan_rungs<T>()[rung].workspace_bytes(spec_.n);
}

template <class T>
void SegmentedScanCase<T>::launch(std::size_t rung, const Arrays& arrays, Workspace ws, cudaStream_t stream) const {
  segmented_scan_rungs<T>()[rung].run(arrays.input<T>(0), arrays.input<std::uint8_t>(1), arrays.input<std::int32_t>(2),
                                      arrays.output<T>(0), spec_.n, spec_.kind, ws.data, ws.bytes, stream);
}

template <class T>
CheckResult SegmentedScanCase<T>::check(std::size_t rung, std::span<const std::span<const std::byte>> outputs) const {
  return check_scan<T>(as<T>(outputs[0]), values(), {ref_.get(), spec_.n}, spec_.kind,
                       segmented_scan_rungs<T>()[rung].depth(spec_.n), heads());
}

template class SegmentedScanCase<std::int32_t>;
template class SegmentedScanCase<float>;
template class SegmentedScanCase<double>;

namespace {

class SegmentedScanProblem final : public Problem {
 public:
  std::string_view name() const override { return "segmented_scan"; }
  std::string_view summary() const override {
    return "prefix sums restarted at every segment's first element (int32, float32, float64)";
  }
  std::string_view semantics() const override {
    return "integer prefixes wrap modulo 2^32 within each segment; float element i passes within gamma_k(i) * the sum "
           "of |x_l| over its segment up to i, k(i) the rung's chain of additions";
  }
  std::vector<RungInfo> ladder() const override { return ladder_info(segmented_scan_rungs<float>()); }

  void add_options(CLI::App& cmd) override {
    cmd.add_option("-n,--n", sizes_, "element counts, e.g. 2^24,1000,2^31+1")->check(size_list_validator())->capture_default_str();
    cmd.add_option("-t,--type", types_, "input types: " + type_choices(kSegmentedScanTypes) + " (comma list) or all")
        ->check(type_list_validator(kSegmentedScanTypes))
        ->capture_default_str();
    add_scan_kind_option(cmd, kinds_);
    cmd.add_option("--segments", segments_, "segments' mean lengths, e.g. 1,32,1000,2^20")
        ->check(size_list_validator())
        ->capture_default_str();
  }

  void validate() const override {
    for (std::size_t mean : size_list(segments_))
      if (mean == 0) throw UsageError("segmented_scan: a segment's mean length must be at least 1");
  }

  int default_reps() const override { return 30; }

  std::size_t case_count() const override {
    return parse_types(types_, kSegmentedScanTypes).size() * parse_scan_kinds(kinds_).size() * size_list(sizes_).size() *
           size_list(segments_).size();
  }
  void for_each_case(std::uint64_t seed, const std::function<void(BenchCase&)>& run) const override {
    for (DType type : parse_types(types_, kSegmentedScanTypes))
      for (ScanKind kind : parse_scan_kinds(kinds_))
        for (std::size_t n : size_list(sizes_))
          for (std::size_t mean : size_list(segments_))
            visit_dtype(type, [&](auto t) {
              SegmentedScanCase<decltype(t)> c({n, kind, mean, seed});
              run(c);
            });
  }

  std::vector<std::string> sanitize_args() const override {
    return {"-n", "1,1000,70001", "-t", "all", "--kind", "all", "--segments", "1,7,5000"};
  }

  std::vector<Showcase> showcase() const override {
    return {{"segmented_scan", "segmented scans: int32, float32, float64, 2^28, segments of 1, 32, 1000 and 2^20 on average",
             {"bench", "segmented_scan", "-n", "2^28", "--e2e-reps", "1", "--no-cpu"}},
            {"profile_segmented_scan", "segmented scan: every rung under Nsight Compute, float32, n = 2^24, segments of 1000",
             {"profile", "segmented_scan", "-n", "2^24", "-t", "float32", "--segments", "1000"}, true, ShowcasePart::profiles},
            {"peers_segmented_scan", "segmented scan: what users compose instead (torch.cumsum, cummax and a gather), n = 2^28",
             {"src/scan/peers_segmented.py", "--n", "2^28", "--reps", "3"}, true, ShowcasePart::peers}};
  }

 private:
  std::string sizes_ = "2^24,2^28";
  std::string types_ = "all";
  std::string kinds_ = "inclusive";
  std::string segments_ = "1,32,1000,2^20";
};

}  // namespace

std::unique_ptr<Problem> make_segmented_scan_problem() { return std::make_unique<SegmentedScanProblem>(); }

}  // namespace gpulab
