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
#include "lib/memory_layout.hpp"
#include "lib/per_device.hpp"
#include "lib/warp.cuh"

#include <gpulab/error.hpp>

#include <cub/device/device_radix_sort.cuh>

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

/// A bin's sum: what IEEE addition gives its non-finite weights where it saw any (flags), else its
/// counters carried and rounded once.
template <class W>
__device__ W bin_sum(std::uint32_t flags, const std::int64_t* counters) {
  return flags != 0 ? fp::special_sum<W>(flags) : fp::round_digits<W>(counters, 1);
}

template <class W>
__global__ void digits_round_kernel(const unsigned long long* counters, const std::uint32_t* flags, std::uint32_t m, W* sums) {
  for (std::uint32_t b = blockIdx.x * blockDim.x + threadIdx.x; b < m; b += gridDim.x * blockDim.x)
    sums[b] = bin_sum<W>(flags[b], reinterpret_cast<const std::int64_t*>(counters) + std::size_t{b} * fp::DigitFormat<W>::kDigits);
}

template <class W>
std::size_t counter_bytes(std::uint32_t m) {
  return std::size_t{m} * fp::DigitFormat<W>::kDigits * sizeof(unsigned long long);
}

// ---- past the passes: the elements sorted by range of bins, each range in one block -------------
//
// Each element's bin is written beside it and the (bin, weight) pairs sorted by the bin's range
// (CUB's radix sort over the bits above the range's: two passes at 2^24 bins in ranges of 2048);
// block r finds its range's elements by binary search in the sorted bins, adds their digits in
// shared memory and rounds its bins: no global counters and no pass over the elements per range.
// Every 2^19 of a block's elements its counters are carried (each brought into [0, 2^12), the rest
// into the next), which keeps them exact however many elements one range holds.

/// Each element's bin (grid-stride).
template <class Rule>
__global__ void range_bins_kernel(const std::int32_t* values, std::size_t n, Rule rule, std::uint32_t* bins) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    bins[i] = rule(values[i]);
}

