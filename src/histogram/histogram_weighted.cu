// The weighted histogram (include/gpulab/histogram.hpp): sums of float or double weights by bin,
// the same bits on every call, which float atomics cannot give (their order is the hardware's).
// Up to histogram_weighted_digits_library_bins<W>() (float32 ~14 000 bins on an H100 in six passes,
// float64 ~330 in one): exact sums as carry-save digits (histogram_weighted_digits.cu). Otherwise, as
// below.
//
// While a warp's sub-histogram of doubles fits a block's shared memory: each warp owns one and
// takes chunks of 32 elements in a fixed order (chunk c to warp c mod the grid's warps), four
// chunks' loads at a time. In a chunk, the lanes whose values share a bin find each other (by
// ballots of the bin's bits up to 256 bins, __match_any_sync past); each sums the group's weights in lane order, a member a step (as many steps
// as the largest group has members; a chunk of one bin in a tree of five), and the group's lowest
// lane adds that sum to the bin. Leaders of one chunk hold distinct bins, so no two lanes write one
// slot at once and nothing needs an atomic. A block then adds its warps' sub-histograms in warp
// order into its row of partial sums, and a second kernel adds the rows in block order. Every
// addition's order is fixed by n, m and the GPU. Past shared memory, the weights sorted by bin and
// summed by a deterministic segmented scan (below).
#include "histogram/bin_rule.hpp"
#include "histogram/histogram_paths.hpp"
#include "lib/launch.cuh"
#include "lib/launch_limits.hpp"
#include "lib/memory_layout.hpp"
#include "lib/per_device.hpp"
#include "lib/warp.cuh"

#include <gpulab/error.hpp>
#include <gpulab/histogram.hpp>
#include <gpulab/scan.hpp>

#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <bit>
#include <string>
#include <type_traits>

