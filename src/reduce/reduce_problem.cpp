#include "reduce/reduce_problem.hpp"

#include "core/cli_options.hpp"
#include "core/dtype.hpp"
#include "core/random.hpp"
#include "core/sizes.hpp"
#include "multi/multi_bench.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <omp.h>

#include <cstring>

namespace gpulab {
namespace {

/// A poison byte whose repetition is not the expected result, so an unwritten output fails.
template <class T>
unsigned char poison_byte_for(T expected) {
  T all_ff;
  std::memset(&all_ff, 0xFF, sizeof(T));
  return std::memcmp(&all_ff, &expected, sizeof(T)) == 0 ? 0xA5 : 0xFF;
}

}  // namespace

template <class T>
ReduceCase<T>::ReduceCase(ReduceCaseSpec spec, std::span<const ReduceRung<T>> table)
    : spec_(spec), table_(table), input_(spec.n) {
  fill_random(input_.span(), spec.seed);
}

template <class T>
std::vector<std::pair<std::string, std::string>> ReduceCase<T>::params() const {
  std::vector<std::pair<std::string, std::string>> p{{"type", std::string(dtype_name(dtype_of<T>()))},
                                                     {"n", describe_size(spec_.n)},
                                                     {"block", std::to_string(spec_.block)}};
  if (spec_.offset > 0) p.emplace_back("offset", std::to_string(spec_.offset));
  return p;
}

template <class T>
Work ReduceCase<T>::work() const {
  // Every element read once, one value written.
  return {static_cast<double>(spec_.n * sizeof(T) + sizeof(T)), 0.0, CeilingKind::read, spec_.n * sizeof(T)};
}

template <class T>
std::vector<InputArray> ReduceCase<T>::inputs() const {
  return {{input_.data(), spec_.n * sizeof(T), spec_.offset * sizeof(T)}};
}

template <class T>
std::vector<OutputArray> ReduceCase<T>::outputs() const {
  return {{sizeof(T), poison_byte_for(ref_.value)}};
}

template <class T>
void ReduceCase<T>::compute_reference() {
  ref_ = reduce_reference(std::span<const T>(input_.data(), spec_.n));
}

template <class T>
void ReduceCase<T>::run_baseline() {
  baseline_ = reduce_openmp(std::span<const T>(input_.data(), spec_.n));
}

template <class T>
CheckResult ReduceCase<T>::check_baseline() const {
  return check_reduce(baseline_, ref_, reduce_openmp_depth(spec_.n, static_cast<std::size_t>(omp_get_max_threads())));
}

template <class T>
std::size_t ReduceCase<T>::workspace_bytes(std::size_t rung) const {
  return table_[rung].workspace_bytes(spec_.n, spec_.block);
}

template <class T>
void ReduceCase<T>::launch(std::size_t rung, const Arrays& arrays, Workspace ws, cudaStream_t stream) const {
  table_[rung].run(arrays.input<T>(0), spec_.n, arrays.output<T>(0), ws.data, ws.bytes, spec_.block, stream);
}

template <class T>
CheckResult ReduceCase<T>::check(std::size_t rung, std::span<const std::span<const std::byte>> outputs) const {
  return check_reduce(as<T>(outputs[0])[0], ref_, table_[rung].depth(spec_.n, spec_.block));
}

template class ReduceCase<std::int32_t>;
template class ReduceCase<float>;
template class ReduceCase<double>;

namespace {

class ReduceProblem final : public Problem {
 public:
  std::string_view name() const override { return "reduce"; }
  std::string_view summary() const override { return "sum of a vector (int32, float32, float64)"; }
  std::string_view semantics() const override {
    return "int32 sums wrap modulo 2^32 (the same bits as CUB and a serial loop); float sums pass within "
           "gamma_k * sum|x|, k the rung's accumulation depth";
  }
  std::vector<RungInfo> ladder() const override { return ladder_info(reduce_rungs<float>()); }

  void add_options(CLI::App& cmd) override {
    cmd.add_option("-n,--n", sizes_, "element counts, e.g. 2^24,1000,2^20+1")->check(size_list_validator())->capture_default_str();
    cmd.add_option("-t,--type", types_, "int32, float32, float64 (comma list) or all")->check(type_list_validator())
        ->capture_default_str();
    cmd.add_option("-b,--block", block_, "threads per block of rungs " + block_rungs(ladder()) + " (a power of two, 32-1024)")
        ->capture_default_str();
  }

  void validate() const override {
    if (!valid_reduce_block(block_))
      throw UsageError(fmt::format("reduce: block size {} is not a power of two in [32, 1024]", block_));
  }

  int default_reps() const override { return 30; }

  std::size_t case_count() const override { return parse_types(types_).size() * size_list(sizes_).size(); }
  void for_each_case(std::uint64_t seed, const std::function<void(BenchCase&)>& run) const override {
    for (DType type : parse_types(types_))
      for (std::size_t n : size_list(sizes_))
        visit_dtype(type, [&](auto t) {
          ReduceCase<decltype(t)> c({n, block_, seed});
          run(c);
        });
  }

  std::vector<std::string> sanitize_args() const override { return {"-n", "1,1000,2^16+3", "-t", "all"}; }

  bool has_multi_gpu() const override { return true; }
  void for_each_multi_case(std::uint64_t seed, const std::function<void(const MultiCaseMaker&)>& run) const override {
    for (DType type : parse_types(types_))
      for (std::size_t n : size_list(sizes_)) run([=](std::size_t scale) { return make_reduce_multi(type, n * scale, seed); });
  }

  std::vector<Showcase> showcase() const override {
    std::vector<Showcase> runs{
        {"seed003", "seed 003's table: float32, n = 2^24, 64 threads, rungs 1-5",
         {"bench", "reduce", "--type", "float32", "--n", "2^24", "--block", "64", "--variants", "1,2,3,4,5,library,vendor"}},
        {"seed000", "seed 000's shape: float64, 1024 threads, n = 2^20, 2^23, 2^25",
         {"bench", "reduce", "--type", "float64", "--n", "2^20,2^23,2^25", "--block", "1024", "--variants",
          "1,2,3,library,vendor", "--no-cpu"}},
        {"reduce", "the reduction ladder", {"bench", "reduce"}},
        {"profile_reduce", "reduce: every rung under Nsight Compute, float32, n = 2^24",
         {"profile", "reduce", "-n", "2^24", "-t", "float32"}, true, ShowcasePart::profiles},
        {"multi_reduce_weak", "reduce: weak scaling, 8 GB a GPU", {"bench", "reduce", "-n", "2^31", "-t", "float32", "--weak", "--reps", "10"},
         true, ShowcasePart::multi_weak},
    };
    for (auto& s : over_gpus("reduce_small", "reduce: 8 and 2^20 floats", {"bench", "reduce", "-n", "8,2^20", "-t", "float32"}))
      runs.push_back(s);
    for (auto& s : over_gpus("reduce", "reduce: 8 GB", {"bench", "reduce", "-n", "2^31", "-t", "float32", "--reps", "10"}))
      runs.push_back(s);
    return runs;
  }

 private:
  std::string sizes_ = "2^20,2^24,2^28";
  std::string types_ = "all";
  unsigned block_ = 256;
};

}  // namespace

std::unique_ptr<Problem> make_reduce_problem() { return std::make_unique<ReduceProblem>(); }

}  // namespace gpulab
