// atax over several GPUs for the runner (multi/multi_bench.hpp): A split by rows, x on every
// rank, checked against the same CPU reference.
#include "atax/atax_problem.hpp"

#include "multi/multi_bench.hpp"

#include <gpulab/atax.hpp>
#include <gpulab/multi/atax.hpp>

#include <fmt/format.h>

namespace gpulab {
namespace {

/// y = Aᵀ(A·x), A split by rows, x on every rank.
class AtaxMulti final : public MultiCase {
 public:
  AtaxMulti(AtaxShape shape, std::uint64_t seed) : in_(make_atax_input(shape, seed)) {}
  std::vector<std::pair<std::string, std::string>> params() const override {
    return {{"shape", fmt::format("{}x{}", in_.shape.cols, in_.shape.rows)}};
  }
  double bytes() const override { return 4.0 * static_cast<double>(in_.a.size() + in_.x.size()); }
  std::vector<std::span<const std::byte>> inputs(int r, int ranks) const override {
    const auto [begin, end] = shard_range(in_.shape.rows, r, ranks);
    return {host_bytes(in_.a.data() + begin * in_.shape.cols, (end - begin) * in_.shape.cols), host_bytes(in_.x.data(), in_.x.size())};
  }
  std::size_t output_bytes(int, int) const override { return std::size_t{in_.shape.cols} * sizeof(float); }
  std::size_t temp_bytes(int r, int ranks) const override { return multi::atax_temp_bytes(rows(r, ranks), in_.shape.cols, ranks); }
  void local(const RankRun& k) const override {
    const std::uint32_t n = rows(k.rank, k.ranks);
    if (n > 0)
      atax(static_cast<const float*>(k.in[0]), static_cast<const float*>(k.in[1]), n, in_.shape.cols, static_cast<float*>(k.out),
           k.temp, atax_temp_bytes(n, in_.shape.cols), k.stream);
  }
  void run(std::span<const RankRun> ranks) const override {
    std::vector<multi::AtaxRank> args;
    for (const RankRun& k : ranks)
      args.push_back({k.device, static_cast<const float*>(k.in[0]), static_cast<const float*>(k.in[1]), rows(k.rank, k.ranks),
                      static_cast<float*>(k.out), k.temp, k.temp_bytes, k.comm, k.stream});
    multi::atax(std::span<const multi::AtaxRank>(args), in_.shape.cols);
  }
  void compute_reference() override { ref_ = atax_reference(in_); }
  CheckResult check(std::span<const std::byte> out, int, int) const override {
    return check_atax_any_order(std::span<const float>(reinterpret_cast<const float*>(out.data()), in_.shape.cols), ref_, in_.shape);
  }

 private:
  std::uint32_t rows(int r, int ranks) const {
    const auto [begin, end] = shard_range(in_.shape.rows, r, ranks);
    return static_cast<std::uint32_t>(end - begin);
  }
  AtaxInput in_;
  AtaxReference ref_;
};

}  // namespace

std::unique_ptr<MultiCase> make_atax_multi(AtaxShape shape, std::uint64_t seed) { return std::make_unique<AtaxMulti>(shape, seed); }

}  // namespace gpulab