/// The first index of `sorted` (n bins, sorted by range) whose bin is `bin` or more.
__device__ std::size_t lower_bound(const std::uint32_t* sorted, std::size_t n, std::uint32_t bin) {
  std::size_t lo = 0, hi = n;
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (sorted[mid] < bin) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// A thread keeps the same bins of its block all through (b = threadIdx.x + j·blockDim.x), at most
// four of them (ranges of up to 2048 bins), and each bin's top part in a 64-bit register: n < 2^32
// float32 near their largest need more than a 32-bit top counter.
constexpr unsigned kMaxBinsPerThread = 4;
constexpr std::uint32_t kMaxRangeBins = kMaxBinsPerThread * kThreads;

/// Each counter of the thread's bins brought into [0, 2^12), its carry added to the next; the top
/// counter, with the last carry, moved into the thread's `top` (the same value, and room for 2^19
/// more additions to every counter: below 2^12 + 2^19·(2^12 − 1) < 2^31).
template <class W>
__device__ void carry_counters(std::int32_t* words, std::uint32_t bins, std::int64_t (&top)[kMaxBinsPerThread]) {
  constexpr int kDigits = fp::DigitFormat<W>::kDigits;
#pragma unroll
  for (unsigned j = 0; j < kMaxBinsPerThread; ++j) {
    const std::uint32_t b = threadIdx.x + j * blockDim.x;
    if (b >= bins) break;
    std::int64_t carry = 0;
    for (int k = 0; k + 1 < kDigits; ++k) {
      const std::int64_t t = words[k * bins + b] + carry;
      words[k * bins + b] = static_cast<std::int32_t>(t & fp::kDigitMask);
      carry = t >> fp::kDigitBits;
    }
    top[j] += words[(kDigits - 1) * bins + b] + carry;
    words[(kDigits - 1) * bins + b] = 0;
  }
}

/// Block r: bins [r·2^range_bits, +2^range_bits) of m, its elements those of `sorted_bins` in that
/// range (sorted by range), their weights beside them.
template <class W>
__global__ void __launch_bounds__(kThreads)
range_digits_kernel(const std::uint32_t* sorted_bins, const W* sorted_weights, std::size_t n, std::uint32_t m, int range_bits, W* sums) {
  extern __shared__ std::int32_t words[];
  __shared__ std::size_t ends[2];
  const std::uint32_t first_bin = blockIdx.x << range_bits;
  const std::uint32_t bins = min(1u << range_bits, m - first_bin);
  if (threadIdx.x < 2) ends[threadIdx.x] = lower_bound(sorted_bins, n, threadIdx.x == 0 ? first_bin : first_bin + bins);
  __syncthreads();
  const std::size_t begin = ends[0], end = ends[1];
  if (begin == end) {  // no element in the range
    for (std::uint32_t b = threadIdx.x; b < bins; b += blockDim.x) sums[first_bin + b] = W(0);
    return;
  }
  for (std::uint32_t k = threadIdx.x; k < kWords<W> * bins; k += blockDim.x) words[k] = 0;
  __syncthreads();
  std::int64_t top[kMaxBinsPerThread] = {};
  for (std::size_t chunk = begin; chunk < end; chunk += fp::kDigitAddsIn32Bits) {
    const std::size_t chunk_end = min(end, chunk + fp::kDigitAddsIn32Bits);
    // Warp by warp (every lane the same trips: the votes below), a warp whose 32 elements are all one
    // bin, all finite (values all in one bin, or a few) summed by shuffles first, as in rung 5.
    for (std::size_t at = chunk + threadIdx.x - threadIdx.x % kWarp; at < chunk_end; at += blockDim.x) {
      const std::size_t i = at + threadIdx.x % kWarp;
      const bool valid = i < chunk_end;
      const std::uint32_t b = valid ? sorted_bins[i] - first_bin : 0;
      const W w = valid ? sorted_weights[i] : W(0);
      const std::uint32_t lane0_bin = __shfl_sync(kFullMask, b, 0);
      if (__all_sync(kFullMask, valid && b == lane0_bin && isfinite(w))) {
        if (!add_warp_of_one_bin(words, bins, b, w) && w != W(0)) add_weight(words, bins, b, w);
      } else if (valid) {
        add_lane(words, bins, b, w);
      }
    }
    __syncthreads();
    carry_counters<W>(words, bins, top);  // each thread its own bins, then a barrier before any thread adds again
    __syncthreads();
  }
  constexpr int kDigits = fp::DigitFormat<W>::kDigits;
#pragma unroll
  for (unsigned j = 0; j < kMaxBinsPerThread; ++j) {
    const std::uint32_t b = threadIdx.x + j * blockDim.x;
    if (b >= bins) break;
    std::int64_t counters[kDigits];
    for (int k = 0; k < kDigits; ++k) counters[k] = words[k * bins + b];
    counters[kDigits - 1] += top[j];
    sums[first_bin + b] = bin_sum<W>(static_cast<std::uint32_t>(words[kFlagsWord<W> * bins + b]), counters);
  }
}

// ---- the host side: the shared memory both paths take, their launches -------------------------

/// The kernels that hold a pass's or a range's counters in shared memory.
template <class W>
const void* const kCounterKernels[] = {reinterpret_cast<const void*>(digits_add_kernel<W, false, BinRule>),
                                       reinterpret_cast<const void*>(digits_add_kernel<W, true, BinRule>),
                                       reinterpret_cast<const void*>(digits_add_kernel<W, false, MaskBinRule>),
                                       reinterpret_cast<const void*>(digits_add_kernel<W, true, MaskBinRule>),
                                       reinterpret_cast<const void*>(range_digits_kernel<W>)};

/// The counter kernels allowed all the dynamic shared memory the device gives them (once per device).
template <class W>
std::size_t smem_limit() {
  static PerDevice<std::size_t> cache;
  return cache.get([] {
    return allow_most_dynamic_smem(kCounterKernels<W>, std::is_same_v<W, float> ? "histogram_weighted (float32 digits)"
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

/// The bits of a range of bins: as many bins as a block's shared memory holds (a power of two), but
/// no more than leave two ranges an SM (where m allows), so that a small m still fills the GPU.
template <class W>
int range_bits_for(std::uint32_t m) {
  const std::uint32_t most = std::min(std::bit_floor(bins_a_pass<W>()), kMaxRangeBins);
  const auto sms = static_cast<std::uint32_t>(current_device_attribute(cudaDevAttrMultiProcessorCount));
  const std::uint32_t spread = std::bit_floor(std::max(1u, m / (2 * sms)));
  return std::countr_zero(std::min(most, spread));
}

/// The range path's storage: the bins, sorted bins and sorted weights, and CUB's sort storage.
template <class W>
struct RangeLayout {
  std::size_t sort_bytes = 0, bins_in = 0, bins_out = 0, weights_out = 0, sort = 0, total = 0;
  RangeLayout(std::size_t n, int range_bits, int end_bit) {
    GPULAB_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, static_cast<const std::uint32_t*>(nullptr),
                                                      static_cast<std::uint32_t*>(nullptr), static_cast<const W*>(nullptr),
                                                      static_cast<W*>(nullptr), static_cast<std::int64_t>(n), range_bits,
                                                      std::max(end_bit, range_bits + 1)));
    Offsets parts;
    bins_in = parts.take(n * sizeof(std::uint32_t));
    bins_out = parts.take(n * sizeof(std::uint32_t));
    weights_out = parts.take(n * sizeof(W));
    sort = parts.take(sort_bytes);
    total = parts.total;
  }
};

}  // namespace

template <class W>
std::size_t histogram_weighted_range_digits_temp_bytes(std::size_t n, std::uint32_t m) {
  if (m == 0) throw Error("histogram_weighted_range_digits: m = 0 bins");
  return RangeLayout<W>(n, range_bits_for<W>(m), bin_bits(m)).total;
}

template <class W>
void histogram_weighted_range_digits(const std::int32_t* values, const W* weights, std::size_t n, std::uint32_t m, W* sums, void* temp,
                                     std::size_t temp_bytes, cudaStream_t stream) {
  if (sums == nullptr || ((values == nullptr || weights == nullptr || temp == nullptr) && n > 0))
    throw Error("histogram_weighted_range_digits: null device pointer");
  if (m == 0) throw Error("histogram_weighted_range_digits: m = 0 bins");
  const int range_bits = range_bits_for<W>(m), end_bit = bin_bits(m);
  const RangeLayout<W> l(n, range_bits, end_bit);
  if (temp_bytes < l.total) throw Error("histogram_weighted_range_digits: too little temporary storage");
  auto* base = static_cast<std::byte*>(temp);
  auto* bins_in = reinterpret_cast<std::uint32_t*>(base + l.bins_in);
  auto* bins_out = reinterpret_cast<std::uint32_t*>(base + l.bins_out);
  auto* weights_out = reinterpret_cast<W*>(base + l.weights_out);
  if (n > 0) {
    constexpr unsigned kBinThreads = 256;
    const unsigned blocks = grid_stride_blocks(n, kBinThreads);
    if (std::has_single_bit(m))
      launch("histogram_weighted_range_bins", range_bins_kernel<MaskBinRule>, {blocks, kBinThreads}, stream, values, n, MaskBinRule(m),
             bins_in);
    else launch("histogram_weighted_range_bins", range_bins_kernel<BinRule>, {blocks, kBinThreads}, stream, values, n, BinRule(m), bins_in);
    std::size_t sort_bytes = l.sort_bytes;
    // Sorted by the bits above a range's (at least one bit: one range needs no order, but CUB wants one)
    GPULAB_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(base + l.sort, sort_bytes, bins_in, bins_out, weights, weights_out,
                                                      static_cast<std::int64_t>(n), range_bits, std::max(end_bit, range_bits + 1), stream));
  }
  const std::uint32_t ranges = ((m - 1) >> range_bits) + 1;
  const std::size_t smem = std::size_t{kWords<W>} * (std::size_t{1} << range_bits) * sizeof(std::int32_t);
  launch("histogram_weighted_range_digits", range_digits_kernel<W>, {ranges, kThreads, smem}, stream,
         static_cast<const std::uint32_t*>(bins_out), static_cast<const W*>(weights_out), n, m, range_bits, sums)
      .work([=] {
        return "a block a range of " + std::to_string(1u << range_bits) + " bins: its elements found by binary search, their digits " +
               "added in shared memory, its bins rounded";
      });
}

template std::size_t histogram_weighted_range_digits_temp_bytes<float>(std::size_t, std::uint32_t);
template std::size_t histogram_weighted_range_digits_temp_bytes<double>(std::size_t, std::uint32_t);
template void histogram_weighted_range_digits<float>(const std::int32_t*, const float*, std::size_t, std::uint32_t, float*, void*,
                                                     std::size_t, cudaStream_t);
template void histogram_weighted_range_digits<double>(const std::int32_t*, const double*, std::size_t, std::uint32_t, double*, void*,
                                                      std::size_t, cudaStream_t);

template <class W>
std::uint32_t histogram_weighted_digits_max_bins() {
  return kMaxPasses<W> * bins_a_pass<W>();
}

// float64's digits lose to the ballots where values crowd into few bins (H200, 2^26 values into 256
// bins, all in one: 0.397 against 0.279 ms) and win 2× on spread ones (0.311 against 0.612); a second
// pass over the elements costs them that lead (656 bins: 0.620 against 0.734, one bin 0.634 against
// 0.279), so the library takes them for one pass only (docs/histogram.md).
template <class W>
std::uint32_t histogram_weighted_digits_library_bins() {
  return std::is_same_v<W, float> ? histogram_weighted_digits_max_bins<W>() : bins_a_pass<W>();
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
template std::uint32_t histogram_weighted_digits_library_bins<float>();
template std::uint32_t histogram_weighted_digits_library_bins<double>();
template std::size_t histogram_weighted_digits_temp_bytes<float>(std::uint32_t);
template std::size_t histogram_weighted_digits_temp_bytes<double>(std::uint32_t);
template void histogram_weighted_digits<float>(const std::int32_t*, const float*, std::size_t, std::uint32_t, float*, void*, std::size_t,
                                               cudaStream_t, unsigned);
template void histogram_weighted_digits<double>(const std::int32_t*, const double*, std::size_t, std::uint32_t, double*, void*,
                                                std::size_t, cudaStream_t, unsigned);

}  // namespace gpulab::histogram_detail
