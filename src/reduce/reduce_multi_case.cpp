// The reduction over several GPUs for the runner (multi/multi_bench.hpp): the one-GPU case's
// input split by elements, checked against the same compensated CPU sum.
#include "reduce/reduce_problem.hpp"

#include "core/dtype.hpp"
#include "core/random.hpp"
#include "core/sizes.hpp"
#include "multi/multi_bench.hpp"

#include <gpulab/device_buffer.hpp>
#include <gpulab/multi/reduce.hpp>
#include <gpulab/reduce.hpp>

#include <cstring>

namespace gpulab {
namespace {

/// The sum of n values split by elements.
template <class T>
class ReduceMulti final : public MultiCase {
 public:
  ReduceMulti(std::size_t n, std::uint64_t seed) : input_(n) { fill_random(input_.span(), seed); }
  std::vector<std::pair<std::string, std::string>> params() const override {
    return {{"type", std::string(dtype_name(dtype_of<T>()))}, {"n", describe_size(input_.size())}};
  }
  double bytes() const override { return static_cast<double>(input_.bytes()); }
  std::vector<std::span<const std::byte>> inputs(int r, int ranks) const override {
    const auto [begin, end] = shard_range(input_.size(), r, ranks);
    return {host_bytes(input_.data() + begin, end - begin)};
  }
  std::size_t output_bytes(int, int) const override { return sizeof(T); }
  std::size_t temp_bytes(int r, int ranks) const override {
    const auto [begin, end] = shard_range(input_.size(), r, ranks);
    return multi::reduce_sum_temp_bytes<T>(end - begin, ranks);
  }
  void local(const RankRun& k) const override {
    const auto [begin, end] = shard_range(input_.size(), k.rank, k.ranks);
    const std::size_t n = end - begin;
    reduce_sum(static_cast<const T*>(k.in[0]), n, static_cast<T*>(k.out), k.temp, reduce_sum_temp_bytes<T>(n), k.stream);
  }
  void run(std::span<const RankRun> ranks) const override {
    std::vector<multi::ReduceRank<T>> args;
    for (const RankRun& k : ranks) {
      const auto [begin, end] = shard_range(input_.size(), k.rank, k.ranks);
      args.push_back({k.device, static_cast<const T*>(k.in[0]), end - begin, static_cast<T*>(k.out), k.temp, k.temp_bytes,
                      k.comm, k.stream});
    }
    multi::reduce_sum<T>(std::span<const multi::ReduceRank<T>>(args));
  }
  void compute_reference() override { ref_ = reduce_reference(std::span<const T>(input_.data(), input_.size())); }
  CheckResult check(std::span<const std::byte> out, int, int ranks) const override {
    T got;
    std::memcpy(&got, out.data(), sizeof(T));
    // Each rank's sum (its shard's depth), then `ranks` additions in rank order.
    const std::size_t largest = shard_range(input_.size(), 0, ranks).second;
    return check_reduce(got, ref_, reduce_sum_accumulation_depth<T>(largest) + static_cast<std::size_t>(ranks));
  }

 private:
  PinnedBuffer<T> input_;
  ReduceReference<T> ref_;
};

}  // namespace

std::unique_ptr<MultiCase> make_reduce_multi(DType type, std::size_t n, std::uint64_t seed) {
  std::unique_ptr<MultiCase> c;
  visit_dtype(type, [&](auto t) { c = std::make_unique<ReduceMulti<decltype(t)>>(n, seed); });
  return c;
}

}  // namespace gpulab
