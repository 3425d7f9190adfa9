// Device building blocks shared by the reduction rungs: the accumulator type and the per-thread
// streaming sum with 16-byte loads (warp and block sums: lib/warp.cuh, lib/block.cuh).
#pragma once

#include "lib/arith.hpp"
#include "lib/block.cuh"
#include "lib/tile_stream.cuh"

#include <cstddef>
#include <cstdint>

namespace gpulab::reduce_detail {

using gpulab::accum_t;
using gpulab::log2_ceil;
using gpulab::block_sum;
using gpulab::Vec16;

/// Thread `t` of block `b` (of `blocks` blocks of `block_size` threads) sums its share of
/// in[0, n) and returns it: the 16-byte vectors through for_each_vector_in_tiles (kUnroll loads
/// in flight, block-contiguous tiles), and the elements before the first 16-byte boundary and
/// after the last full vector one per thread by the first threads of the grid. The order of the
/// additions depends only on (n, alignment, b, t, blocks, block_size): deterministic.
template <class T, unsigned kUnroll>
__device__ __forceinline__ accum_t<T> thread_sum(const T* __restrict__ in, std::size_t n,
                                                 std::size_t b, std::size_t blocks, unsigned t,
                                                 unsigned block_size) {
  using A = accum_t<T>;
  using V = Vec16<T>;
  constexpr unsigned kCount = V::kCount;
  const std::size_t global_t = b * block_size + t;
  const std::size_t misalign = (reinterpret_cast<std::uintptr_t>(in) % 16) / sizeof(T);
  const std::size_t head = misalign == 0 ? 0 : std::min<std::size_t>(n, kCount - misalign);
  A acc = 0;
  if (global_t < head) acc += static_cast<A>(in[global_t]);

  const std::size_t vectors = (n - head) / kCount;
  for_each_vector_in_tiles<kUnroll>(reinterpret_cast<const V*>(in + head), vectors, b, blocks, t,
                                    block_size, [&acc](const V& x) {
#pragma unroll
                                      for (unsigned c = 0; c < kCount; ++c) acc += static_cast<A>(x.v[c]);
                                    });
  const std::size_t tail_start = head + vectors * kCount;
  if (global_t < n - tail_start) acc += static_cast<A>(in[tail_start + global_t]);
  return acc;
}

/// The bound on thread_sum's chain: at most ceil(vectors / threads) + kUnroll vectors of kCount
/// elements (whole tiles, then part of one), plus one head and one tail element.
constexpr std::size_t thread_sum_depth(std::size_t n, std::size_t threads, std::size_t unroll,
                                       std::size_t elem_bytes) {
  const std::size_t per_vector = 16 / elem_bytes;
  const std::size_t vectors = n / per_vector;
  return ((vectors + threads - 1) / threads + unroll) * per_vector + 2;
}

}  // namespace gpulab::reduce_detail
