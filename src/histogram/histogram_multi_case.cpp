// The histogram over several GPUs for the runner (multi/multi_bench.hpp): the values split by
// elements, checked against the same CPU counts.
#include "histogram/histogram_problem.hpp"

#include "core/sizes.hpp"
#include "multi/multi_bench.hpp"

#include <gpulab/device_buffer.hpp>
#include <gpulab/histogram.hpp>
#include <gpulab/multi/histogram.hpp>

namespace gpulab {
namespace {

/// The counts of n values in m bins, values split by elements.
class HistogramMulti final : public MultiCase {
 public:
  HistogramMulti(HistogramDistribution d, std::size_t n, std::uint32_t m, std::uint64_t seed)
      : dist_(d), values_(n), m_(m) {
    fill_histogram_input(values_.span(), d, seed);
  }
  std::vector<std::pair<std::string, std::string>> params() const override {
    return {{"input", std::string(histogram_distribution_name(dist_))}, {"n", describe_size(values_.size())},
            {"m", describe_size(m_)}};
  }
  double bytes() const override { return static_cast<double>(values_.bytes()); }
  std::vector<std::span<const std::byte>> inputs(int r, int ranks) const override {
    const auto [begin, end] = shard_range(values_.size(), r, ranks);
    return {host_bytes(values_.data() + begin, end - begin)};
  }
  std::size_t output_bytes(int, int) const override { return std::size_t{m_} * sizeof(std::uint32_t); }
  std::size_t temp_bytes(int, int) const override { return 0; }
  void local(const RankRun& k) const override {
    const auto [begin, end] = shard_range(values_.size(), k.rank, k.ranks);
    histogram(static_cast<const std::int32_t*>(k.in[0]), end - begin, m_, static_cast<std::uint32_t*>(k.out), k.stream);
  }
  void run(std::span<const RankRun> ranks) const override {
    std::vector<multi::HistogramRank> args;
    for (const RankRun& k : ranks) {
      const auto [begin, end] = shard_range(values_.size(), k.rank, k.ranks);
      args.push_back({k.device, static_cast<const std::int32_t*>(k.in[0]), end - begin, static_cast<std::uint32_t*>(k.out),
                      k.comm, k.stream});
    }
    multi::histogram(std::span<const multi::HistogramRank>(args), m_);
  }
  void compute_reference() override { ref_ = histogram_reference(std::span<const std::int32_t>(values_.data(), values_.size()), m_); }
  CheckResult check(std::span<const std::byte> out, int, int) const override {
    return check_histogram(std::span<const std::uint32_t>(reinterpret_cast<const std::uint32_t*>(out.data()), m_), ref_);
  }

 private:
  HistogramDistribution dist_;
  PinnedBuffer<std::int32_t> values_;
  std::uint32_t m_;
  std::vector<std::uint32_t> ref_;
};

}  // namespace

std::unique_ptr<MultiCase> make_histogram_multi(HistogramDistribution d, std::size_t n, std::uint32_t m, std::uint64_t seed) {
  return std::make_unique<HistogramMulti>(d, n, m, seed);
}

}  // namespace gpulab
