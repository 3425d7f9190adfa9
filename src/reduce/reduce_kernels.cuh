// The reduction ladder, rungs 1–7, read top to bottom. Rung 8 is the library's reduce_sum
// (reduce_sum.cu). Each kernel says what it adds over the one before and what that costs.
//
// Rungs 1–6 keep the seeds' shape (seed 003: 64 threads, 2^24 → 2^18 → 2^12 → 2^6 → 1): one
// launch per level, each block writing its partial sum, until one value is left. Any n works:
// threads past the end load 0, the identity of +. The block size must be a power of two in
// [32, 1024] (the trees halve it); it is a run-time parameter except in rung 6.
#pragma once

#include "reduce/reduce_common.cuh"

namespace gpulab::reduce_ladder {

using reduce_detail::accum_t;
using reduce_detail::block_sum;
using reduce_detail::thread_sum;

/// The block's shared array of accumulators (dynamic shared memory, blockDim.x of them).
template <class A>
__device__ __forceinline__ A* shared_accumulators() {
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  return reinterpret_cast<A*>(shared_bytes);
}

/// Rungs 1–3 load one element per thread; rungs 4–6 add two during the load.
template <class T>
__device__ __forceinline__ accum_t<T> load_one(const T* in, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  return i < n ? static_cast<accum_t<T>>(in[i]) : accum_t<T>(0);
}
template <class T>
__device__ __forceinline__ accum_t<T> load_two(const T* in, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * 2 * blockDim.x + threadIdx.x;
  accum_t<T> v = i < n ? static_cast<accum_t<T>>(in[i]) : accum_t<T>(0);
  if (i + blockDim.x < n) v += static_cast<accum_t<T>>(in[i + blockDim.x]);
  return v;
}

// Rung 1 — interleaved addressing with a divergent branch (seed 000 "wersja 1").
// Thread tid works while tid % (2s) == 0: the active threads are scattered over every warp, so
// each level still issues every warp, and the % is a slow integer op.
template <class T>
__global__ void reduce1_interleaved_divergent(const T* in, T* out, std::size_t n) {
  using A = accum_t<T>;
  A* s = shared_accumulators<A>();
  const unsigned tid = threadIdx.x;
  s[tid] = load_one(in, n);
  __syncthreads();
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    if (tid % (2 * stride) == 0) s[tid] += s[tid + stride];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = static_cast<T>(s[0]);
}

// Rung 2 — interleaved addressing, strided index (seed 000 "wersja 2").
// Adds over rung 1: the working threads are the first ones (index = 2·s·tid), so whole warps
// retire and no warp diverges until fewer than 32 threads work. Costs: the strided shared
// accesses of one warp fall into few banks (2-way, 4-way, … conflicts).
template <class T>
__global__ void reduce2_interleaved_strided(const T* in, T* out, std::size_t n) {
  using A = accum_t<T>;
  A* s = shared_accumulators<A>();
  const unsigned tid = threadIdx.x;
  s[tid] = load_one(in, n);
  __syncthreads();
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    const unsigned index = 2 * stride * tid;
    if (index < blockDim.x) s[index] += s[index + stride];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = static_cast<T>(s[0]);
}

// Rung 3 — sequential addressing (seed 000 "wersja 3").
// Adds over rung 2: thread tid adds s[tid + stride] with the stride halving from blockDim/2, so
// a warp reads consecutive words: no bank conflicts. Half the threads idle from the first level.
template <class T>
__global__ void reduce3_sequential(const T* in, T* out, std::size_t n) {
  using A = accum_t<T>;
  A* s = shared_accumulators<A>();
  const unsigned tid = threadIdx.x;
  s[tid] = load_one(in, n);
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (tid < stride) s[tid] += s[tid + stride];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = static_cast<T>(s[0]);
}

// Rung 4 — first add during the global load.
// Adds over rung 3: each thread loads two elements a block apart and adds them, so half the
// blocks do the same work and no thread idles in the first level.
template <class T>
__global__ void reduce4_first_add_on_load(const T* in, T* out, std::size_t n) {
  using A = accum_t<T>;
  A* s = shared_accumulators<A>();
  const unsigned tid = threadIdx.x;
  s[tid] = load_two(in, n);
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (tid < stride) s[tid] += s[tid + stride];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = static_cast<T>(s[0]);
}

// Rung 5 — the last warp unrolled with shuffles.
// Adds over rung 4: once 64 partials are left, one warp finishes with register shuffles:
// no __syncthreads, no shared-memory round trips for the last six levels. (Not the old
// `volatile` shared-memory trick, which relies on warp-synchronous execution Volta removed.)
template <class T>
__global__ void reduce5_unroll_last_warp(const T* in, T* out, std::size_t n) {
  using A = accum_t<T>;
  A* s = shared_accumulators<A>();
  const unsigned tid = threadIdx.x;
  s[tid] = load_two(in, n);
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 32; stride /= 2) {
    if (tid < stride) s[tid] += s[tid + stride];
    __syncthreads();
  }
  if (tid < 32) {
    A v = s[tid];
    if (blockDim.x >= 64) v += s[tid + 32];
    v = warp_sum(v);
    if (tid == 0) out[blockIdx.x] = static_cast<T>(v);
  }
}

// Rung 6 — complete unroll, the block size a template parameter.
// Adds over rung 5: the loop over strides disappears; every `if constexpr` for a level the block
// does not have is compiled away, and the remaining bounds are constants. Costs: one kernel
// instance per block size.
template <class T, unsigned kBlock>
__global__ void __launch_bounds__(kBlock) reduce6_complete_unroll(const T* in, T* out, std::size_t n) {
  using A = accum_t<T>;
  A* s = shared_accumulators<A>();
  const unsigned tid = threadIdx.x;
  s[tid] = load_two(in, n);
  __syncthreads();
  if constexpr (kBlock >= 1024) { if (tid < 512) s[tid] += s[tid + 512]; __syncthreads(); }
  if constexpr (kBlock >= 512) { if (tid < 256) s[tid] += s[tid + 256]; __syncthreads(); }
  if constexpr (kBlock >= 256) { if (tid < 128) s[tid] += s[tid + 128]; __syncthreads(); }
  if constexpr (kBlock >= 128) { if (tid < 64) s[tid] += s[tid + 64]; __syncthreads(); }
  if (tid < 32) {
    A v = s[tid];
    if constexpr (kBlock >= 64) v += s[tid + 32];
    v = warp_sum(v);
    if (tid == 0) out[blockIdx.x] = static_cast<T>(v);
  }
}

// Rung 7 — many elements per thread, grid-stride loop, 16-byte vector loads.
// Adds over rung 6: a grid of only as many blocks as fit on the GPU at once, each thread
// streaming 16-byte vectors over the whole array and summing in a register; the block sum uses
// shuffles (no shared array of blockDim values). Two launches: the grid's partials, then one
// block for them. Costs: the second launch; one load in flight per thread.
template <class T>
__global__ void reduce7_grid_stride_vectorized(const T* in, T* out, std::size_t n) {
  auto v = thread_sum<T, 1>(in, n, blockIdx.x, gridDim.x, threadIdx.x, blockDim.x);
  v = block_sum(v);
  if (threadIdx.x == 0) out[blockIdx.x] = static_cast<T>(v);
}

}  // namespace gpulab::reduce_ladder