namespace gpulab {
namespace {

constexpr unsigned kMaxWarps = 8;  // a block of 256 threads where the sub-histograms fit

/// One chunk's weights (lane `lane` holds `w` of bin `bin`, ~0u past the end) added to the warp's
/// sub-histogram: each bin's weights in lane order, by the lowest lane of the bin. The weights are
/// shuffled as W (a float is one shuffle, a double two) and added in double.
///
/// kBallots: the lanes of one bin found by a ballot of each of the bin's `bits` bits (and one of
/// which lanes hold a value) instead of __match_any_sync, after a vote on whether every lane holds
/// lane 0's bin: 1.24× faster at m = 256 on an H100, 6% slower at 4096 (the MIO pipe binds both;
/// docs/histogram.md), so the library takes ballots up to kBallotMaxBits bits of bin.
constexpr int kBallotMaxBits = 8;

template <bool kBallots, class W>
__device__ __forceinline__ void add_chunk(double* mine, std::uint32_t bin, W w, unsigned lane, int bits) {
  unsigned group;
  if constexpr (kBallots) {
    if (warp_uniform(bin)) {
      group = kFullMask;
    } else {
      const bool live = bin != ~0u;
      const unsigned alive = __ballot_sync(kFullMask, live);
      group = live ? alive : ~alive;
      for (int k = 0; k < bits; ++k) {
        const bool one = (bin >> k) & 1u;
        const unsigned ones = __ballot_sync(kFullMask, one);
        group &= one ? ones : ~ones;
      }
    }
  } else {
    group = __match_any_sync(kFullMask, bin);
  }
  if (group == kFullMask) {  // one bin (all lanes agree): a tree of 5 steps, not a chain of 32
    const double sum = warp_sum(static_cast<double>(w));
    if (lane == 0 && bin != ~0u) mine[bin] += sum;  // (a chunk wholly past the end adds nothing)
    __syncwarp();
    return;
  }
  const unsigned steps = warp_max_unsigned(static_cast<unsigned>(__popc(group)));
  unsigned rest = group;  // the members not yet added, lowest first
  double sum = 0.0;
  for (unsigned s = 0; s < steps; ++s) {
    const W ws = __shfl_sync(kFullMask, w, rest != 0 ? __ffs(rest) - 1 : 0);
    if (rest != 0) {
      sum += static_cast<double>(ws);
      rest &= rest - 1;
    }
  }
  if (bin != ~0u && lane == static_cast<unsigned>(__ffs(group)) - 1) mine[bin] += sum;
  __syncwarp();  // this chunk's additions visible before the next chunk's lanes read their bins
}

template <class W, bool kBallots>
__global__ void __launch_bounds__(kMaxWarps * kWarp)
weighted_partials_kernel(const std::int32_t* values, const W* weights, std::size_t n, BinRule rule, int bits, double* partials) {
  extern __shared__ double sub[];  // warps × m
  constexpr unsigned kChunks = 4;  // loads in flight a warp: at m = 4096 a block of 7 warps is all an SM holds
  const std::uint32_t m = rule.bins();
  const unsigned lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp, warps = blockDim.x / kWarp;
  for (std::size_t s = threadIdx.x; s < std::size_t{warps} * m; s += blockDim.x) sub[s] = 0.0;
  __syncthreads();
  double* mine = sub + std::size_t{warp} * m;
  const std::size_t chunks = (n + kWarp - 1) / kWarp, stride = std::size_t{gridDim.x} * warps;
  for (std::size_t c = std::size_t{blockIdx.x} * warps + warp; c < chunks; c += kChunks * stride) {
    std::uint32_t bin[kChunks];  // ~0u: past the end, never a bin (m < 2^32)
    W w[kChunks];
#pragma unroll
    for (unsigned j = 0; j < kChunks; ++j) {
      const std::size_t i = (c + j * stride) * kWarp + lane;
      bin[j] = i < n ? rule(values[i]) : ~0u;
      w[j] = i < n ? weights[i] : W(0);
    }
#pragma unroll
    for (unsigned j = 0; j < kChunks; ++j) add_chunk<kBallots>(mine, bin[j], w[j], lane, bits);
  }
  __syncthreads();
  for (std::uint32_t b = threadIdx.x; b < m; b += blockDim.x) {
    double s = 0.0;
    for (unsigned v = 0; v < warps; ++v) s += sub[std::size_t{v} * m + b];
    partials[std::size_t{blockIdx.x} * m + b] = s;
  }
}

template <class W>
__global__ void weighted_sums_kernel(const double* partials, unsigned rows, std::uint32_t m, W* sums) {
  for (std::size_t b = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; b < m; b += std::size_t{gridDim.x} * blockDim.x) {
    double s = 0.0;
    for (unsigned r = 0; r < rows; ++r) s += partials[std::size_t{r} * m + b];
    sums[b] = static_cast<W>(s);
  }
}

/// The launch's shape on the current device: warps a block (as many as the sub-histograms fit, up
/// to 8), their shared memory, and the grid (the blocks resident at once, fewer where n is small).
/// The temporary storage and the call both take it from here, so they agree.
struct Shape {
  unsigned warps = 0;
  std::size_t smem = 0;
  unsigned grid = 0;
};

/// The partial-sums kernels of both weight types and groupings (the storage knows neither).
const void* const kPartialsKernels[] = {reinterpret_cast<const void*>(weighted_partials_kernel<float, false>),
                                        reinterpret_cast<const void*>(weighted_partials_kernel<double, false>),
                                        reinterpret_cast<const void*>(weighted_partials_kernel<float, true>),
                                        reinterpret_cast<const void*>(weighted_partials_kernel<double, true>)};

/// The dynamic shared memory a block may take on the current device, each kernel allowed it once
/// (so that the occupancy below counts past 48 KiB, with no attribute set on every call).
std::size_t smem_limit() {
  static PerDevice<std::size_t> cache;
  return cache.get([] { return allow_most_dynamic_smem(kPartialsKernels, "histogram_weighted"); });
}

/// 1 ≤ m ≤ histogram_weighted_max_bins().
Shape weighted_shape(std::size_t n, std::uint32_t m) {
  const std::size_t per_warp = std::size_t{m} * sizeof(double);
  Shape s;
  s.warps = static_cast<unsigned>(std::min<std::size_t>(kMaxWarps, smem_limit() / per_warp));
  s.smem = s.warps * per_warp;
  const std::size_t chunks = (n + kWarp - 1) / kWarp;
  const std::size_t wanted = std::max<std::size_t>(1, (chunks + s.warps - 1) / s.warps);
  unsigned resident = ~0u;
  for (const void* k : kPartialsKernels) resident = std::min(resident, resident_blocks(k, s.warps * kWarp, s.smem));
  s.grid = static_cast<unsigned>(std::min<std::size_t>(wanted, std::max(1u, resident)));
  return s;
}

// ---- past shared memory: the weights sorted by bin ---------------------------------------------
//
// Each value's bin and its weight in double; the pairs sorted by bin (CUB's radix sort over the bits
// of m − 1: stable, so a bin's weights keep their order); gpulab's segmented scan by key over the
// sorted weights (deterministic: the same bits whatever the timing); the last prefix of each run of
// a bin is that bin's sum. Its temporary storage grows with n, not with m or the grid.

template <class W>
__global__ void bins_and_weights_kernel(const std::int32_t* values, const W* weights, std::size_t n, BinRule rule, std::uint32_t* bins,
                                        double* w) {
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    bins[i] = rule(values[i]);
    w[i] = static_cast<double>(weights[i]);
  }
}

/// sums[bin] = the prefix at the last element of each run of a bin (the others stay 0).
template <class W>
__global__ void run_ends_kernel(const std::uint32_t* bins, const double* prefix, std::size_t n, W* sums) {
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    if (i + 1 == n || bins[i] != bins[i + 1]) sums[bins[i]] = static_cast<W>(prefix[i]);
}

/// Where each part of the sorted path's storage starts, and its whole size.
struct SortedLayout {
  std::size_t bins_in = 0, bins_out = 0, w_in = 0, w_out = 0, sort = 0, sort_bytes = 0, scan = 0, scan_bytes = 0, total = 0;
};

SortedLayout sorted_layout(std::size_t n, std::uint32_t m) {
  SortedLayout l;
  GPULAB_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, l.sort_bytes, static_cast<const std::uint32_t*>(nullptr),
                                                    static_cast<std::uint32_t*>(nullptr), static_cast<const double*>(nullptr),
                                                    static_cast<double*>(nullptr), static_cast<std::int64_t>(n), 0, bin_bits(m)));
  l.scan_bytes = scan_temp_bytes<double>(n);
  Offsets parts;
  l.bins_in = parts.take(n * sizeof(std::uint32_t));
  l.bins_out = parts.take(n * sizeof(std::uint32_t));
  l.w_in = parts.take(n * sizeof(double));
  l.w_out = parts.take(n * sizeof(double));
  l.sort = parts.take(l.sort_bytes);
  l.scan = parts.take(l.scan_bytes);
  l.total = parts.total;
  return l;
}

