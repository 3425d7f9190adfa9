// The weighted histogram's ladder (weighted_histogram_problem.hpp): every weight added to its bin
// by a float atomic in global memory, as PyTorch's bincount(weights=) does; warp-owned
// sub-histograms with each bin's lanes found by __match_any_sync; exact sums in 128-bit fixed point
// (an experiment), then float32's in a superaccumulator without a first pass, then as carry-save
// digits that no atomic waits on, then by ranges of bins sorted first; the library
// (histogram_weighted.cu): rung 5 (float32 up to six passes, float64 one), past it rung 2 with a
// bin's lanes found by ballots of the bin's bits up to 256 bins.
// No vendor: CUB's histograms count.
#include "histogram/bin_rule.hpp"
#include "histogram/fixed_point_sum.hpp"
#include "histogram/histogram_paths.hpp"
#include "histogram/weighted_histogram_problem.hpp"
#include "lib/launch.cuh"
#include "lib/launch_limits.hpp"
#include "lib/warp.cuh"

#include <gpulab/error.hpp>
#include <gpulab/histogram.hpp>

#include <cmath>
#include <string>
#include <type_traits>

namespace gpulab {
namespace {

// ---- rung 1: an atomic a weight --------------------------------------------------------------
//
// The course's histogram with a weight: one atomicAdd of the weight (in W) to its bin in global
// memory. The order of a bin's additions is the hardware's, so the float bits change from call to
// call, and a bin many values share serialises on one address.

template <class W>
__global__ void atomic_weights_kernel(const std::int32_t* values, const W* weights, std::size_t n, BinRule rule, W* sums) {
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    atomicAdd(&sums[rule(values[i])], weights[i]);
}

std::size_t no_workspace(std::size_t, std::uint32_t) { return 0; }

template <class W>
void global_atomics(const std::int32_t* values, const W* weights, std::size_t n, std::uint32_t m, W* sums, void*, std::size_t,
                    cudaStream_t stream) {
  GPULAB_CUDA_CHECK(cudaMemsetAsync(sums, 0, std::size_t{m} * sizeof(W), stream));
  if (n == 0) return;
  constexpr unsigned kThreads = 256;
  const unsigned blocks = resident_grid(reinterpret_cast<const void*>(atomic_weights_kernel<W>), n, kThreads);
  launch("atomic_weights", atomic_weights_kernel<W>, {blocks, kThreads}, stream, values, weights, n, BinRule(m), sums)
      .work([] { return std::string("an atomicAdd a weight, grid-stride"); });
}

// ---- rung 2: warp-owned sub-histograms, each bin's lanes found by __match_any_sync -------------
// ---- the library: the same, the lanes found by ballots of the bin's bits up to 256 bins --------
// Both are the library's own calls (histogram_detail::histogram_weighted_by_match, gpulab::
// histogram_weighted), with its storage.

// ---- rung 3: exact sums in 128-bit fixed point ------------------------------------------------
//
// Adds over rung 2: no order at all. A first pass finds the place q_min of the weights' lowest set
// bit and their highest exponent; where n of them fit 128 bits in units of 2^q_min (float32
// weights spanning up to ~70 binades at n = 2^26), each weight is an integer (fixed_point_sum.hpp)
// and 32-bit integer atomics on its limbs, in any order, sum it exactly: the carry into a limb is
// known from the value the atomic on the limb below returns. The sum is rounded once to W at the
// end (float32: to odd at 53 bits, then to float). The same bits on every GPU, grid and schedule,
// and the exact sum rounded; each block adds into a sub-histogram of 32-byte counters in shared memory
// where m of them fit, into the global ones otherwise, its elements eight at a time (their loads
// issued together), a warp whose 32 values share a bin adding their weights as one integer
// (summed by shuffles). Weights past that span, or not finite, make
// every sum NaN: an experiment, timed against rung 2 and the library before it can be the
// library's.

/// The first pass's findings, each a maximum (zeroed before): 2048 − q_min, 2048 + the highest
/// exponent (0: no weight but zeros), whether a weight was not finite.
struct ExactSpan {
  unsigned low_biased, top_biased, not_finite, unused;
};
constexpr int kExponentBias = 2048;

/// Thread t's elements of a grid-stride loop over [0, n), kBatch at a time: load(i) for each of a
/// batch's indices first, then use(x) on each loaded x in order, so that a thread has kBatch loads
/// in flight where a loop of one element waits for each (the exact rung's first measure: 63% of its
/// stalls on loads at one element a thread).
template <unsigned kBatch, class Load, class Use>
__device__ __forceinline__ void grid_stride_batches(std::size_t n, Load&& load, Use&& use) {
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  for (; i + (kBatch - 1) * stride < n; i += kBatch * stride) {
    decltype(load(i)) x[kBatch];
#pragma unroll
    for (unsigned u = 0; u < kBatch; ++u) x[u] = load(i + u * stride);
#pragma unroll
    for (unsigned u = 0; u < kBatch; ++u) use(x[u]);
  }
  for (; i < n; i += stride) use(load(i));
}
constexpr unsigned kExactBatch = 8;

template <class W>
__global__ void exact_span_kernel(const W* weights, std::size_t n, ExactSpan* span) {
  fixed_point::Span mine;
  unsigned bad = 0;
  grid_stride_batches<kExactBatch>(n, [&](std::size_t i) { return weights[i]; }, [&](W w) {
    if (isfinite(w)) mine.add(w);
    else bad = 1;
  });
  const unsigned low = warp_max_unsigned(mine.empty() ? 0u : static_cast<unsigned>(kExponentBias - mine.q_min));
  const unsigned top = warp_max_unsigned(mine.empty() ? 0u : static_cast<unsigned>(kExponentBias + mine.top));
  bad = warp_max_unsigned(bad);
  if (threadIdx.x % kWarp == 0) {
    if (low != 0) atomicMax(&span->low_biased, low);
    if (top != 0) atomicMax(&span->top_biased, top);
    if (bad != 0) atomicMax(&span->not_finite, 1u);
  }
}

/// q_min where the sums fit 128 bits, or false (then every sum is NaN).
__device__ bool exact_q_min(const ExactSpan& found, std::size_t n, int& q_min) {
  fixed_point::Span all;
  if (found.top_biased != 0) all = {kExponentBias - static_cast<int>(found.low_biased), static_cast<int>(found.top_biased) - kExponentBias};
  q_min = all.q_min;
  return found.not_finite == 0 && all.fits(n);
}

/// A bin's counters: the sum of its positive weights' magnitudes, then its negative ones', each a
/// 128-bit unsigned in four 32-bit limbs (32-bit atomics are native in shared memory; 64-bit ones
/// are a compare-and-swap loop there), so that a weight touches one or two limbs of one of them.
/// In global memory a bin's eight limbs lie side by side (limb k of a side `stride` = 1 apart); in
/// shared memory in eight planes of m (stride = m), so that the lanes adding limb k of different
/// bins fall in different banks: side by side, every bin's limb k lay in 4 of the 32 banks.
constexpr unsigned kLimbsPerBin = 8;

/// The limbs' add: an atomic that returns the limb before (fixed_point::add_parts).
struct AtomicAddU32 {
  __device__ std::uint32_t operator()(std::uint32_t* p, std::uint32_t v) const { return atomicAdd(p, v); }
};

__device__ __forceinline__ void add_weight(std::uint32_t* bin_limbs, std::size_t stride, bool negative, fixed_point::Int128 magnitude) {
  fixed_point::add_to_limbs(bin_limbs + (negative ? 4 * stride : 0), magnitude, AtomicAddU32{}, stride);
}

/// The sum of the warp's 32 integers (two's complement, mod 2^128), in every lane: exact where the
/// weights' span fits (exact_q_min holds for any n of them).
__device__ __forceinline__ fixed_point::Int128 warp_sum_fixed(fixed_point::Int128 x) {
  for (unsigned mask = kWarp / 2; mask > 0; mask /= 2)
    fixed_point::add_into(x, {__shfl_xor_sync(kFullMask, x.lo, mask), __shfl_xor_sync(kFullMask, x.hi, mask)});
  return x;
}

template <class W, bool kShared>
__global__ void exact_add_kernel(const std::int32_t* values, const W* weights, std::size_t n, BinRule rule, const ExactSpan* span,
                                 std::uint32_t* sums) {
  int q_min = 0;
  if (!exact_q_min(*span, n, q_min) || span->top_biased == 0) return;
  const std::uint32_t m = rule.bins();
  extern __shared__ std::uint32_t block_limbs[];  // kShared: kLimbsPerBin planes of m
  if constexpr (kShared) {
    for (std::uint32_t k = threadIdx.x; k < kLimbsPerBin * m; k += blockDim.x) block_limbs[k] = 0;
    __syncthreads();
  }
  struct Element {
    std::int32_t value;
    W weight;
  };
  auto add = [&](std::uint32_t b, bool negative, fixed_point::Int128 magnitude) {
    if constexpr (kShared) add_weight(block_limbs + b, m, negative, magnitude);
    else add_weight(sums + kLimbsPerBin * b, 1, negative, magnitude);
  };
  grid_stride_batches<kExactBatch>(n, [&](std::size_t i) { return Element{values[i], weights[i]}; }, [&](const Element& e) {
    const std::uint32_t b = rule(e.value);
    // A whole warp of one bin (few bins, skewed values) adds its 32 weights as one integer summed by
    // shuffles, not by 32 atomics on the same limbs one after another (at 3308124 one bin took 0.72×
    // the library's time for float32 weights, 0.42× for float64).
    if (__activemask() == kFullMask && warp_uniform(b)) {
      const fixed_point::Int128 sum = warp_sum_fixed(e.weight == W(0) ? fixed_point::Int128{} : fixed_point::to_fixed(e.weight, q_min));
      const bool negative = (sum.hi >> 63) != 0;
      if (threadIdx.x % kWarp == 0 && (sum.lo | sum.hi) != 0) add(b, negative, negative ? fixed_point::negate(sum) : sum);
      return;
    }
    if (e.weight != W(0)) add(b, e.weight < W(0), fixed_point::magnitude(e.weight, q_min));
  });
  if constexpr (kShared) {
    __syncthreads();
    for (std::uint32_t b = threadIdx.x; b < m; b += blockDim.x)
      for (unsigned side = 0; side < 2; ++side) {
        const fixed_point::Int128 x = fixed_point::from_limbs(block_limbs + b + 4 * side * m, m);
        if ((x.lo | x.hi) != 0) add_weight(sums + kLimbsPerBin * b, 1, side == 1, x);
      }
  }
}

template <class W>
__global__ void exact_round_kernel(const std::uint32_t* sums_limbs, std::uint32_t m, std::size_t n, const ExactSpan* span, W* sums) {
  int q_min = 0;
  const bool fits = exact_q_min(*span, n, q_min);
  for (std::uint32_t b = blockIdx.x * blockDim.x + threadIdx.x; b < m; b += gridDim.x * blockDim.x) {
    fixed_point::Int128 sum = fixed_point::from_limbs(sums_limbs + kLimbsPerBin * b);
    fixed_point::add_into(sum, fixed_point::negate(fixed_point::from_limbs(sums_limbs + kLimbsPerBin * b + 4)));
    sums[b] = fits ? static_cast<W>(fixed_point::to_double(sum, q_min, fixed_point::kRoundToOdd<W>)) : W(NAN);
  }
}

/// An exact rung's add pass over n elements, a resident grid-stride launch: `in_shared` where its
/// counters (`smem` bytes) fit a block's shared memory, else `in_global` on the global counters.
template <class Kernel, class... Args>
void launch_add_pass(const char* name, Kernel in_shared, Kernel in_global, std::size_t smem, std::size_t n, const char* what,
                     cudaStream_t stream, Args... args) {
  constexpr unsigned kThreads = 512;
  const bool fits = smem <= dynamic_smem_limit(reinterpret_cast<const void*>(in_shared));
  if (fits) allow_dynamic_smem(reinterpret_cast<const void*>(in_shared), smem, name);
  const Kernel kernel = fits ? in_shared : in_global;
  const std::size_t bytes = fits ? smem : 0;
  launch(name, kernel, {resident_grid(reinterpret_cast<const void*>(kernel), n, kThreads, bytes), kThreads, bytes}, stream, args...)
      .work([what, fits] { return std::string(what) + (fits ? " in the block's counters" : " in the global counters"); });
}

/// Its storage: the span, then kLimbsPerBin words a bin.
std::size_t exact_workspace(std::size_t, std::uint32_t m) { return sizeof(ExactSpan) + kLimbsPerBin * sizeof(std::uint32_t) * m; }

template <class W>
void exact_fixed_point(const std::int32_t* values, const W* weights, std::size_t n, std::uint32_t m, W* sums, void* workspace,
                       std::size_t workspace_bytes, cudaStream_t stream) {
  if (workspace_bytes < exact_workspace(n, m)) throw Error("exact_fixed_point: too little workspace");
  auto* span = static_cast<ExactSpan*>(workspace);
  auto* limbs = reinterpret_cast<std::uint32_t*>(span + 1);
  GPULAB_CUDA_CHECK(cudaMemsetAsync(workspace, 0, exact_workspace(n, m), stream));
  if (n > 0) {
    constexpr unsigned kThreads = 512;
    launch("exact_span", exact_span_kernel<W>, {resident_grid(reinterpret_cast<const void*>(exact_span_kernel<W>), n, kThreads), kThreads},
           stream, weights, n, span)
        .work([] { return std::string("the weights' lowest set bit and highest exponent, grid-stride"); });
    launch_add_pass("exact_add", exact_add_kernel<W, true>, exact_add_kernel<W, false>, kLimbsPerBin * sizeof(std::uint32_t) * m, n,
                    "each weight an integer, 32-bit atomics on its limbs", stream, values, weights, n, BinRule(m),
                    static_cast<const ExactSpan*>(span), limbs);
  }
  launch("exact_round", exact_round_kernel<W>, {grid_stride_blocks(m, 256), 256}, stream, limbs, m, n, span, sums)
      .work([] { return std::string("each bin's positive less negative sum rounded once to W"); });
}

// ---- rung 4: float32 weights in a superaccumulator -------------------------------------------
//
// Adds over rung 3: no first pass, and no span past which the sums fail. Every finite float32 is an
// integer number of 2^−149 below 2^277, so ten 32-bit limbs a side hold any sum of them exactly
// (fixed_point::add_to_super): one read of the values and weights. A bin's 21 words: ten limbs of
// its positive weights, ten of its negative ones, and flags for +Inf, −Inf and NaN among its weights
// (its sum is then what IEEE addition gives: ±Inf, or NaN for both or a NaN). In shared memory 21
// planes of m where they fit (m ≤ ~2700 on an H100), else in global memory. float64 weights span
// 2 098 binades, 66 limbs a side: they take rung 3's path.

constexpr unsigned kSuperWords = 2 * fixed_point::kSuperLimbs + 1;  // positive limbs, negative limbs, flags
constexpr unsigned kFlagsWord = 2 * fixed_point::kSuperLimbs;

template <bool kShared>
__global__ void super_add_kernel(const std::int32_t* values, const float* weights, std::size_t n, BinRule rule, std::uint32_t* sums) {
  const std::uint32_t m = rule.bins();
  extern __shared__ std::uint32_t block_words[];  // kShared: kSuperWords planes of m
  if constexpr (kShared) {
    for (std::uint32_t k = threadIdx.x; k < kSuperWords * m; k += blockDim.x) block_words[k] = 0;
    __syncthreads();
  }
  const std::size_t stride = kShared ? m : 1;  // between a bin's words
  auto word = [&](std::uint32_t b, unsigned w) { return kShared ? block_words + b + w * stride : sums + std::size_t{kSuperWords} * b + w; };
  struct Element {
    std::int32_t value;
    float weight;
  };
  grid_stride_batches<kExactBatch>(n, [&](std::size_t i) { return Element{values[i], weights[i]}; }, [&](const Element& e) {
    if (e.weight == 0.f) return;
    const std::uint32_t b = rule(e.value);
    if (!isfinite(e.weight)) atomicOr(word(b, kFlagsWord), fixed_point::special_flag(e.weight));
    else fixed_point::add_to_super(word(b, e.weight < 0.f ? fixed_point::kSuperLimbs : 0), e.weight, AtomicAddU32{}, stride);
  });
  if constexpr (kShared) {
    __syncthreads();
    for (std::uint32_t b = threadIdx.x; b < m; b += blockDim.x) {
      for (unsigned side = 0; side < 2; ++side) {
        std::uint32_t parts[fixed_point::kSuperLimbs];
        std::uint32_t any = 0;
        for (int k = 0; k < fixed_point::kSuperLimbs; ++k) any |= parts[k] = *word(b, side * fixed_point::kSuperLimbs + k);
        if (any != 0)
          fixed_point::add_parts(sums + std::size_t{kSuperWords} * b + side * fixed_point::kSuperLimbs, 1, fixed_point::kSuperLimbs, 0,
                                 parts, fixed_point::kSuperLimbs, AtomicAddU32{});
      }
      if (const std::uint32_t flags = *word(b, kFlagsWord); flags != 0) atomicOr(sums + std::size_t{kSuperWords} * b + kFlagsWord, flags);
    }
  }
}

__global__ void super_round_kernel(const std::uint32_t* sums, std::uint32_t m, float* out) {
  for (std::uint32_t b = blockIdx.x * blockDim.x + threadIdx.x; b < m; b += gridDim.x * blockDim.x) {
    const std::uint32_t* bin = sums + std::size_t{kSuperWords} * b;
    const std::uint32_t flags = bin[kFlagsWord];
    out[b] = flags != 0 ? fixed_point::special_sum(flags)
                        : static_cast<float>(fixed_point::super_to_double(bin, bin + fixed_point::kSuperLimbs, 1, true));
  }
}

/// Its storage: kSuperWords words a bin (float32), rung 3's (float64).
template <class W>
std::size_t super_workspace(std::size_t n, std::uint32_t m) {
  if constexpr (std::is_same_v<W, float>) return kSuperWords * sizeof(std::uint32_t) * m;
  else return exact_workspace(n, m);
}

template <class W>
void exact_superaccumulator(const std::int32_t* values, const W* weights, std::size_t n, std::uint32_t m, W* sums, void* workspace,
                            std::size_t workspace_bytes, cudaStream_t stream) {
  if constexpr (!std::is_same_v<W, float>) {
    exact_fixed_point<W>(values, weights, n, m, sums, workspace, workspace_bytes, stream);
  } else {
    if (workspace_bytes < super_workspace<W>(n, m)) throw Error("exact_superaccumulator: too little workspace");
    auto* words = static_cast<std::uint32_t*>(workspace);
    GPULAB_CUDA_CHECK(cudaMemsetAsync(workspace, 0, super_workspace<W>(n, m), stream));
    if (n > 0)
      launch_add_pass("super_add", super_add_kernel<true>, super_add_kernel<false>, kSuperWords * sizeof(std::uint32_t) * m, n,
                      "each weight added to its bin's ten 32-bit limbs", stream, values, weights, n, BinRule(m), words);
    launch("super_round", super_round_kernel, {grid_stride_blocks(m, 256), 256}, stream, words, m, sums)
        .work([] { return std::string("each bin's positive less negative sum rounded once to float"); });
  }
}

// ---- rung 5: weights as carry-save digits ------------------------------------------------------
//
// Adds over rung 4: no carries while the weights add. A bin's sum is counters of 12-bit digits
// (fixed_point::to_digits: float32 24 counters, three digits a weight; float64 176, six), and no
// atomic's result is waited for (histogram_weighted_digits.cu; the library's float32 path): the bins
// a block's shared memory holds (~2300 float32, ~330 float64 on an H100) a pass, up to six passes
// (float64 two); past that rung 4 (float64 rung 3).

template <class W>
std::size_t digits_workspace(std::size_t n, std::uint32_t m) {
  if (m <= histogram_detail::histogram_weighted_digits_max_bins<W>()) return histogram_detail::histogram_weighted_digits_temp_bytes<W>(m);
  return super_workspace<W>(n, m);
}

template <class W>
void carry_save_digits(const std::int32_t* values, const W* weights, std::size_t n, std::uint32_t m, W* sums, void* workspace,
                       std::size_t workspace_bytes, cudaStream_t stream) {
  if (m <= histogram_detail::histogram_weighted_digits_max_bins<W>())
    histogram_detail::histogram_weighted_digits(values, weights, n, m, sums, workspace, workspace_bytes, stream);
  else
    exact_superaccumulator<W>(values, weights, n, m, sums, workspace, workspace_bytes, stream);
}

// ---- rung 6: by ranges of bins, any m --------------------------------------------------------------
//
// Adds over rung 5: no pass over the elements per range of bins. Each element's bin is written, the
// (bin, weight) pairs sorted by the bin's range (CUB's radix sort over the bits above it), and a
// block a range adds its elements' digits in shared memory and rounds its bins
// (histogram_weighted_digits.cu): exact at any m, where rung 5 stops at its passes. Every value in
// one range is one block's work.

template <class W>
constexpr WeightedHistogramRung<W> kRungs[] = {
    {{"global_atomics",
      "an atomicAdd of each weight to its bin in global memory (PyTorch's bincount): the bits change from call to call",
      Role::rung, false, false, "dram"},
     {&no_workspace, &global_atomics<W>, /*sums_in_w=*/true}},
    {{"match_groups",
      "a sub-histogram of doubles a warp in shared memory; in each chunk of 32 the lanes of one bin found by "
      "__match_any_sync, their weights summed in lane order by the lowest lane; blocks' partials added in order",
      Role::rung, false, false, "dram"},
     {&histogram_weighted_temp_bytes, &histogram_detail::histogram_weighted_by_match<W>, false, /*shared_memory_only=*/true}},
    {{"exact_fixed_point",
      "each weight an integer number of the weights' lowest set bit, summed by 32-bit integer atomics on 128-bit "
      "counters' limbs in any order (shared memory where they fit), rounded once: the exact sum, the same bits on any GPU; "
      "weights spanning more than ~70 binades give NaN (an experiment)",
      Role::rung, false, false, "dram"},
     {&exact_workspace, &exact_fixed_point<W>}},
    {{"exact_superaccumulator",
      "float32: each weight added to its bin's ten 32-bit limbs (any finite float32 an integer of 2^-149 below 2^277): "
      "rung 3 without its first pass and with no span that fails; Inf and NaN as IEEE addition gives them; float64 as rung 3",
      Role::rung, false, false, "dram"},
     {&super_workspace<W>, &exact_superaccumulator<W>}},
    {{"carry_save_digits",
      "each weight's 12-bit digits (float32 three, float64 six) added to a bin's counters in shared memory, no carry "
      "between them while they add (no atomic's result waited for), the carries made once at the end: exact, rounded "
      "once; past shared memory in passes over the bins (float32 up to six, float64 two), then as rung 4 (float64 3)",
      Role::rung, false, false, "dram"},
     {&digits_workspace<W>, &carry_save_digits<W>}},
    {{"range_digits",
      "each element's bin written, the (bin, weight) pairs sorted by range of bins (CUB), a block a range adding its "
      "elements' digits in shared memory and rounding its bins: exact at any m; every value in one range is one block's work",
      Role::rung, false, false, "dram"},
     {&histogram_detail::histogram_weighted_range_digits_temp_bytes<W>, &histogram_detail::histogram_weighted_range_digits<W>}},
    {{"library",
      "gpulab::histogram_weighted: rung 5 up to its six passes (float32) or one (float64); else rung 2 with a chunk's lanes of one bin "
      "found by ballots of the bin's bits up to 256 bins (a vote first: one bin?), which the MIO pipe bears better there; "
      "past shared memory sorted by bin and summed by a segmented scan by key: the same bits every call",
      Role::library, false, false, "dram"},
     {&histogram_weighted_temp_bytes, &histogram_weighted<W>}},
};

}  // namespace

template <class W>
std::span<const WeightedHistogramRung<W>> weighted_histogram_rungs() {
  return kRungs<W>;
}

template std::span<const WeightedHistogramRung<float>> weighted_histogram_rungs<float>();
template std::span<const WeightedHistogramRung<double>> weighted_histogram_rungs<double>();

}  // namespace gpulab
