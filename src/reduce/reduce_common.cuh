// Device building blocks shared by the reduction rungs: the accumulator type, warp and block
// sums, and the per-thread streaming sum with 16-byte loads.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpulab::reduce_detail {

/// Sums accumulate in Accum<T>: int32 in uint32 so that overflow wraps modulo 2^32 with defined
/// behaviour (the bits equal a signed wrapping sum), floats in their own type.
template <class T> struct Accum { using type = T; };
template <> struct Accum<std::int32_t> { using type = std::uint32_t; };
template <class T> using accum_t = typename Accum<T>::type;

constexpr unsigned kWarp = 32;
constexpr unsigned kFullMask = 0xffffffffu;

/// Sum over the 32 lanes of a warp, valid in lane 0: five shuffle levels.
template <class A>
__device__ __forceinline__ A warp_sum(A v) {
#pragma unroll
  for (unsigned offset = kWarp / 2; offset > 0; offset /= 2) v += __shfl_down_sync(kFullMask, v, offset);
  return v;
}

/// Sum over the block, valid in thread 0: warp sums, then warp 0 sums the per-warp results.
/// log2(blockDim.x) levels for a power-of-two block. Any block size that is a multiple of 32.
/// Ends with the shared scratch free for reuse only after the caller's next __syncthreads().
template <class A>
__device__ __forceinline__ A block_sum(A v) {
  __shared__ A warp_totals[kWarp];
  const unsigned lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  v = warp_sum(v);
  if (lane == 0) warp_totals[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < blockDim.x / kWarp ? warp_totals[lane] : A(0);
    v = warp_sum(v);
  }
  return v;
}

/// 16 bytes of T, loaded with one vector instruction (LDG.128) when 16-byte aligned.
template <class T>
struct alignas(16) Vec16 {
  static constexpr unsigned kCount = 16 / sizeof(T);
  T v[kCount];
};

/// Thread `t` of `nthreads` sums its share of in[0, n) and returns it.
/// The share: the elements before the first 16-byte boundary (thread t < head takes one), the
/// 16-byte vectors t, t + nthreads, … (kUnroll of them loaded before any is added, so that many
/// loads are in flight), and the tail elements after the last full vector (one per thread).
/// The order of the additions depends only on (n, t, nthreads, alignment): deterministic.
/// Chain length per thread ≤ ceil(vectors / nthreads) · kCount + 2.
template <class T, unsigned kUnroll>
__device__ __forceinline__ accum_t<T> thread_sum(const T* __restrict__ in, std::size_t n,
                                                 std::size_t t, std::size_t nthreads) {
  using A = accum_t<T>;
  using V = Vec16<T>;
  constexpr unsigned kCount = V::kCount;
  const std::size_t misalign = (reinterpret_cast<std::uintptr_t>(in) % 16) / sizeof(T);
  const std::size_t head = misalign == 0 ? 0 : std::min<std::size_t>(n, kCount - misalign);
  A acc = 0;
  if (t < head) acc += static_cast<A>(in[t]);

  const V* __restrict__ body = reinterpret_cast<const V*>(in + head);
  const std::size_t vectors = (n - head) / kCount;
  std::size_t i = t;
  for (; i + (kUnroll - 1) * nthreads < vectors; i += kUnroll * nthreads) {
    V x[kUnroll];
#pragma unroll
    for (unsigned u = 0; u < kUnroll; ++u) x[u] = body[i + u * nthreads];
#pragma unroll
    for (unsigned u = 0; u < kUnroll; ++u)
#pragma unroll
      for (unsigned c = 0; c < kCount; ++c) acc += static_cast<A>(x[u].v[c]);
  }
  for (; i < vectors; i += nthreads) {
    const V x = body[i];
#pragma unroll
    for (unsigned c = 0; c < kCount; ++c) acc += static_cast<A>(x.v[c]);
  }
  const std::size_t tail_start = head + vectors * kCount;
  if (t < n - tail_start) acc += static_cast<A>(in[tail_start + t]);
  return acc;
}

/// The bound on thread_sum's chain: vectors per thread × elements per vector + head + tail.
constexpr std::size_t thread_sum_depth(std::size_t n, std::size_t nthreads, std::size_t elem_bytes) {
  const std::size_t per_vector = 16 / elem_bytes;
  const std::size_t vectors = n / per_vector;
  return (vectors + nthreads - 1) / nthreads * per_vector + 2;
}

constexpr std::size_t log2_ceil(std::size_t x) {
  std::size_t k = 0;
  while ((std::size_t{1} << k) < x) ++k;
  return k;
}

}  // namespace gpulab::reduce_detail
