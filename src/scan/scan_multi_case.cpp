// The scan over several GPUs for the runner (multi/multi_bench.hpp): the input split by
// elements, each rank checked on its share of the global scan.
#include "scan/scan_problem.hpp"

#include "core/dtype.hpp"
#include "core/random.hpp"
#include "core/sizes.hpp"
#include "multi/multi_bench.hpp"
#include "reduce/reduce_cpu.hpp"

#include <gpulab/device_buffer.hpp>
#include <gpulab/multi/scan.hpp>
#include <gpulab/reduce.hpp>
#include <gpulab/scan.hpp>

namespace gpulab {
namespace {

/// Prefix sums of n values split by elements: each rank holds its share of the global scan.
template <class In>
class ScanMulti final : public MultiCase {
 public:
  using Out = scan_out_t<In>;
  ScanMulti(ScanKind kind, std::size_t n, std::uint64_t seed) : kind_(kind), input_(n) { fill_random(input_.span(), seed); }
  std::vector<std::pair<std::string, std::string>> params() const override {
    return {{"type", std::string(dtype_name(dtype_of<In>()))}, {"kind", std::string(scan_kind_name(kind_))},
            {"n", describe_size(input_.size())}};
  }
  double bytes() const override { return static_cast<double>(input_.size() * (sizeof(In) + sizeof(Out))); }
  std::vector<std::span<const std::byte>> inputs(int r, int ranks) const override {
    const auto [begin, end] = shard_range(input_.size(), r, ranks);
    return {host_bytes(input_.data() + begin, end - begin)};
  }
  bool replicated() const override { return false; }
  std::size_t output_bytes(int r, int ranks) const override { return count(r, ranks) * sizeof(Out); }
  std::size_t temp_bytes(int r, int ranks) const override { return multi::scan_temp_bytes<In>(count(r, ranks), ranks); }
  void local(const RankRun& k) const override {
    const std::size_t n = count(k.rank, k.ranks);
    const auto* in = static_cast<const In*>(k.in[0]);
    auto* out = static_cast<Out*>(k.out);
    if (kind_ == ScanKind::inclusive) inclusive_scan(in, out, n, k.temp, scan_temp_bytes<In>(n), k.stream);
    else exclusive_scan(in, out, n, k.temp, scan_temp_bytes<In>(n), k.stream);
  }
  void run(std::span<const RankRun> ranks) const override {
    std::vector<multi::ScanRank<In>> args;
    for (const RankRun& k : ranks)
      args.push_back({k.device, static_cast<const In*>(k.in[0]), count(k.rank, k.ranks), static_cast<Out*>(k.out), k.temp,
                      k.temp_bytes, k.comm, k.stream});
    if (kind_ == ScanKind::inclusive) multi::inclusive_scan<In>(std::span<const multi::ScanRank<In>>(args));
    else multi::exclusive_scan<In>(std::span<const multi::ScanRank<In>>(args));
  }
  void compute_reference() override {
    ref_.resize(input_.size());
    scan_reference<In>(std::span<const In>(input_.data(), input_.size()), kind_, ref_);
  }
  CheckResult check(std::span<const std::byte> out, int r, int ranks) const override {
    // The shard's own scan, its start from the offset (one addition), the offset's chain: a shard
    // total's reduction and the totals added in rank order. A bound over the largest shard.
    std::size_t total_depth = 0;
    if constexpr (!std::is_integral_v<In>) total_depth = reduce_sum_accumulation_depth<In>(count(0, ranks));
    const ScanDepth depth{scan_accumulation_depth<In>(count(0, ranks)) + total_depth + static_cast<std::size_t>(ranks) + 2};
    return check_scan_part<In>(std::span<const Out>(reinterpret_cast<const Out*>(out.data()), count(r, ranks)),
                               std::span<const In>(input_.data(), input_.size()), ref_,
                               shard_range(input_.size(), r, ranks).first, kind_, depth);
  }

 private:
  std::size_t count(int r, int ranks) const {
    const auto [begin, end] = shard_range(input_.size(), r, ranks);
    return end - begin;
  }
  ScanKind kind_;
  PinnedBuffer<In> input_;
  std::vector<scan_ref_t<Out>> ref_;
};

}  // namespace

std::unique_ptr<MultiCase> make_scan_multi(DType type, ScanKind kind, std::size_t n, std::uint64_t seed) {
  std::unique_ptr<MultiCase> c;
  visit_dtype_among<std::int8_t, std::int16_t, std::int32_t, float, double>(
      type, [&](auto t) { c = std::make_unique<ScanMulti<decltype(t)>>(kind, n, seed); });
  return c;
}

}  // namespace gpulab
