// The SGEMM ladder's own kernels, read top to bottom; each says what it adds over the one before.
// Rungs 7-10 and the library's kernels are in sgemm_warp_tiles.cuh and sgemm_big_tiles.cuh. Every kernel takes any m, n, k:
// tiles past an edge load zeros and store nothing, and grids loop where a side outgrows them.
#pragma once

#include "sgemm/sgemm_device.cuh"

#include <cuda_runtime.h>

#include <cstddef>

namespace gpulab::sgemm_ladder {

using sgemm_device::GemmArgs;
using sgemm_device::load4_or_zero;
using sgemm_device::load_or_zero;
using sgemm_device::store_c;
using sgemm_device::store_c4;

// Rungs 1 and 2, a thread per element of C, differ only in which index threadIdx.x walks.
// Rung 1, naive (kAcrossColumns = false): threadIdx.x down the rows. A warp reads 32 rows of A a
// row apart (32 sectors for 128 bytes) and writes a column of C, also a row apart.
// Rung 2, coalesced (true): threadIdx.x across the columns. A warp now reads one element of A (a
// broadcast) and 32 consecutive elements of B, and writes 128 contiguous bytes of C.
// blockIdx.x walks the same index as threadIdx.x; blockIdx.y the other, looping past 65535.
template <bool kAcrossColumns>
__global__ void thread_per_element(GemmArgs g) {
  const int fast = static_cast<int>(blockIdx.x * 32 + threadIdx.x);
  const int slow_side = kAcrossColumns ? g.m : g.n;
  for (int tile = static_cast<int>(blockIdx.y); tile * 32 < slow_side; tile += static_cast<int>(gridDim.y)) {
    const int slow = tile * 32 + static_cast<int>(threadIdx.y);
    const int i = kAcrossColumns ? slow : fast, j = kAcrossColumns ? fast : slow;
    if (i >= g.m || j >= g.n) continue;
    float acc = 0.f;
    for (int p = 0; p < g.k; ++p) acc = fmaf(g.a[static_cast<std::size_t>(i) * g.lda + p], g.b[static_cast<std::size_t>(p) * g.ldb + j], acc);
    store_c(g, i, j, acc);
  }
}

// Rung 3, shared-memory tiles (seed §2.2, §2.7: shared memory as a managed cache): the block
// stages 32 × 32 tiles of A and B, each element fetched from global memory once per block instead
// of 32 times. Still 2 shared loads per FMA.
__global__ void shared_tiles(GemmArgs g) {
  constexpr int kT = 32;
  __shared__ float as[kT][kT], bs[kT][kT];
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const int j = static_cast<int>(blockIdx.x) * kT + tx;
  for (int tile = static_cast<int>(blockIdx.y); tile * kT < g.m; tile += static_cast<int>(gridDim.y)) {
    const int i = tile * kT + ty;
    float acc = 0.f;
    for (int p0 = 0; p0 < g.k; p0 += kT) {
      as[ty][tx] = load_or_zero(g.a, g.lda, i, p0 + tx, g.m, g.k);
      bs[ty][tx] = load_or_zero(g.b, g.ldb, p0 + ty, j, g.k, g.n);
      __syncthreads();
#pragma unroll
      for (int p = 0; p < kT; ++p) acc = fmaf(as[ty][p], bs[p][tx], acc);
      __syncthreads();
    }
    if (i < g.m && j < g.n) store_c(g, i, j, acc);
  }
}

// Rung 4, 1-D register blocking (the seed's register cache): a 64 × 64 tile of C, 8 × 64 threads,
// each 8 elements of a column. A value of B read from shared memory once serves 8 FMAs from
// registers: about 1.1 shared loads per FMA instead of 2.
constexpr int k1dTile = 64, k1dDepth = 8, k1dRows = 8, k1dThreads = k1dTile * k1dTile / k1dRows;
__global__ void __launch_bounds__(k1dThreads) blocked_1d(GemmArgs g) {
  __shared__ float as[k1dTile][k1dDepth], bs[k1dDepth][k1dTile];
  const int t = static_cast<int>(threadIdx.x);
  const int col = t % k1dTile, row0 = t / k1dTile * k1dRows;
  const int j = static_cast<int>(blockIdx.x) * k1dTile + col;
  for (int tile = static_cast<int>(blockIdx.y); tile * k1dTile < g.m; tile += static_cast<int>(gridDim.y)) {
    const int m0 = tile * k1dTile;
    float acc[k1dRows] = {};
    for (int p0 = 0; p0 < g.k; p0 += k1dDepth) {
      as[t / k1dDepth][t % k1dDepth] = load_or_zero(g.a, g.lda, m0 + t / k1dDepth, p0 + t % k1dDepth, g.m, g.k);
      bs[t / k1dTile][t % k1dTile] = load_or_zero(g.b, g.ldb, p0 + t / k1dTile, static_cast<int>(blockIdx.x) * k1dTile + t % k1dTile, g.k, g.n);
      __syncthreads();
#pragma unroll
      for (int p = 0; p < k1dDepth; ++p) {
        const float b = bs[p][col];
#pragma unroll
        for (int r = 0; r < k1dRows; ++r) acc[r] = fmaf(as[row0 + r][p], b, acc[r]);
      }
      __syncthreads();
    }
#pragma unroll
    for (int r = 0; r < k1dRows; ++r)
      if (m0 + row0 + r < g.m && j < g.n) store_c(g, m0 + row0 + r, j, acc[r]);
  }
}

// Rung 5, 2-D register blocking: a 128 × 128 tile, 256 threads of 8 × 8 elements. Per k a thread
// reads 8 values of A and 8 of B into registers and does 64 FMAs with them: a quarter of a
// shared load per FMA. 64 accumulators per thread: the build must show no local memory.
using sgemm_device::k2dDepth;
using sgemm_device::k2dPer;
using sgemm_device::k2dThreads;
using sgemm_device::k2dTile;
// The tile and its loop over C are sgemm_device.cuh's blocked_2d_tile and blocked_2d_tiles (the
// guarded Ozaki scheme's FP32 fix-up runs them too): every tile, every element stored.
__global__ void __launch_bounds__(k2dThreads) blocked_2d(GemmArgs g) {
  sgemm_device::blocked_2d_tiles(g, [](int) { return true; }, [](int, int) { return true; });
}

// Rung 6, vectorised: the same tiles, but A and B read from global memory as float4 and A stored
// transposed in shared memory (as[k][m]), so that a thread's 8 values of A, like its 8 of B, are
// two 16-byte shared loads instead of eight 4-byte ones; C written as float4. Needs 16-byte
// aligned rows of A and B (the ladder says so where they are not).
__global__ void __launch_bounds__(k2dThreads) vectorized(GemmArgs g) {
  __shared__ __align__(16) float as[k2dDepth][k2dTile];
  __shared__ __align__(16) float bs[k2dDepth][k2dTile];
  const int t = static_cast<int>(threadIdx.x);
  const int row0 = t / (k2dTile / k2dPer) * k2dPer, col0 = t % (k2dTile / k2dPer) * k2dPer;
  const int n0 = static_cast<int>(blockIdx.x) * k2dTile;
  // One float4 of A (row t/2, k 4·(t%2)…) and one of B (k t/32, columns 4·(t%32)…) per thread.
  const int a_row = t / 2, a_k = t % 2 * 4, b_k = t / 32, b_col = t % 32 * 4;
  for (int tile = static_cast<int>(blockIdx.y); tile * k2dTile < g.m; tile += static_cast<int>(gridDim.y)) {
    const int m0 = tile * k2dTile;
    float acc[k2dPer][k2dPer] = {};
    for (int p0 = 0; p0 < g.k; p0 += k2dDepth) {
      const float4 a4 = load4_or_zero(g.a, g.lda, m0 + a_row, p0 + a_k, g.m, g.k);
      as[a_k + 0][a_row] = a4.x;
      as[a_k + 1][a_row] = a4.y;
      as[a_k + 2][a_row] = a4.z;
      as[a_k + 3][a_row] = a4.w;
      *reinterpret_cast<float4*>(&bs[b_k][b_col]) = load4_or_zero(g.b, g.ldb, p0 + b_k, n0 + b_col, g.k, g.n);
      __syncthreads();
#pragma unroll
      for (int p = 0; p < k2dDepth; ++p) {
        float a[k2dPer], b[k2dPer];
        *reinterpret_cast<float4*>(a) = *reinterpret_cast<const float4*>(&as[p][row0]);
        *reinterpret_cast<float4*>(a + 4) = *reinterpret_cast<const float4*>(&as[p][row0 + 4]);
        *reinterpret_cast<float4*>(b) = *reinterpret_cast<const float4*>(&bs[p][col0]);
        *reinterpret_cast<float4*>(b + 4) = *reinterpret_cast<const float4*>(&bs[p][col0 + 4]);
#pragma unroll
        for (int r = 0; r < k2dPer; ++r)
#pragma unroll
          for (int c = 0; c < k2dPer; ++c) acc[r][c] = fmaf(a[r], b[c], acc[r][c]);
      }
      __syncthreads();
    }
#pragma unroll
    for (int r = 0; r < k2dPer; ++r) {
      store_c4(g, m0 + row0 + r, n0 + col0, {acc[r][0], acc[r][1], acc[r][2], acc[r][3]});
      store_c4(g, m0 + row0 + r, n0 + col0 + 4, {acc[r][4], acc[r][5], acc[r][6], acc[r][7]});
    }
  }
}

}  // namespace gpulab::sgemm_ladder
