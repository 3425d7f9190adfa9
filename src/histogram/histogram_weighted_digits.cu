// The weighted histogram as carry-save digits (fixed_point_sum.hpp), the weighted ladder's rung 5:
// float32 up to six passes over the bins a block's shared memory holds (the library's float32 path),
// float64 up to two.
//
// Every finite float32 is an integer number of 2^-149, every float64 of 2^-1074; a bin's sum is kept
// as signed counters of 12-bit digits (float32 24, float64 176), and a weight adds its digits (three,
// six) to as many of them. No carry runs between the counters while they add, so each addition is an
// atomic whose value nobody waits for (a RED in shared memory), in any order: integers, so the sums
// are exact and the same bits on every call, GPU and grid. Rung 4's superaccumulator carried between
// 32-bit limbs, each atomic's result needed before the next limb's, and measured slower than rung 3
// (0.36 against 0.35 ms at 2^26 float32 weights into 256 bins on an H200, e8d7950); this path takes
// 0.192 ms there on an H100, 0.89 of read (0875a0f). A warp whose batch is all one bin (few bins,
// skewed values) sums its weights by shuffles first. A 32-bit counter stays exact for 2^19
// additions, so a block adds its counters into 64-bit global ones (and zeroes them) every 2^19 of its
// elements, and at its end; a last kernel makes each bin's carries and rounds its sum once (float32:
// to odd at 53 bits first, fixed_point::to_double). +Inf, −Inf and NaN set a flags word a bin: the
// sum is then what IEEE addition gives.
#include "histogram/bin_rule.hpp"
#include "histogram/fixed_point_sum.hpp"
#include "histogram/histogram_paths.hpp"
#include "lib/launch.cuh"
#include "lib/launch_limits.hpp"
#include "lib/per_device.hpp"
#include "lib/warp.cuh"

#include <gpulab/error.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>
#include <type_traits>