template <class W>
void histogram_weighted_sorted(const std::int32_t* values, const W* weights, std::size_t n, std::uint32_t m, W* sums, void* temp,
                               cudaStream_t stream) {
  const SortedLayout l = sorted_layout(n, m);
  auto* base = static_cast<std::byte*>(temp);
  auto* bins_in = reinterpret_cast<std::uint32_t*>(base + l.bins_in);
  auto* bins_out = reinterpret_cast<std::uint32_t*>(base + l.bins_out);
  auto* w_in = reinterpret_cast<double*>(base + l.w_in);
  auto* w_out = reinterpret_cast<double*>(base + l.w_out);
  constexpr unsigned kThreads = 256;
  const unsigned blocks = grid_stride_blocks(n, kThreads);
  launch("histogram_weighted_bins", bins_and_weights_kernel<W>, {blocks, kThreads}, stream, values, weights, n, BinRule(m), bins_in,
         w_in)
      .work([] { return std::string("each value's bin and its weight in double, grid-stride"); });
  std::size_t sort_bytes = l.sort_bytes;
  GPULAB_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(base + l.sort, sort_bytes, bins_in, bins_out, w_in, w_out,
                                                    static_cast<std::int64_t>(n), 0, bin_bits(m), stream));
  GPULAB_CUDA_CHECK(cudaMemsetAsync(base + l.scan, 0, l.scan_bytes, stream));  // the scan's storage starts zeroed
  inclusive_segmented_scan_by_key(static_cast<const double*>(w_out), reinterpret_cast<const std::int32_t*>(bins_out), w_in, n,
                                  base + l.scan, l.scan_bytes, stream);
  GPULAB_CUDA_CHECK(cudaMemsetAsync(sums, 0, std::size_t{m} * sizeof(W), stream));
  launch("histogram_weighted_run_ends", run_ends_kernel<W>, {blocks, kThreads}, stream, static_cast<const std::uint32_t*>(bins_out),
         static_cast<const double*>(w_in), n, sums)
      .work([] { return std::string("each run's last prefix into its bin, grid-stride"); });
}

