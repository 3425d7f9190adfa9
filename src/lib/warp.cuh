// Warp-level building blocks shared by the ladders.
#pragma once

namespace gpulab {

constexpr unsigned kWarp = 32;
constexpr unsigned kFullMask = 0xffffffffu;

/// Sum over the 32 lanes of a warp, valid in lane 0: five shuffle levels.
template <class A>
__device__ __forceinline__ A warp_sum(A v) {
#pragma unroll
  for (unsigned offset = kWarp / 2; offset > 0; offset /= 2) v += __shfl_down_sync(kFullMask, v, offset);
  return v;
}

/// op (associative, commutative) over the 32 lanes, in every lane: a butterfly of shuffles (where
/// compute capability 8.0's redux.sync is missing, or for types it does not take).
template <class T, class Op>
__device__ __forceinline__ T warp_butterfly(T v, Op op) {
#pragma unroll
  for (unsigned mask = kWarp / 2; mask > 0; mask /= 2) v = op(v, __shfl_xor_sync(kFullMask, v, mask));
  return v;
}

/// Sum over the 32 lanes of a warp, the same bits in every lane: a butterfly, where at each level
/// lanes L and L ^ m add the same two values (float addition commutes), so they stay equal.
template <class A>
__device__ __forceinline__ A warp_sum_all(A v) {
  return warp_butterfly(v, [](A a, A b) { return a + b; });
}

/// Sum of an unsigned over the 32 lanes, in every lane: one redux.sync on compute capability 8.0 and
/// newer (__reduce_add_sync), the butterfly of shuffles before that.
__device__ __forceinline__ unsigned warp_sum_unsigned(unsigned v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  return warp_sum_all(v);
#else
  return __reduce_add_sync(kFullMask, v);
#endif
}

/// Largest unsigned of the 32 lanes, in every lane: one redux.sync on compute capability 8.0 and
/// newer (__reduce_max_sync), a butterfly of shuffles before that.
__device__ __forceinline__ unsigned warp_max_unsigned(unsigned v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  return warp_butterfly(v, [](unsigned a, unsigned b) { return max(a, b); });
#else
  return __reduce_max_sync(kFullMask, v);
#endif
}

/// Smallest int of the 32 lanes, in every lane: one redux.sync on compute capability 8.0 and newer
/// (__reduce_min_sync), a butterfly of shuffles before that.
__device__ __forceinline__ int warp_min_int(int v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  return warp_butterfly(v, [](int a, int b) { return min(a, b); });
#else
  return __reduce_min_sync(kFullMask, v);
#endif
}

/// Whether every lane of the (whole, converged) warp holds lane 0's v, in every lane.
__device__ __forceinline__ bool warp_uniform(unsigned v) { return __all_sync(kFullMask, v == __shfl_sync(kFullMask, v, 0)); }

/// Inclusive prefix sum over the lanes of a warp (Kogge–Stone: five shuffle levels, each lane adding
/// the value `offset` lanes below it). The association depends only on the lane: deterministic.
template <class A>
__device__ __forceinline__ A warp_inclusive_scan(A v) {
  const unsigned lane = threadIdx.x % kWarp;
#pragma unroll
  for (unsigned offset = 1; offset < kWarp; offset *= 2) {
    const A below = __shfl_up_sync(kFullMask, v, offset);
    if (lane >= offset) v += below;
  }
  return v;
}

/// Whether this lane is the lowest of the lanes in `active` holding `key`: true in one lane per
/// distinct key (every lane of `active` must call it).
__device__ __forceinline__ bool first_of_its_key(unsigned key, unsigned active) {
  const unsigned peers = __match_any_sync(active, key);
  return (peers & ((1u << (threadIdx.x % kWarp)) - 1u)) == 0;
}

}  // namespace gpulab