namespace gpulab::histogram_detail {
namespace {

namespace fp = fixed_point;

/// A bin's words in shared memory: its counters, then its flags word.
template <class W>
constexpr unsigned kWords = fp::DigitFormat<W>::kDigits + 1;
template <class W>
constexpr unsigned kFlagsWord = fp::DigitFormat<W>::kDigits;
constexpr unsigned kThreads = 512;
constexpr unsigned kBatch = 8;  // elements a thread loads before it adds any (their loads in flight together)
constexpr std::size_t kTile = std::size_t{kThreads} * kBatch;
// Past a block's shared memory the bins are split among passes, each reading every element. float32:
// up to six (~14 000 bins on an H100); at 2^26 weights on an H100 two passes (4096 bins) took 0.466
// ms, four (8192) 0.914, where the sub-histograms of doubles took 1.31 and 3.00 (0875a0f). float64's
// 177 words a bin leave ~330 bins a pass, and its weights are 8 bytes: up to two passes.
template <class W>
constexpr std::uint32_t kMaxPasses = std::is_same_v<W, float> ? 6 : 2;
// A counter gets at most one addition (below 2^12) an element: 2^19 elements keep it exact.
constexpr unsigned kTilesPerFlush = static_cast<unsigned>(fp::kDigitAddsIn32Bits / kTile);

/// w (finite) added to bin b's counters, word k of bin b at words[k·m + b] (planes of m: the lanes
/// adding to different bins fall in different banks).
template <class W>
__device__ __forceinline__ void add_weight(std::int32_t* words, std::uint32_t m, std::uint32_t b, W w) {
  const auto d = fp::to_digits(w);
#pragma unroll
  for (int j = 0; j < fp::DigitFormat<W>::kParts; ++j) atomicAdd(&words[(d.first + j) * m + b], d.digit[j]);
}

/// A whole warp's float32 weights of bin b, all finite, summed first: each lane's three digits as
/// one 64-bit integer on the warp's lowest counter `base`, summed by shuffles, then lanes 0–4 add
/// the sum's five digits. False (nothing added) where a lane's weight sits more than one counter
/// above the lowest: its integer could then pass 64 bits in the sum.
__device__ __forceinline__ bool add_warp_of_one_bin(std::int32_t* words, std::uint32_t m, std::uint32_t b, float w) {
  constexpr int kDigits = fp::DigitFormat<float>::kDigits;
  const auto d = fp::to_digits(w);
  const int first = w != 0.f ? d.first : kDigits;
  const int base = warp_min_int(first);
  if (base == kDigits) return true;  // only zeros
  if (!__all_sync(kFullMask, first - base <= 1 || w == 0.f)) return false;
  std::int64_t x = d.digit[0] + std::int64_t{d.digit[1]} * (1 << fp::kDigitBits) + std::int64_t{d.digit[2]} * (1 << 2 * fp::kDigitBits);
  if (first > base && w != 0.f) x *= 1 << fp::kDigitBits;  // |x| < 2^47
  x = warp_sum_all(x);                                     // |x| < 2^52: five digits
  const unsigned j = threadIdx.x % kWarp;
  const std::uint64_t magnitude = x < 0 ? 0 - static_cast<std::uint64_t>(x) : static_cast<std::uint64_t>(x);
  const auto digit = static_cast<std::int32_t>(j < 4 ? (magnitude >> (fp::kDigitBits * j)) & fp::kDigitMask : magnitude >> 48);
  // Digits past the last counter are zero (the sum of 32 float32 stays below 2^282 units).
  if (j < 5 && digit != 0 && base + static_cast<int>(j) < kDigits) atomicAdd(&words[(base + j) * m + b], x < 0 ? -digit : digit);
  return true;
}

/// The same for float64 weights, whose six digits span 64 bits (a sum of 32 of them would not fit
/// 64): each of the seven counters from `base` up gets the warp's sum of the digits its lanes place
/// there (each below 2^12 in size, 32 of them below 2^17), summed by shuffles, added by one lane.
__device__ __forceinline__ bool add_warp_of_one_bin(std::int32_t* words, std::uint32_t m, std::uint32_t b, double w) {
  using F = fp::DigitFormat<double>;
  const auto d = fp::to_digits(w);
  const int first = w != 0.0 ? d.first : F::kDigits;
  const int base = warp_min_int(first);
  if (base == F::kDigits) return true;  // only zeros
  if (!__all_sync(kFullMask, first - base <= 1 || w == 0.0)) return false;
  const int up = w != 0.0 && first > base ? 1 : 0;
  const unsigned lane = threadIdx.x % kWarp;
  std::int32_t mine = 0;
#pragma unroll
  for (int j = 0; j <= F::kParts; ++j) {
    const int part = j - up;  // this lane's digit on counter base + j
    const std::int32_t sum = warp_sum_all(w != 0.0 && part >= 0 && part < F::kParts ? d.digit[part] : 0);
    if (lane == static_cast<unsigned>(j)) mine = sum;
  }
  if (lane <= static_cast<unsigned>(F::kParts) && mine != 0 && base + static_cast<int>(lane) < F::kDigits)
    atomicAdd(&words[(base + lane) * m + b], mine);
  return true;
}

/// A warp's batch all in bin b, all finite: float32's weights a warp-wide sum each (above).
__device__ __forceinline__ void add_batch_of_one_bin(std::int32_t* words, std::uint32_t m, std::uint32_t b, const float (&w)[kBatch]) {
#pragma unroll
  for (unsigned u = 0; u < kBatch; ++u)
    if (!add_warp_of_one_bin(words, m, b, w[u]) && w[u] != 0.f) add_weight(words, m, b, w[u]);
}

/// float64's: the batch's 256 weights summed at once where all sit within one counter of the lowest
/// (`base`). Each weight is split in two integers, its low three digits and its high three (signed),
/// on counters base and base + 3 (one counter up, times 2^12); a lane sums its eight, then two 64-bit
/// butterflies sum the warp's (low below 2^56, high below 2^49 in size), and lanes 0–4 and 8–12 add
/// their digits (high's as digits of its size, each signed as high, so that none falls past the
/// last counter): 20 shuffles a batch where each weight's seven sums took 35 (1.07 ms at 2^26 values
/// in one bin, 0.342 spread; H100, d490177). Otherwise weight by weight, as above.
__device__ __forceinline__ void add_batch_of_one_bin(std::int32_t* words, std::uint32_t m, std::uint32_t b, const double (&w)[kBatch]) {
  using F = fp::DigitFormat<double>;
  // Each weight's digits are cut twice, for its counter here and its digits below: eight weights'
  // digits kept between would take the registers of more warps.
  int lowest = F::kDigits, highest = 0;
#pragma unroll
  for (unsigned u = 0; u < kBatch; ++u)
    if (w[u] != 0.0) {
      const int first = fp::to_digits(w[u]).first;
      lowest = min(lowest, first);
      highest = max(highest, first);
    }
  const int base = warp_min_int(lowest);
  if (base == F::kDigits) return;  // only zeros
  const bool near = highest - base <= 1;
  if (!__all_sync(kFullMask, near)) {
#pragma unroll
    for (unsigned u = 0; u < kBatch; ++u)
      if (!add_warp_of_one_bin(words, m, b, w[u]) && w[u] != 0.0) add_weight(words, m, b, w[u]);
    return;
  }
  std::int64_t low = 0, high = 0;
#pragma unroll
  for (unsigned u = 0; u < kBatch; ++u) {
    if (w[u] == 0.0) continue;
    const auto d = fp::to_digits(w[u]);
    const std::int64_t l = d.digit[0] + (std::int64_t{d.digit[1]} << fp::kDigitBits) + (std::int64_t{d.digit[2]} << 2 * fp::kDigitBits);
    const std::int64_t h = d.digit[3] + std::int64_t{d.digit[4]} * (1 << fp::kDigitBits) + std::int64_t{d.digit[5]} * (1 << 2 * fp::kDigitBits);
    const std::int64_t up = d.first > base ? std::int64_t{1} << fp::kDigitBits : 1;  // |l| < 2^48, |h| < 2^41
    low += l * up;
    high += h * up;
  }
  low = warp_sum_all(low);    // 0 ≤ low < 2^56: five digits from counter base
  high = warp_sum_all(high);  // |high| < 2^49: five digits from counter base + 3, of its size, signed as it
  const unsigned lane = threadIdx.x % kWarp;
  const std::uint64_t size = high < 0 ? 0 - static_cast<std::uint64_t>(high) : static_cast<std::uint64_t>(high);
  std::int32_t digit = 0;
  int counter = F::kDigits;  // none
  if (lane < 5) {
    digit = static_cast<std::int32_t>((low >> (fp::kDigitBits * lane)) & fp::kDigitMask);
    counter = base + static_cast<int>(lane);
  } else if (lane >= 8 && lane < 13) {
    digit = static_cast<std::int32_t>((size >> (fp::kDigitBits * (lane - 8))) & fp::kDigitMask);
    if (high < 0) digit = -digit;
    counter = base + 3 + static_cast<int>(lane - 8);
  }
  // Digits (of sizes) past the last counter are zero: the sum of 256 float64 stays below 2^2106 units.
  if (digit != 0 && counter < F::kDigits) atomicAdd(&words[counter * m + b], digit);
}

/// The block's counters added into the global ones (64-bit: `counters[b·kDigits + k]`, flags a bin
/// in `flags`), and zeroed where `clear`.
template <class W>
__device__ void flush(std::int32_t* words, std::uint32_t m, unsigned long long* counters, std::uint32_t* flags, bool clear) {
  for (unsigned k = 0; k < kWords<W>; ++k)
    for (std::uint32_t b = threadIdx.x; b < m; b += blockDim.x) {
      std::int32_t& word = words[k * m + b];
      if (word == 0) continue;
      if (k == kFlagsWord<W>) atomicOr(&flags[b], static_cast<std::uint32_t>(word));
      else
        atomicAdd(&counters[std::size_t{b} * fp::DigitFormat<W>::kDigits + k],
                  static_cast<unsigned long long>(static_cast<long long>(word)));
      if (clear) word = 0;
    }
}

/// One lane's element: a non-finite weight sets its bin's flag, a finite one adds its digits.
template <class W>
__device__ __forceinline__ void add_lane(std::int32_t* words, std::uint32_t m, std::uint32_t b, W w) {
  if (!isfinite(w)) atomicOr(&words[kFlagsWord<W> * m + b], static_cast<std::int32_t>(fp::special_flag(w)));
  else if (w != W(0)) add_weight(words, m, b, w);
}

/// Four consecutive weights from 16-byte aligned memory.
__device__ __forceinline__ void load_four(const float* p, float* w) {
  const float4 v = *reinterpret_cast<const float4*>(p);
  w[0] = v.x, w[1] = v.y, w[2] = v.z, w[3] = v.w;
}
__device__ __forceinline__ void load_four(const double* p, double* w) {
  const double2 a = reinterpret_cast<const double2*>(p)[0], b = reinterpret_cast<const double2*>(p)[1];
  w[0] = a.x, w[1] = a.y, w[2] = b.x, w[3] = b.y;
}

/// kVectors: values and weights 16-byte aligned, so that a whole tile's thread loads its eight
/// elements as 16-byte vectors (four consecutive values a vector, weights four at a time; a quarter
/// of the loads and of their index arithmetic), the last tile element by element. Rule: BinRule, or
/// MaskBinRule where m is a power of two (one AND a bin where the division takes a dozen).
/// A pass adds the weights of bins [first_bin, first_bin + bins) (past a block's shared memory the
/// bins are split among passes, each reading every element); `counters` and `flags` start at its
/// first bin's.
template <class W, bool kVectors, class Rule>
__global__ void __launch_bounds__(kThreads)
digits_add_kernel(const std::int32_t* values, const W* weights, std::size_t n, Rule rule, std::uint32_t first_bin, std::uint32_t m,
                  unsigned tiles_per_flush, unsigned long long* counters, std::uint32_t* flags) {
  extern __shared__ std::int32_t words[];  // kWords planes of the pass's m bins
  for (std::uint32_t k = threadIdx.x; k < kWords<W> * m; k += blockDim.x) words[k] = 0;
  __syncthreads();
  const std::size_t tiles = (n + kTile - 1) / kTile;
  unsigned since_flush = 0;
  for (std::size_t t = blockIdx.x; t < tiles; t += gridDim.x) {  // the same trips in every thread: the barriers below
    std::int32_t v[kBatch];
    W w[kBatch];
    if (kVectors && (t + 1) * kTile <= n) {
#pragma unroll
      for (unsigned u = 0; u < kBatch / 4; ++u) {
        const std::size_t i = t * kTile + 4 * (u * kThreads + threadIdx.x);
        const int4 vv = *reinterpret_cast<const int4*>(values + i);
        v[4 * u] = vv.x, v[4 * u + 1] = vv.y, v[4 * u + 2] = vv.z, v[4 * u + 3] = vv.w;
        load_four(weights + i, w + 4 * u);
      }
    } else {
#pragma unroll
      for (unsigned u = 0; u < kBatch; ++u) {
        const std::size_t i = t * kTile + u * kThreads + threadIdx.x;
        v[u] = i < n ? values[i] : 0;
        w[u] = i < n ? weights[i] : W(0);  // a zero weight adds nothing
      }
    }
    std::uint32_t b[kBatch];  // the bin in this pass; m or more: another pass's
    bool one_bin = true;      // this lane's elements all in its first one's bin, all finite
#pragma unroll
    for (unsigned u = 0; u < kBatch; ++u) {
      b[u] = rule(v[u]) - first_bin;
      one_bin = one_bin && b[u] == b[0] && isfinite(w[u]);
    }
    // One vote a batch: a warp whose 256 elements are all one bin (few bins, skewed values) sums
    // each element's 32 weights first, where 32 atomics on one word would run one after another.
    const std::uint32_t lane0_bin = __shfl_sync(kFullMask, b[0], 0);
    if (__all_sync(kFullMask, one_bin && b[0] == lane0_bin)) {
      if (lane0_bin < m) add_batch_of_one_bin(words, m, lane0_bin, w);
    } else {
#pragma unroll
      for (unsigned u = 0; u < kBatch; ++u)
        if (b[u] < m) add_lane(words, m, b[u], w[u]);
    }
    if (++since_flush == tiles_per_flush) {
      __syncthreads();
      flush<W>(words, m, counters, flags, true);
      __syncthreads();
      since_flush = 0;
    }
  }
  __syncthreads();
  flush<W>(words, m, counters, flags, false);
}

template <class W>
__global__ void digits_round_kernel(const unsigned long long* counters, const std::uint32_t* flags, std::uint32_t m, W* sums) {
  for (std::uint32_t b = blockIdx.x * blockDim.x + threadIdx.x; b < m; b += gridDim.x * blockDim.x)
    sums[b] = flags[b] != 0 ? fp::special_sum<W>(flags[b])
                            : fp::round_digits<W>(reinterpret_cast<const std::int64_t*>(counters) + std::size_t{b} * fp::DigitFormat<W>::kDigits, 1);
}

template <class W>
std::size_t counter_bytes(std::uint32_t m) {
  return std::size_t{m} * fp::DigitFormat<W>::kDigits * sizeof(unsigned long long);
}

template <class W>
const void* const kAddKernels[] = {reinterpret_cast<const void*>(digits_add_kernel<W, false, BinRule>),
                                   reinterpret_cast<const void*>(digits_add_kernel<W, true, BinRule>),
                                   reinterpret_cast<const void*>(digits_add_kernel<W, false, MaskBinRule>),
                                   reinterpret_cast<const void*>(digits_add_kernel<W, true, MaskBinRule>)};

/// The add kernels allowed all the dynamic shared memory the device gives them (once per device).
template <class W>
std::size_t smem_limit() {
  static PerDevice<std::size_t> cache;
  return cache.get([] {
    return allow_most_dynamic_smem(kAddKernels<W>, std::is_same_v<W, float> ? "histogram_weighted (float32 digits)"
                                                                            : "histogram_weighted (float64 digits)");
  });
}

/// The bins one pass takes: their counters fill a block's shared memory.
template <class W>
std::uint32_t bins_a_pass() {
  return static_cast<std::uint32_t>(smem_limit<W>() / (kWords<W> * sizeof(std::int32_t)));
}

/// The add passes with rule `rule` (n > 0, the shared memory allowed): the bins split evenly among
/// as few passes as fit a block's shared memory.
template <class W, class Rule>
void launch_add(const std::int32_t* values, const W* weights, std::size_t n, Rule rule, unsigned tiles_per_flush,
                unsigned long long* counters, std::uint32_t* flags, cudaStream_t stream) {
  const std::uint32_t m = rule.bins();
  const std::uint32_t passes = (m + bins_a_pass<W>() - 1) / bins_a_pass<W>(), per_pass = (m + passes - 1) / passes;
  const bool vectors = reinterpret_cast<std::uintptr_t>(values) % 16 == 0 && reinterpret_cast<std::uintptr_t>(weights) % 16 == 0;
  const auto kernel = vectors ? digits_add_kernel<W, true, Rule> : digits_add_kernel<W, false, Rule>;
  for (std::uint32_t first = 0; first < m; first += per_pass) {
    const std::uint32_t bins = std::min(per_pass, m - first);
    const std::size_t smem = std::size_t{kWords<W>} * bins * sizeof(std::int32_t);
    launch("histogram_weighted_digits", kernel, {resident_grid(reinterpret_cast<const void*>(kernel), n, kThreads, smem), kThreads, smem},
           stream, values, weights, n, rule, first, bins, tiles_per_flush, counters + std::size_t{first} * fp::DigitFormat<W>::kDigits,
           flags + first)
        .work([=] {
          return std::string("each weight's ") + (std::is_same_v<W, float> ? "three" : "six") +
                 " 12-bit digits added to its bin's counters in shared memory, no carries" + (vectors ? ", 16-byte loads" : "") +
                 (std::is_same_v<Rule, MaskBinRule> ? ", bins by a mask" : "") +
                 (passes > 1 ? ", pass " + std::to_string(first / per_pass + 1) + " of " + std::to_string(passes) : "");
        });
  }
}

}  // namespace

template <class W>
std::uint32_t histogram_weighted_digits_max_bins() {
  return kMaxPasses<W> * bins_a_pass<W>();
}

template <class W>
std::size_t histogram_weighted_digits_temp_bytes(std::uint32_t m) {
  return counter_bytes<W>(m) + std::size_t{m} * sizeof(std::uint32_t);
}

template <class W>
void histogram_weighted_digits(const std::int32_t* values, const W* weights, std::size_t n, std::uint32_t m, W* sums, void* temp,
                               std::size_t temp_bytes, cudaStream_t stream, unsigned tiles_per_flush) {
  if (sums == nullptr || ((values == nullptr || weights == nullptr) && n > 0) || temp == nullptr)
    throw Error("histogram_weighted_digits: null device pointer");
  if (m == 0 || m > histogram_weighted_digits_max_bins<W>())
    throw Error("histogram_weighted_digits: m = " + std::to_string(m) + " bins; it takes 1 to " +
                std::to_string(histogram_weighted_digits_max_bins<W>()) + " here");
  if (temp_bytes < histogram_weighted_digits_temp_bytes<W>(m)) throw Error("histogram_weighted_digits: too little temporary storage");
  if (tiles_per_flush == 0 || tiles_per_flush > kTilesPerFlush) tiles_per_flush = kTilesPerFlush;
  auto* counters = static_cast<unsigned long long*>(temp);
  auto* flags = reinterpret_cast<std::uint32_t*>(static_cast<std::byte*>(temp) + counter_bytes<W>(m));
  GPULAB_CUDA_CHECK(cudaMemsetAsync(temp, 0, histogram_weighted_digits_temp_bytes<W>(m), stream));
  if (n > 0) {  // (the attribute is set: the check of m above asked smem_limit())
    if (std::has_single_bit(m)) launch_add(values, weights, n, MaskBinRule(m), tiles_per_flush, counters, flags, stream);
    else launch_add(values, weights, n, BinRule(m), tiles_per_flush, counters, flags, stream);
  }
  launch("histogram_weighted_digits_round", digits_round_kernel<W>, {grid_stride_blocks(m, 256), 256}, stream,
         static_cast<const unsigned long long*>(counters), static_cast<const std::uint32_t*>(flags), m, sums)
      .work([] { return std::string("each bin's carries made, its sum rounded once to ") + (std::is_same_v<W, float> ? "float" : "double"); });
}

template std::uint32_t histogram_weighted_digits_max_bins<float>();
template std::uint32_t histogram_weighted_digits_max_bins<double>();
template std::size_t histogram_weighted_digits_temp_bytes<float>(std::uint32_t);
template std::size_t histogram_weighted_digits_temp_bytes<double>(std::uint32_t);
template void histogram_weighted_digits<float>(const std::int32_t*, const float*, std::size_t, std::uint32_t, float*, void*, std::size_t,
                                               cudaStream_t, unsigned);
template void histogram_weighted_digits<double>(const std::int32_t*, const double*, std::size_t, std::uint32_t, double*, void*,
                                                std::size_t, cudaStream_t, unsigned);

}  // namespace gpulab::histogram_detail