void check_bins(std::uint32_t m) {
  if (m == 0) throw Error("histogram_weighted: m = 0 bins; m must be at least 1");
}

/// The sub-histograms in shared memory (m ≤ histogram_weighted_max_bins(), n > 0, `temp` checked):
/// the partials kernel with its grouping, then the rows added in order.
template <class W, bool kBallots>
void weighted_in_shared(const std::int32_t* values, const W* weights, std::size_t n, std::uint32_t m, W* sums, void* temp,
                        cudaStream_t stream) {
  const Shape s = weighted_shape(n, m);
  auto* partials = static_cast<double*>(temp);
  launch(kBallots ? "histogram_weighted_partials_ballots" : "histogram_weighted_partials", weighted_partials_kernel<W, kBallots>,
         {s.grid, s.warps * kWarp, s.smem}, stream, values, weights, n, BinRule(m), bin_bits(m), partials)
      .work([&] { return std::to_string(s.warps) + " warps, a sub-histogram each, chunks of 32 in a fixed order"; });
  constexpr unsigned kThreads = 256;
  launch("histogram_weighted_sums", weighted_sums_kernel<W>, {grid_stride_blocks(m, kThreads), kThreads}, stream, static_cast<const double*>(partials),
         s.grid, m, sums)
      .work([&] { return "a bin a thread, " + std::to_string(s.grid) + " partial rows added in order"; });
}

/// How a chunk's lanes of one bin find each other: by ballots up to kBallotMaxBits bits of bin and
/// __match_any_sync past (the library, after the digits), or by __match_any_sync whatever m (the
/// ladder's rung 2).
enum class Grouping { by_bits_of_m, match };

/// The entries: the arguments checked, then (kDigits: the library) the digits where the library takes them, the
/// sorted path past shared memory (which only by_bits_of_m takes) or the sub-histograms with the
/// entry's grouping.
template <Grouping kGrouping, bool kDigits, class W>
void weighted(const std::int32_t* values, const W* weights, std::size_t n, std::uint32_t m, W* sums, void* temp,
              std::size_t temp_bytes, cudaStream_t stream) {
  if (sums == nullptr || ((values == nullptr || weights == nullptr || temp == nullptr) && n > 0))
    throw Error("histogram_weighted: null device pointer");
  check_bins(m);
  if (kGrouping == Grouping::match && m > histogram_weighted_max_bins())
    throw Error("histogram_weighted_by_match: m = " + std::to_string(m) + " is past histogram_weighted_max_bins()");
  if (n == 0) {
    GPULAB_CUDA_CHECK(cudaMemsetAsync(sums, 0, std::size_t{m} * sizeof(W), stream));
    return;
  }
  const std::size_t needed = histogram_weighted_temp_bytes(n, m);
  if (temp_bytes < needed)
    throw Error("histogram_weighted: temporary storage of " + std::to_string(temp_bytes) +
                " bytes is too small; histogram_weighted_temp_bytes() says " + std::to_string(needed));
  if (kDigits && m <= histogram_detail::histogram_weighted_digits_library_bins<W>())
    return histogram_detail::histogram_weighted_digits(values, weights, n, m, sums, temp, temp_bytes, stream);
  if (m > histogram_weighted_max_bins()) return histogram_weighted_sorted(values, weights, n, m, sums, temp, stream);
  if (kGrouping == Grouping::by_bits_of_m && bin_bits(m) <= kBallotMaxBits) weighted_in_shared<W, true>(values, weights, n, m, sums, temp, stream);
  else weighted_in_shared<W, false>(values, weights, n, m, sums, temp, stream);
}

}  // namespace

