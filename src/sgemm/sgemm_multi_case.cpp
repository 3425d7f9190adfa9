// SGEMM over several GPUs for the runner (multi/multi_bench.hpp): A split by rows, C gathered
// on every rank, checked against the same CPU reference.
#include "sgemm/sgemm_problem.hpp"

#include "multi/multi_bench.hpp"

#include <gpulab/multi/sgemm.hpp>
#include <gpulab/sgemm.hpp>

namespace gpulab {
namespace {

/// C = A·B, A split by rows; every rank ends with the whole C.
class SgemmMulti final : public MultiCase {
 public:
  SgemmMulti(SgemmShape shape, float alpha, std::uint64_t seed)
      : in_(make_sgemm_input(shape, 0, alpha, 0.0f, seed)), seed_(seed) {}
  std::vector<std::pair<std::string, std::string>> params() const override { return {{"shape", sgemm_shape_name(in_.shape)}}; }
  double bytes() const override { return 4.0 * static_cast<double>(in_.a.size() + in_.b.size() + in_.shape.m * in_.shape.n); }
  std::vector<std::span<const std::byte>> inputs(int r, int ranks) const override {
    const auto [begin, end] = shard_range(in_.shape.m, r, ranks);
    return {host_bytes(in_.a.data() + begin * in_.lda, (end - begin) * in_.lda), host_bytes(in_.b.data(), in_.b.size())};
  }
  std::size_t output_bytes(int, int) const override { return in_.shape.m * in_.shape.n * sizeof(float); }
  std::size_t temp_bytes(int, int) const override { return 0; }
  void local(const RankRun& k) const override {
    const auto [begin, end] = shard_range(in_.shape.m, k.rank, k.ranks);
    if (end > begin)
      sgemm(end - begin, in_.shape.n, in_.shape.k, in_.alpha, static_cast<const float*>(k.in[0]), in_.lda,
            static_cast<const float*>(k.in[1]), in_.ldb, 0.0f, static_cast<float*>(k.out) + begin * in_.shape.n,
            in_.shape.n, k.stream);
  }
  void run(std::span<const RankRun> ranks) const override {
    std::vector<multi::SgemmRank> args;
    for (const RankRun& k : ranks)
      args.push_back({k.device, static_cast<const float*>(k.in[0]), static_cast<const float*>(k.in[1]),
                      static_cast<float*>(k.out), k.comm, k.stream});
    multi::sgemm(std::span<const multi::SgemmRank>(args), in_.shape.m, in_.shape.n, in_.shape.k, in_.alpha, in_.lda, in_.ldb,
                 0.0f);
  }
  void compute_reference() override { ref_ = sgemm_reference(in_, seed_); }
  CheckResult check(std::span<const std::byte> out, int, int) const override {
    return check_sgemm(std::span<const float>(reinterpret_cast<const float*>(out.data()), in_.shape.m * in_.shape.n), in_,
                       ref_, SgemmMath::fp32);
  }

 private:
  SgemmInput in_;
  std::uint64_t seed_;
  SgemmReference ref_;
};

}  // namespace

std::unique_ptr<MultiCase> make_sgemm_multi(SgemmShape shape, float alpha, std::uint64_t seed) {
  return std::make_unique<SgemmMulti>(shape, alpha, seed);
}

}  // namespace gpulab
