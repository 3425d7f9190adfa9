// The 3×3 filter over several GPUs for the runner (multi/multi_bench.hpp): the image split in
// bands of rows, checked against the same CPU filter.
#include "conv/conv_problem.hpp"

#include "conv/conv_cpu.hpp"
#include "multi/multi_bench.hpp"

#include <gpulab/conv.hpp>
#include <gpulab/multi/conv.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace gpulab {
namespace {

/// An image filtered in bands of rows (each with a row of its neighbours' above and below); every
/// rank ends with the whole result (Gather::all) or its own rows (Gather::none, in a band-shaped
/// output whose ghost rows are not checked).
class ConvMulti final : public MultiCase {
 public:
  ConvMulti(std::size_t width, std::size_t height, const Filter3x3& filter, Border border, multi::Gather gather,
            std::uint64_t seed)
      : in_(generate_image(width, height, seed)), filter_(filter), border_(border), gather_(gather) {}
  std::vector<std::pair<std::string, std::string>> params() const override {
    return {{"size", fmt::format("{}x{}", in_.width, in_.height)}, {"border", std::string(border_name(border_))},
            {"gather", gather_ == multi::Gather::all ? "all" : "none"}};
  }
  double bytes() const override { return 2.0 * static_cast<double>(in_.bytes.size()); }
  std::vector<std::span<const std::byte>> inputs(int r, int ranks) const override {
    const auto [lo, hi] = band(r, ranks);
    return {host_bytes(in_.row(0) + lo * in_.pitch, (hi - lo) * in_.pitch)};
  }
  bool replicated() const override { return gather_ == multi::Gather::all; }
  std::size_t output_bytes(int r, int ranks) const override {
    const auto [lo, hi] = band(r, ranks);
    return (gather_ == multi::Gather::all ? in_.height : hi - lo) * 3 * in_.width;
  }
  std::size_t temp_bytes(int, int) const override { return 0; }
  void local(const RankRun& k) const override {
    const auto [lo, hi] = band(k.rank, k.ranks);
    auto* out = static_cast<std::uint8_t*>(k.out) + (gather_ == multi::Gather::all ? lo * 3 * in_.width : 0);
    if (hi > lo)
      conv3x3(static_cast<const std::uint8_t*>(k.in[0]), in_.pitch, out, 3 * in_.width, in_.width, hi - lo, filter_, border_,
              k.stream);
  }
  void run(std::span<const RankRun> ranks) const override {
    std::vector<multi::ConvRank> args;
    for (const RankRun& k : ranks)
      args.push_back({k.device, static_cast<const std::uint8_t*>(k.in[0]), in_.pitch, static_cast<std::uint8_t*>(k.out),
                      k.comm, k.stream});
    multi::conv3x3(std::span<const multi::ConvRank>(args), in_.width, in_.height, filter_, border_, gather_);
  }
  void compute_reference() override {
    want_ = make_image(in_.width, in_.height);
    conv_cpu(in_, want_, filter_, border_, true);
  }
  CheckResult check(std::span<const std::byte> out, int r, int ranks) const override {
    const std::span<const std::uint8_t> got(reinterpret_cast<const std::uint8_t*>(out.data()), out.size());
    if (gather_ == multi::Gather::all) return check_image(got, 3 * in_.width, want_, 0);
    const auto [begin, end] = shard_range(in_.height, r, ranks);  // the rank's own rows, past its ghost row above
    const std::size_t ghost_above = begin - band(r, ranks).first;
    return check_image(got.subspan(std::min(got.size(), ghost_above * 3 * in_.width)), 3 * in_.width, want_, 0, begin,
                       end - begin);
  }

 private:
  /// Rank r's rows with one more above and below where the image has them.
  std::pair<std::size_t, std::size_t> band(int r, int ranks) const {
    const auto [begin, end] = shard_range(in_.height, r, ranks);
    if (end == begin) return {begin, begin};
    return {begin > 0 ? begin - 1 : 0, std::min(end + 1, in_.height)};
  }
  RgbImage in_;
  Filter3x3 filter_;
  Border border_;
  multi::Gather gather_;
  RgbImage want_;
};

}  // namespace

std::unique_ptr<MultiCase> make_conv_multi(std::size_t width, std::size_t height, const Filter3x3& filter, Border border,
                                           std::uint64_t seed, multi::Gather gather) {
  return std::make_unique<ConvMulti>(width, height, filter, border, gather, seed);
}

}  // namespace gpulab