std::uint32_t histogram_weighted_max_bins() {
  return static_cast<std::uint32_t>(std::min<std::size_t>(smem_limit() / sizeof(double), 0xFFFFFFFFu));
}

std::size_t histogram_weighted_temp_bytes(std::size_t n, std::uint32_t m) {
  check_bins(m);
  if (m > histogram_weighted_max_bins()) return sorted_layout(n, m).total;
  std::size_t bytes = std::size_t{weighted_shape(n, m).grid} * m * sizeof(double);  // the partial sums
  // (weights where the library takes their digits take histogram_weighted_digits' storage instead)
  if (m <= histogram_detail::histogram_weighted_digits_library_bins<float>())
    bytes = std::max(bytes, histogram_detail::histogram_weighted_digits_temp_bytes<float>(m));
  if (m <= histogram_detail::histogram_weighted_digits_library_bins<double>())
    bytes = std::max(bytes, histogram_detail::histogram_weighted_digits_temp_bytes<double>(m));
  return bytes;
}

template <class W>
void histogram_weighted(const std::int32_t* values, const W* weights, std::size_t n, std::uint32_t m, W* sums, void* temp,
                        std::size_t temp_bytes, cudaStream_t stream) {
  weighted<Grouping::by_bits_of_m, true>(values, weights, n, m, sums, temp, temp_bytes, stream);
}

namespace histogram_detail {

template <class W>
void histogram_weighted_by_match(const std::int32_t* values, const W* weights, std::size_t n, std::uint32_t m, W* sums, void* temp,
                                 std::size_t temp_bytes, cudaStream_t stream) {
  weighted<Grouping::match, false>(values, weights, n, m, sums, temp, temp_bytes, stream);
}

template <class W>
void histogram_weighted_by_ballots(const std::int32_t* values, const W* weights, std::size_t n, std::uint32_t m, W* sums, void* temp,
                                   std::size_t temp_bytes, cudaStream_t stream) {
  weighted<Grouping::by_bits_of_m, false>(values, weights, n, m, sums, temp, temp_bytes, stream);
}

template void histogram_weighted_by_match<float>(const std::int32_t*, const float*, std::size_t, std::uint32_t, float*, void*,
                                                 std::size_t, cudaStream_t);
template void histogram_weighted_by_match<double>(const std::int32_t*, const double*, std::size_t, std::uint32_t, double*, void*,
                                                  std::size_t, cudaStream_t);
template void histogram_weighted_by_ballots<float>(const std::int32_t*, const float*, std::size_t, std::uint32_t, float*, void*,
                                                   std::size_t, cudaStream_t);
template void histogram_weighted_by_ballots<double>(const std::int32_t*, const double*, std::size_t, std::uint32_t, double*, void*,
                                                    std::size_t, cudaStream_t);

}  // namespace histogram_detail

template void histogram_weighted<float>(const std::int32_t*, const float*, std::size_t, std::uint32_t, float*, void*,
                                        std::size_t, cudaStream_t);
template void histogram_weighted<double>(const std::int32_t*, const double*, std::size_t, std::uint32_t, double*, void*,
                                         std::size_t, cudaStream_t);

}  // namespace gpulab
