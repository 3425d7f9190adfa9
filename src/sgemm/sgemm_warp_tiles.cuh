// The warp-tiled SGEMM kernel: rungs 7 (plain loads) and 8 (cp.async) of the ladder, and the
// library's tiles for the medium products.
#pragma once

#include "sgemm/sgemm_device.cuh"

namespace gpulab::sgemm_device {

// A block computes a kBM × kBN tile of C from kBK-deep slices of A and B staged in shared memory,
// both row-major as in global memory, so that every copy can be 16 bytes (A with 4 floats of
// padding per row). The block's warps split the tile kWarpsM × kWarpsN; a warp's lanes form
// 4 (ly) × 8 (lx), and a lane computes kFragsM × kFragsN sub-tiles of 4 × 4: rows ly, ly+4, ly+8,
// ly+12 of each 16-row band (interleaved, so that the 4 rows a warp reads at once are consecutive
// and fall in 4 different bank groups) and 4 consecutive columns of each 32-column band. A lane
// reads its rows of A as float2 along k (2 steps of k at a time) and its columns of B as float4:
// every shared load of a warp is 4 (A) or 8 (B) distinct vectors, broadcast to the other lanes.
// kStages = 1: plain loads, one slice at a time (rung 7). kStages ≥ 2: cp.async fills kStages − 1
// slices ahead while the block computes on the current one (rung 8, the library).
// kCopies: 4-byte copies (rows not 16-byte aligned), 16-byte copies, or 16-byte copies whose last
// row's partial vector goes 4 bytes at a time (TileLoader's kGuardLast).
// Split-K: blockIdx.z computes k from z·k_slice; with `partials`, the raw sums go to
// partials[z][i][j] (m × n each) and a second kernel adds the slices in order.

/// How the warp-tiled kernel copies A's and B's tiles.
enum class Copies { scalar, vector, vector_guarded };

template <int kWarpsM, int kWarpsN, int kFragsM, int kFragsN, int kStages, Copies kCopies>
struct WarpTiles {
  static constexpr int kThreads = 32 * kWarpsM * kWarpsN;
  static constexpr int kWM = 16 * kFragsM, kWN = 32 * kFragsN;  // a warp's tile
  static constexpr int kBM = kWarpsM * kWM, kBN = kWarpsN * kWN, kBK = 16;
  static constexpr int kAStride = kBK + 4;  // As[m][k]: 20 floats, so rows m..m+3 hit 4 bank groups
  static constexpr int kStageFloats = kBM * kAStride + kBK * kBN;
  static constexpr std::size_t kSmemBytes = sizeof(float) * kStageFloats * (kStages > 1 ? kStages : 1);
  static constexpr bool kAsync = kStages > 1;
  // 8 × 4 per thread fits 128 registers, so that 64K hold 2 blocks of 256 (4 of 128); 8 × 8 does
  // not (64 accumulators, 16 + 8 fragment values, pointers): it spills under that cap, so it runs
  // one block of 256 an SM with about 167 registers (measured faster than spilling).
  static constexpr int kMinBlocks = kAsync && kFragsM * kFragsN <= 2 ? 512 / kThreads : 1;
  static constexpr int kWidth = kCopies == Copies::scalar ? 1 : 4;  // floats per copy
  static constexpr bool kGuardLast = kCopies == Copies::vector_guarded;
  static_assert(kBM * kBK % (4 * kThreads) == 0 && kBK * kBN % (4 * kThreads) == 0, "tiles divide over the threads");
};

template <int kWarpsM, int kWarpsN, int kFragsM, int kFragsN, int kStages, Copies kCopies>
__global__ void __launch_bounds__(WarpTiles<kWarpsM, kWarpsN, kFragsM, kFragsN, kStages, kCopies>::kThreads,
                                  WarpTiles<kWarpsM, kWarpsN, kFragsM, kFragsN, kStages, kCopies>::kMinBlocks)
    warp_tiles(GemmArgs g, int k_slice, float* partials) {
  using T = WarpTiles<kWarpsM, kWarpsN, kFragsM, kFragsN, kStages, kCopies>;
  extern __shared__ float4 smem4[];
  float* const smem = reinterpret_cast<float*>(smem4);

  g = g.member(blockIdx.y);  // a batch's member (GemmArgs::batch)
  const auto [m0, n0, k_begin, k_end, slices] = BlockWork::of<T>(g, k_slice);

  const int t = static_cast<int>(threadIdx.x), warp = t / 32, lane = t % 32;
  const int warp_m = warp % kWarpsM * T::kWM, warp_n = warp / kWarpsM * T::kWN;
  const int ly = lane / 8, lx = lane % 8;

  // A's tile moves along k (its columns), B's along k (its rows).
  using ATile = TileLoader<T::kBM, T::kBK, T::kThreads, T::kWidth, T::kAsync, T::kGuardLast>;
  using BTile = TileLoader<T::kBK, T::kBN, T::kThreads, T::kWidth, T::kAsync, T::kGuardLast>;
  const ATile a_tile(g.a, g.lda, m0, k_begin, g.m);
  const BTile b_tile(g.b, g.ldb, k_begin, n0, g.k);

  auto load_slice = [&](int s, int stage) {
    float* as = smem + stage * T::kStageFloats;
    float* bs = as + T::kBM * T::kAStride;
    copy_slice(g, a_tile, b_tile, as, T::kAStride, bs, T::kBN, k_begin, s * T::kBK, k_end, n0);
  };

  float acc[kFragsM * 4][kFragsN * 4] = {};
  auto compute_slice = [&](int stage) {
    const float* as = smem + stage * T::kStageFloats;
    const float* bs = as + T::kBM * T::kAStride;
#pragma unroll
    for (int kq = 0; kq < T::kBK; kq += 2) {
      float a[kFragsM * 4][2];  // the lane's rows, 2 steps of k (4 would not fit 128 registers)
#pragma unroll
      for (int f = 0; f < kFragsM; ++f)
#pragma unroll
        for (int i = 0; i < 4; ++i)
          *reinterpret_cast<float2*>(a[f * 4 + i]) =
              *reinterpret_cast<const float2*>(as + (warp_m + f * 16 + i * 4 + ly) * T::kAStride + kq);
#pragma unroll
      for (int q = 0; q < 2; ++q) {
        float b[kFragsN * 4];
#pragma unroll
        for (int f = 0; f < kFragsN; ++f)
          *reinterpret_cast<float4*>(b + 4 * f) =
              *reinterpret_cast<const float4*>(bs + (kq + q) * T::kBN + warp_n + f * 32 + lx * 4);
#pragma unroll
        for (int i = 0; i < kFragsM * 4; ++i)
#pragma unroll
          for (int j = 0; j < kFragsN * 4; ++j) acc[i][j] = fmaf(a[i][q], b[j], acc[i][j]);
      }
    }
  };

  run_slices<kStages>(slices, load_slice, compute_slice);

  // Rows interleaved in each 16-row band: ly, ly + 4, ly + 8, ly + 12.
  store_thread_tile(g, acc, [&](int f, int i) { return m0 + warp_m + f * 16 + i * 4 + ly; }, n0 + warp_n + lx * 4, partials);
}

}  // namespace gpulab::sgemm_device
