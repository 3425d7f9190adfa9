// Streaming a large array of 16-byte vectors at full bandwidth: the access pattern shared by the
// read-ceiling kernel and the reduction's top rungs, written once so that the ceiling and the
// kernels measured against it cannot drift apart.
#pragma once

#include <cstddef>
#include <type_traits>

namespace gpulab {

/// 16 bytes of T, loaded with one vector instruction (LDG.128) when 16-byte aligned.
template <class T>
struct alignas(16) Vec16 {
  static constexpr unsigned kCount = 16 / sizeof(T);
  T v[kCount];
};

/// Thread t of block b (of `blocks` blocks of `block_size` threads) calls fn(v) for its share of
/// body[0, count). The vectors are cut into tiles of kUnroll·block_size; block b takes tiles
/// b, b + blocks, …, and within a tile thread t loads vectors t, t + block_size, …: kUnroll loads
/// in flight before the first fn, and each block reads one contiguous stretch at a time (on an
/// H100 this ran ~3% faster than loads a whole grid apart; the journal: git show 539355e:docs/notes.md). Only the last tile of
/// the array can be partial; the block it falls to takes it one vector per thread.
/// The order of the calls depends only on (count, b, t, blocks, block_size). An fn that takes a
/// second argument is given the vector's index in body too.
template <unsigned kUnroll, class V, class Fn>
__device__ __forceinline__ void for_each_vector_in_tiles(const V* __restrict__ body, std::size_t count,
                                                         std::size_t b, std::size_t blocks, unsigned t,
                                                         unsigned block_size, Fn&& fn) {
  auto visit = [&fn](const V& x, std::size_t i) {
    if constexpr (std::is_invocable_v<Fn&, const V&, std::size_t>) fn(x, i);
    else fn(x);
  };
  const std::size_t tile = std::size_t{kUnroll} * block_size;
  std::size_t base = b * tile;
  for (; base + tile <= count; base += blocks * tile) {
    V x[kUnroll];
#pragma unroll
    for (unsigned u = 0; u < kUnroll; ++u) x[u] = body[base + u * block_size + t];
#pragma unroll
    for (unsigned u = 0; u < kUnroll; ++u) visit(x[u], base + u * block_size + t);
  }
  for (std::size_t i = base + t; i < count; i += block_size) visit(body[i], i);
}

}  // namespace gpulab
