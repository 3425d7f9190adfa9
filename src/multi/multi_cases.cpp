#include "multi/multi_cases.hpp"

#include "atax/atax_cpu.hpp"
#include "atax/atax_problem.hpp"
#include "conv/conv_cpu.hpp"
#include "core/random.hpp"
#include "core/sizes.hpp"
#include "reduce/reduce_cpu.hpp"

#include <gpulab/atax.hpp>
#include <gpulab/conv.hpp>
#include <gpulab/sgemm.hpp>
#include <gpulab/device_buffer.hpp>
#include <gpulab/histogram.hpp>
#include <gpulab/multi_gpu.hpp>
#include <gpulab/reduce.hpp>
#include <gpulab/scan.hpp>

#include <fmt/format.h>

#include <cstring>

namespace gpulab {
namespace {

template <class T>
std::span<const std::byte> bytes_of(const T* data, std::size_t count) {
  return {reinterpret_cast<const std::byte*>(data), count * sizeof(T)};
}

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
    return {bytes_of(input_.data() + begin, end - begin)};
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
    return {bytes_of(values_.data() + begin, end - begin)};
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
    return {bytes_of(in_.a.data() + begin * in_.shape.cols, (end - begin) * in_.shape.cols), bytes_of(in_.x.data(), in_.x.size())};
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
    return {bytes_of(input_.data() + begin, end - begin)};
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

/// C = A·B, A split by rows; every rank ends with the whole C.
class SgemmMulti final : public MultiCase {
 public:
  SgemmMulti(SgemmShape shape, float alpha, std::uint64_t seed)
      : in_(make_sgemm_input(shape, 0, alpha, 0.0f, seed)), seed_(seed) {}
  std::vector<std::pair<std::string, std::string>> params() const override { return {{"shape", sgemm_shape_name(in_.shape)}}; }
  double bytes() const override { return 4.0 * static_cast<double>(in_.a.size() + in_.b.size() + in_.shape.m * in_.shape.n); }
  std::vector<std::span<const std::byte>> inputs(int r, int ranks) const override {
    const auto [begin, end] = shard_range(in_.shape.m, r, ranks);
    return {bytes_of(in_.a.data() + begin * in_.lda, (end - begin) * in_.lda), bytes_of(in_.b.data(), in_.b.size())};
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
    return {bytes_of(in_.row(0) + lo * in_.pitch, (hi - lo) * in_.pitch)};
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

std::unique_ptr<MultiCase> make_sgemm_multi(SgemmShape shape, float alpha, std::uint64_t seed) {
  return std::make_unique<SgemmMulti>(shape, alpha, seed);
}

std::unique_ptr<MultiCase> make_conv_multi(std::size_t width, std::size_t height, const Filter3x3& filter, Border border,
                                           std::uint64_t seed, multi::Gather gather) {
  return std::make_unique<ConvMulti>(width, height, filter, border, gather, seed);
}

std::unique_ptr<MultiCase> make_scan_multi(DType type, ScanKind kind, std::size_t n, std::uint64_t seed) {
  std::unique_ptr<MultiCase> c;
  visit_dtype_among<std::int8_t, std::int16_t, std::int32_t, float, double>(
      type, [&](auto t) { c = std::make_unique<ScanMulti<decltype(t)>>(kind, n, seed); });
  return c;
}

std::unique_ptr<MultiCase> make_reduce_multi(DType type, std::size_t n, std::uint64_t seed) {
  std::unique_ptr<MultiCase> c;
  visit_dtype(type, [&](auto t) { c = std::make_unique<ReduceMulti<decltype(t)>>(n, seed); });
  return c;
}

std::unique_ptr<MultiCase> make_histogram_multi(HistogramDistribution d, std::size_t n, std::uint32_t m, std::uint64_t seed) {
  return std::make_unique<HistogramMulti>(d, n, m, seed);
}

std::unique_ptr<MultiCase> make_atax_multi(AtaxShape shape, std::uint64_t seed) { return std::make_unique<AtaxMulti>(shape, seed); }

}  // namespace gpulab
