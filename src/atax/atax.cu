// The library's atax (include/gpulab/atax.hpp) and the ladder's rungs 3–6: the coalesced two-pass
// path (rung 3), the first fused single pass (rung 4), the cooperative fused pass (rung 5) and the
// same in half-size blocks, two rows a barrier, for rows of 4097 to 10240 columns (rung 6). atax()
// takes rung 6 or 5 for 128 ≤ cols ≤ 16384, by the DRAM bytes a cycle each SM must take, and the
// two-pass path otherwise.
#include "atax/atax_paths.hpp"
#include "lib/launch.cuh"
#include "lib/launch_limits.hpp"
#include "lib/per_device.hpp"
#include "lib/warp.cuh"

#include <gpulab/atax.hpp>
#include <gpulab/error.hpp>

#include <cooperative_groups.h>

#include <algorithm>
#include <cstdint>
#include <string>

namespace gpulab {
namespace atax_detail {
namespace {

// ---- rung 3: coalesced, two passes ----------------------------------------------------------------
// A·x: a warp per row, lanes on neighbouring columns (coalesced), four loads in flight per lane.
__global__ void warp_per_row(const float* __restrict__ a, const float* __restrict__ x, std::uint32_t rows,
                             std::uint32_t cols, float* __restrict__ t) {
  const std::size_t r = (std::size_t{blockIdx.x} * blockDim.x + threadIdx.x) / kWarp;
  const unsigned lane = threadIdx.x % kWarp;
  if (r >= rows) return;
  const float* row = a + r * cols;
  float s[4] = {0.f, 0.f, 0.f, 0.f};
  std::uint32_t j = lane;
  for (; j + 3 * kWarp < cols; j += 4 * kWarp)
#pragma unroll
    for (unsigned u = 0; u < 4; ++u) s[u] += row[j + u * kWarp] * x[j + u * kWarp];
  for (; j < cols; j += kWarp) s[0] += row[j] * x[j];
  const float total = warp_sum((s[0] + s[1]) + (s[2] + s[3]));
  if (lane == 0) t[r] = total;
}
// Aᵀ·t: threads on neighbouring columns, the rows split in `gridDim.y` chunks so that enough
// threads run; chunk c writes partial[c][j], added in order by sum_chunks (deterministic).
__global__ void column_chunks(const float* __restrict__ a, const float* __restrict__ t, std::uint32_t rows,
                              std::uint32_t cols, std::uint32_t rows_per_chunk, float* __restrict__ partial) {
  const std::size_t j = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  const std::size_t begin = std::size_t{blockIdx.y} * rows_per_chunk;
  const std::size_t end = min(std::size_t{rows}, begin + rows_per_chunk);
  float s = 0.f;
  for (std::size_t i = begin; i < end; ++i) s += a[i * cols + j] * t[i];
  partial[std::size_t{blockIdx.y} * cols + j] = s;
}

/// y[j] = Σ_c partial[c][j] for c = 0, 1, …, chunks − 1, in that order.
__global__ void sum_chunks(const float* __restrict__ partial, std::uint32_t chunks, std::uint32_t cols,
                           float* __restrict__ y) {
  const std::size_t j = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  float s = 0.f;
  for (std::uint32_t c = 0; c < chunks; ++c) s += partial[std::size_t{c} * cols + j];
  y[j] = s;
}

constexpr unsigned kTwoPassThreads = 256;
constexpr std::uint32_t kFusedMaxK = 16;

/// The columns a thread of a block of B threads holds, V neighbours at a time: its register r
/// holds column (threadIdx.x + (r / V)·B)·V + r % V. V = 1: columns tid, tid + B, …; V = 4: the
/// 16-byte vectors tid, tid + B, … (rows must then start 16-byte aligned: cols % 4 == 0).
template <unsigned B, unsigned V>
__device__ __forceinline__ std::uint32_t column_of(unsigned r) {
  return (threadIdx.x + r / V * B) * V + r % V;
}

/// Row i's slice of the thread's columns goes into `dst`; columns past the end read as 0 (no
/// memory access). With V = 4, cols % 4 == 0, so a vector is either all in or all out.
template <unsigned B, unsigned K, unsigned V = 1>
__device__ __forceinline__ void load_row(const float* __restrict__ a, std::size_t i, std::uint32_t cols, float (&dst)[K]) {
  static_assert(V == 1 || V == 4, "scalar or 16-byte loads");
  static_assert(K % V == 0, "whole vectors");
  if constexpr (V == 4) {
    const auto* row = reinterpret_cast<const float4*>(a + i * cols);
#pragma unroll
    for (unsigned k = 0; k < K / 4; ++k) {
      const std::uint32_t v = threadIdx.x + k * B;
      const float4 q = v * 4 < cols ? row[v] : make_float4(0.f, 0.f, 0.f, 0.f);
      dst[4 * k] = q.x, dst[4 * k + 1] = q.y, dst[4 * k + 2] = q.z, dst[4 * k + 3] = q.w;
    }
  } else {
#pragma unroll
    for (unsigned k = 0; k < K; ++k) {
      const std::uint32_t j = column_of<B, 1>(k);
      dst[k] = j < cols ? a[i * cols + j] : 0.f;
    }
  }
}

/// The thread's part of row `row`'s dot with x (x in shared memory; V: as load_row).
template <unsigned B, unsigned K, unsigned V>
__device__ __forceinline__ float row_dot(const float (&row)[K], std::uint32_t cols, const float* xs) {
  float d = 0.f;
  if constexpr (V == 4) {  // x from shared memory 16 bytes at a time too
#pragma unroll
    for (unsigned k = 0; k < K / 4; ++k) {
      const std::uint32_t v = threadIdx.x + k * B;
      const float4 xv = v * 4 < cols ? reinterpret_cast<const float4*>(xs)[v] : make_float4(0.f, 0.f, 0.f, 0.f);
      d += row[4 * k] * xv.x + row[4 * k + 1] * xv.y + row[4 * k + 2] * xv.z + row[4 * k + 3] * xv.w;
    }
  } else {
#pragma unroll
    for (unsigned k = 0; k < K; ++k) {
      const std::uint32_t j = column_of<B, 1>(k);
      d += row[k] * (j < cols ? xs[j] : 0.f);
    }
  }
  return d;
}

template <unsigned K>
__device__ __forceinline__ void add_row(const float (&row)[K], float t, float (&y_part)[K]) {
#pragma unroll
  for (unsigned k = 0; k < K; ++k) y_part[k] += row[k] * t;
}

/// One row of the fused pass: tᵢ = Σⱼ aᵢⱼ·xⱼ over the block (warp sums, then the B/32 warp sums
/// added the same way by every thread, so all threads hold the same bits of tᵢ), then
/// y_part += aᵢ·tᵢ from the same registers. One barrier: the warp sums alternate between two
/// buffers by row parity. kButterfly: each warp adds the warp sums with one shared load and five
/// shuffles (warp_sum_all) instead of B/32 shared loads and adds in every thread. V: as load_row.
template <unsigned B, unsigned K, bool kButterfly, unsigned V = 1>
__device__ __forceinline__ void fused_row(const float (&row)[K], std::size_t i, std::uint32_t cols, const float* xs,
                                          float (&warp_dots)[2][B / kWarp], float (&y_part)[K]) {
  const float d = warp_sum(row_dot<B, K, V>(row, cols, xs));
  float* dots = warp_dots[i & 1];
  if (threadIdx.x % kWarp == 0) dots[threadIdx.x / kWarp] = d;
  __syncthreads();
  float t = 0.f;
  if constexpr (kButterfly) {
    const unsigned lane = threadIdx.x % kWarp;
    t = warp_sum_all(lane < B / kWarp ? dots[lane] : 0.f);
  } else {
#pragma unroll
    for (unsigned w = 0; w < B / kWarp; ++w) t += dots[w];
  }
  add_row(row, t, y_part);
}

/// Two rows' dots over the block with one barrier (rung 6): a warp's two sums in one pass of five
/// shuffles (after the first, lanes 0–15 carry the first row's partial sums, 16–31 the second's),
/// then each warp adds the B/32 warp sums of both rows the same way, so that every thread holds the
/// same bits of t_a and t_b. `dots`: this pair's buffer (pairs alternate between two).
template <unsigned B>
__device__ __forceinline__ void block_dots2(float da, float db, float (&dots)[2][B / kWarp], float& ta, float& tb) {
  constexpr unsigned kWarps = B / kWarp;
  static_assert(kWarps <= kWarp, "two warp sums a lane at most");
  const unsigned lane = threadIdx.x % kWarp;
  const bool second = lane >= kWarp / 2;
  auto half_sum = [](float v) {  // a butterfly within each half of the warp
#pragma unroll
    for (unsigned m = kWarp / 4; m > 0; m /= 2) v += __shfl_xor_sync(kFullMask, v, m);
    return v;
  };
  float v = (second ? db : da) + __shfl_xor_sync(kFullMask, second ? da : db, kWarp / 2);
  v = half_sum(v);
  if (lane % (kWarp / 2) == 0) dots[second][threadIdx.x / kWarp] = v;
  __syncthreads();
  const unsigned w = lane % (kWarp / 2);
  v = w < kWarps ? dots[second][w] : 0.f;
  if constexpr (kWarps > kWarp / 2) v += dots[second][w + kWarp / 2];
  v = half_sum(v);
  ta = __shfl_sync(kFullMask, v, 0);
  tb = __shfl_sync(kFullMask, v, kWarp / 2);
}

// ---- rung 4: the first fused pass -----------------------------------------------------------------
// Adds over rung 3: A is read once. A block of 1024 threads owns a panel of consecutive rows and
// keeps the current row in registers (K floats a thread), with the next row already loading; it
// writes its partial y, and sum_chunks adds the panels in block order.
template <unsigned K>
__global__ void __launch_bounds__(1024, 1)
fused_panels(const float* __restrict__ a, const float* __restrict__ x, std::uint32_t rows, std::uint32_t cols,
             std::uint32_t rows_per_block, float* __restrict__ partial) {
  constexpr unsigned B = 1024;
  extern __shared__ float xs[];
  __shared__ float warp_dots[2][B / kWarp];
  for (std::uint32_t j = threadIdx.x; j < cols; j += B) xs[j] = x[j];
  __syncthreads();
  const std::size_t begin = std::size_t{blockIdx.x} * rows_per_block;
  const std::size_t end = std::min<std::size_t>(rows, begin + rows_per_block);
  float cur[K], next[K], y_part[K] = {};
  if (begin < end) load_row<B, K>(a, begin, cols, cur);
  for (std::size_t i = begin; i < end; ++i) {
    if (i + 1 < end) load_row<B, K>(a, i + 1, cols, next);
    fused_row<B, K, false>(cur, i, cols, xs, warp_dots, y_part);
#pragma unroll
    for (unsigned k = 0; k < K; ++k) cur[k] = next[k];
  }
#pragma unroll
  for (unsigned k = 0; k < K; ++k) {
    const std::uint32_t j = threadIdx.x + k * B;
    if (j < cols) partial[std::size_t{blockIdx.x} * cols + j] = y_part[k];
  }
}

/// The combine after the grid-wide barrier: block b adds the partials of its slab of columns, 32
/// columns at a time (one per lane); warp w adds blocks w, w + B/32, …, then warp 0 adds the
/// B/32 warp sums. The order is fixed by (cols, grid, B): deterministic.
template <unsigned B>
__device__ __forceinline__ void add_partials(const float* __restrict__ partial, std::uint32_t cols, float* __restrict__ y) {
  __shared__ float warp_sums[B / kWarp][kWarp + 1];
  const unsigned lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  const std::uint32_t slab = (cols + gridDim.x * kWarp - 1) / (gridDim.x * kWarp) * kWarp;
  const std::size_t slab_begin = std::size_t{blockIdx.x} * slab;
  const std::size_t slab_end = std::min<std::size_t>(cols, slab_begin + slab);
  for (std::size_t c0 = slab_begin; c0 < slab_end; c0 += kWarp) {
    const std::size_t j = c0 + lane;
    float s = 0.f;
    if (j < cols)
      for (std::uint32_t b = warp; b < gridDim.x; b += B / kWarp) s += partial[std::size_t{b} * cols + j];
    warp_sums[warp][lane] = s;
    __syncthreads();
    if (warp == 0 && j < cols) {
      float total = 0.f;
#pragma unroll
      for (unsigned w = 0; w < B / kWarp; ++w) total += warp_sums[w][lane];
      y[j] = total;
    }
    __syncthreads();
  }
}

constexpr std::size_t kDealtChunk = 2;

/// The rows this block takes, in order: row(0), …, row(count − 1).
/// kDealt = false: a panel of rows_per_block consecutive rows. kDealt = true: chunks of two
/// consecutive rows dealt round-robin over the grid, so that the whole GPU reads one band of rows
/// at a time. On the H100 the band read 642 MB of 35 KB rows 2.4% faster than 132 panels did
/// (the journal: git show 539355e:docs/notes.md); with narrow rows and several blocks an SM, panels were faster.
template <bool kDealt>
struct BlockRows {
  std::size_t count = 0, first = 0, grid = 0;
  __device__ BlockRows(std::uint32_t rows, std::uint32_t rows_per_block) {
    if constexpr (kDealt) {
      const std::size_t chunks = (rows + kDealtChunk - 1) / kDealtChunk;
      first = blockIdx.x;
      grid = gridDim.x;
      if (first >= chunks) return;
      const std::size_t taken = (chunks - 1 - first) / grid + 1;
      count = taken * kDealtChunk;
      if (first + (taken - 1) * grid == chunks - 1) count -= chunks * kDealtChunk - rows;  // the last chunk is short
    } else {
      first = std::size_t{blockIdx.x} * rows_per_block;
      count = first < rows ? std::min<std::size_t>(rows_per_block, rows - first) : 0;
    }
  }
  __device__ std::size_t row(std::size_t l) const {
    if constexpr (kDealt) return (first + l / kDealtChunk * grid) * kDealtChunk + l % kDealtChunk;
    return first + l;
  }
};

/// The end of a cooperative pass: the block's partial y written, a grid-wide barrier, then the
/// block's slab of y added over the blocks in order.
template <unsigned B, unsigned K, unsigned V>
__device__ __forceinline__ void finish_cooperative(const float (&y_part)[K], std::uint32_t cols, float* __restrict__ partial,
                                                   float* __restrict__ y) {
#pragma unroll
  for (unsigned k = 0; k < K; ++k) {
    const std::uint32_t j = column_of<B, V>(k);
    if (j < cols) partial[std::size_t{blockIdx.x} * cols + j] = y_part[k];
  }
  cooperative_groups::this_grid().sync();
  add_partials<B>(partial, cols, y);
}

// ---- rung 5: the cooperative fused pass (the library's below 15 bytes of DRAM a cycle an SM) ----------
// Adds over rung 4:
// - one launch: the blocks' partial y are added after a grid-wide barrier (a cooperative launch
//   of a grid that is resident at once), each block summing a slab of columns over the blocks in
//   block order: deterministic, and the whole GPU adds instead of a second launch;
// - the block size follows the width: 256 threads (several blocks per SM) up to 4096 columns,
//   1024 above, so narrow matrices still have many rows in flight;
// - the block's dot product finished by a butterfly in every warp (fused_row's kButterfly): at
//   8960 columns that is 11 instructions a warp a row instead of 64;
// - 16-byte loads (V = 4) of A and of x in shared memory where cols % 4 == 0 and A is 16-byte
//   aligned: a quarter of the load instructions;
// - rows prefetched D ahead (a ring of D + 1 rows in registers, the loop unrolled so every index
//   is static), D as large as 48 registers allow, at most 4;
// - 1024-thread blocks (wide rows) take their rows in two-row chunks dealt round-robin, 256-thread
//   blocks keep panels (BlockRows).
template <unsigned B, unsigned K, unsigned D, unsigned V>
__global__ void __launch_bounds__(B)
fused_cooperative(const float* __restrict__ a, const float* __restrict__ x, std::uint32_t rows, std::uint32_t cols,
                  std::uint32_t rows_per_block, float* __restrict__ partial, float* __restrict__ y) {
  extern __shared__ float xs[];
  __shared__ float warp_dots[2][B / kWarp];
  for (std::uint32_t j = threadIdx.x; j < cols; j += B) xs[j] = x[j];
  __syncthreads();
  const BlockRows<B == 1024> mine(rows, rows_per_block);
  float ring[D + 1][K], y_part[K] = {};
#pragma unroll
  for (unsigned s = 0; s < D; ++s)
    if (s < mine.count) load_row<B, K, V>(a, mine.row(s), cols, ring[s]);
  for (std::size_t i = 0; i < mine.count; i += D + 1) {
#pragma unroll
    for (unsigned s = 0; s <= D; ++s) {  // the block's row i + s is in ring[s]
      const std::size_t l = i + s;
      if (l >= mine.count) break;
      if (l + D < mine.count) load_row<B, K, V>(a, mine.row(l + D), cols, ring[(s + D) % (D + 1)]);
      fused_row<B, K, true, V>(ring[s], l, cols, xs, warp_dots, y_part);
    }
  }
  finish_cooperative<B, K, V>(y_part, cols, partial, y);
}

// ---- rung 6: half blocks, two rows a barrier ----------------------------------------------------------
// Rung 5 in 512-thread blocks (twice the columns a thread: a row's sums, barrier and bounds paid by
// half the warps), its rows taken two at a time: both dots summed by one pass of shuffles and one
// barrier (block_dots2). A ring of R rows: the pair computed while the next R − 2 rows load.
template <unsigned B, unsigned K, unsigned R, unsigned V>
__global__ void __launch_bounds__(B)
fused_pairs(const float* __restrict__ a, const float* __restrict__ x, std::uint32_t rows, std::uint32_t cols,
            std::uint32_t rows_per_block, float* __restrict__ partial, float* __restrict__ y) {
  static_assert(R % 2 == 0 && R >= 4, "pairs, at least one pair ahead");
  extern __shared__ float xs[];
  __shared__ float pair_dots[2][2][B / kWarp];
  for (std::uint32_t j = threadIdx.x; j < cols; j += B) xs[j] = x[j];
  __syncthreads();
  const BlockRows<true> mine(rows, rows_per_block);
  float ring[R][K], y_part[K] = {};
#pragma unroll
  for (unsigned s = 0; s < R - 2; ++s)
    if (s < mine.count) load_row<B, K, V>(a, mine.row(s), cols, ring[s]);
  for (std::size_t i = 0; i < mine.count; i += R) {
#pragma unroll
    for (unsigned s = 0; s < R; s += 2) {  // the block's rows i + s, i + s + 1 are in ring[s], ring[s + 1]
      const std::size_t l = i + s;
      if (l >= mine.count) break;
#pragma unroll
      for (unsigned q = R - 2; q < R; ++q)
        if (l + q < mine.count) load_row<B, K, V>(a, mine.row(l + q), cols, ring[(s + q) % R]);
      const bool second = l + 1 < mine.count;
      float ta, tb;
      block_dots2<B>(row_dot<B, K, V>(ring[s], cols, xs), second ? row_dot<B, K, V>(ring[s + 1], cols, xs) : 0.f,
                     pair_dots[(l / 2) & 1], ta, tb);
      add_row(ring[s], ta, y_part);
      if (second) add_row(ring[s + 1], tb, y_part);
    }
  }
  finish_cooperative<B, K, V>(y_part, cols, partial, y);
}

// ---- host side --------------------------------------------------------------------------------------

constexpr std::size_t aligned(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

int sm_count() { return current_device_attribute(cudaDevAttrMultiProcessorCount); }

// The fused kernels keep x in shared memory beside at most this much of their own (warp sums).
constexpr std::size_t kFusedStaticSmem = 8 * 1024;

/// The widest A the fused kernels take on this device: x (4 bytes a column) in a block's shared
/// memory, 16 columns a thread of 1024. 16384 on an H100 or an A100; 14336 on a T4 (64 KiB a block).
std::uint32_t fused_max_cols() {
  const auto optin = static_cast<std::size_t>(current_device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin));
  return static_cast<std::uint32_t>(std::min<std::size_t>(kFusedMaxK * 1024, (optin - kFusedStaticSmem) / sizeof(float)));
}

std::uint32_t k_for(std::uint32_t cols, unsigned block) { return (cols + block - 1) / block; }

// Rung 4's launch: one 1024-thread block per SM, K from {1, 2, 4, 8, 12, 16}.
using PanelKernel = void (*)(const float*, const float*, std::uint32_t, std::uint32_t, std::uint32_t, float*);
PanelKernel panels_for(std::uint32_t cols) {
  const std::uint32_t k = k_for(cols, 1024);
  if (k <= 1) return fused_panels<1>;
  if (k <= 2) return fused_panels<2>;
  if (k <= 4) return fused_panels<4>;
  if (k <= 8) return fused_panels<8>;
  if (k <= 12) return fused_panels<12>;
  return fused_panels<16>;
}
std::uint32_t panel_blocks(std::uint32_t rows) { return std::min<std::uint32_t>(rows, static_cast<std::uint32_t>(sm_count())); }

// Rung 5's launch: the instance for the width and the loads, and how many of its blocks are
// resident at once.
using CoopKernel = void (*)(const float*, const float*, std::uint32_t, std::uint32_t, std::uint32_t, float*, float*);
/// An instance of the fused kernel and how many of its blocks the current device holds at once.
struct CoopInstance {
  CoopKernel kernel = nullptr;
  unsigned (*resident)() = nullptr;
};
struct CoopPlan {
  CoopKernel kernel = nullptr;
  unsigned block = 0;
  std::uint32_t blocks = 0;  // the grid
  std::size_t smem = 0;      // dynamic shared memory: x
};
// At least 8 rows a block: the partial y a block writes and the combine reads stay under 1/4 of
// the block's share of A.
constexpr std::uint32_t kMinRowsPerBlock = 8;

/// Rung 6's blocks: past 4096 columns (k > 8 a thread) up to 10240 (k ≤ 20), 16-byte loads. Wider
/// rows keep rung 5's: at 24 and 32 columns a thread the half blocks hold two rows ahead or one, and
/// lost on the H200 (12288x1024 0.90×, 16384x9800 0.97×; docs/atax.md).
constexpr unsigned kHalfBlock = 512, kHalfBlockMaxK = 20;

// The rows in flight: as many as registers allow beside the partial y, at most 4. A row of K floats
// a thread; 48 registers of them in 1024- and 256-thread blocks (at most 64 a thread in the first;
// several of the second an SM); rung 6's 512-thread blocks (one an SM at wide rows, 128 registers a
// thread) a ring of 4 or 6 rows in 96.
template <unsigned B, unsigned K, unsigned V>
constexpr CoopKernel ring_kernel() {
  if constexpr (B == kHalfBlock) {  // rung 6: pairs, a ring of 4 or 6 rows
    constexpr unsigned kRing = (96 / K - 1) / 2 * 2;
    return fused_pairs<B, K, (kRing < 4 ? 4 : kRing > 6 ? 6 : kRing), V>;
  } else {
    constexpr unsigned kRing = 48 / K - 2;
    return fused_cooperative<B, K, (kRing < 4 ? (kRing < 1 ? 1 : kRing) : 4), V>;
  }
}

/// Blocks of the instance resident at once, planned for the largest x the instance takes so that
/// the grid does not depend on cols (asked once per device).
template <unsigned B, unsigned K, unsigned V>
unsigned ring_resident() {
  static PerDevice<unsigned> cache;
  return cache.get([] {
    const std::size_t most_k = B == kHalfBlock ? kHalfBlockMaxK : kFusedMaxK;
    const std::size_t most_x = std::min<std::size_t>(std::size_t{B} * most_k, fused_max_cols()) * sizeof(float);
    allow_dynamic_smem(reinterpret_cast<const void*>(ring_kernel<B, K, V>()), most_x, "gpulab::atax");
    return resident_blocks(reinterpret_cast<const void*>(ring_kernel<B, K, V>()), B, most_x);
  });
}

template <unsigned B, unsigned K, unsigned V>
CoopInstance ring_instance() {
  return {ring_kernel<B, K, V>(), ring_resident<B, K, V>};
}

// The instance for k = ⌈cols / B⌉ columns a thread. Scalar loads: K = 1, 2, 3, 4, 6, 8, 10, 12,
// 16 (at most 25% of the registers idle); 16-byte loads: K = 4, 8, 12, 16.
template <unsigned B>
CoopInstance fused_instance(bool vector_loads, std::uint32_t k) {
  if (vector_loads) {
    if (k <= 4) return ring_instance<B, 4, 4>();
    if (k <= 8) return ring_instance<B, 8, 4>();
    if (k <= 12) return ring_instance<B, 12, 4>();
    return ring_instance<B, 16, 4>();
  }
  if (k <= 1) return ring_instance<B, 1, 1>();
  if (k <= 2) return ring_instance<B, 2, 1>();
  if (k <= 3) return ring_instance<B, 3, 1>();
  if (k <= 4) return ring_instance<B, 4, 1>();
  if (k <= 6) return ring_instance<B, 6, 1>();
  if (k <= 8) return ring_instance<B, 8, 1>();
  if (k <= 10) return ring_instance<B, 10, 1>();
  if (k <= 12) return ring_instance<B, 12, 1>();
  return ring_instance<B, 16, 1>();
}

/// Rung 6's instances: 512-thread blocks, k from 9 to 20 columns a thread, 16-byte loads.
CoopInstance half_block_instance(std::uint32_t k) {
  if (k <= 12) return ring_instance<kHalfBlock, 12, 4>();
  if (k <= 16) return ring_instance<kHalfBlock, 16, 4>();
  return ring_instance<kHalfBlock, 20, 4>();
}

/// `half_blocks` (rung 6): 512-thread blocks where rung 5 takes 1024 and rows load 16 bytes.
CoopPlan coop_plan(std::uint32_t rows, std::uint32_t cols, bool vector_loads, bool half_blocks = false) {
  CoopPlan p;
  p.block = cols <= 4096 ? 256 : half_blocks && vector_loads && k_for(cols, kHalfBlock) <= kHalfBlockMaxK ? kHalfBlock : 1024;
  const CoopInstance instance = p.block == 256    ? fused_instance<256>(vector_loads, k_for(cols, 256))
                                : p.block == 1024 ? fused_instance<1024>(vector_loads, k_for(cols, 1024))
                                                  : half_block_instance(k_for(cols, kHalfBlock));
  p.kernel = instance.kernel;
  p.smem = std::size_t{cols} * sizeof(float);
  const unsigned at_once = instance.resident();
  if (at_once < 1) throw Error("atax: the fused kernel does not fit an SM of this device");
  p.blocks = std::clamp<std::uint32_t>((rows + kMinRowsPerBlock - 1) / kMinRowsPerBlock, 1, at_once);
  return p;
}

void launch_plan(const CoopPlan& p, const float* a, const float* x, std::uint32_t rows, std::uint32_t cols, float* y,
                 void* temp, cudaStream_t stream) {
  const std::uint32_t per_block = (rows + p.blocks - 1) / p.blocks;
  LaunchShape shape{dim3(p.blocks), dim3(p.block), p.smem};
  shape.cooperative = true;
  const char* name = p.block == kHalfBlock ? "fused_pairs" : "fused_cooperative";
  launch(name, p.kernel, shape, stream, a, x, rows, cols, per_block, static_cast<float*>(temp), y).work([&] {
    return count_of(per_block, "line") +
           (p.block >= kHalfBlock ? " per block (two-row chunks dealt round-robin)" : " per block (a panel)") +
           ", then a slab of y each";
  });
}

std::uint32_t two_pass_chunks(std::uint32_t rows, std::uint32_t cols) {
  const std::uint32_t column_blocks = (cols + kTwoPassThreads - 1) / kTwoPassThreads;
  const std::uint32_t wanted = std::max<std::uint32_t>(1, 8u * static_cast<std::uint32_t>(sm_count()) / column_blocks);
  return std::min(rows, wanted);
}

unsigned column_blocks(std::uint32_t cols) { return (cols + kTwoPassThreads - 1) / kTwoPassThreads; }

}  // namespace

std::size_t two_pass_temp_bytes(std::uint32_t rows, std::uint32_t cols) {
  return aligned(std::size_t{rows} * sizeof(float)) + std::size_t{two_pass_chunks(rows, cols)} * cols * sizeof(float);
}

void two_pass(const float* a, const float* x, std::uint32_t rows, std::uint32_t cols, float* y, void* temp,
              cudaStream_t stream) {
  auto* t = static_cast<float*>(temp);
  float* partial = reinterpret_cast<float*>(static_cast<unsigned char*>(temp) + aligned(std::size_t{rows} * sizeof(float)));
  const std::uint32_t chunks = two_pass_chunks(rows, cols);
  const std::uint32_t per_chunk = (rows + chunks - 1) / chunks;
  const std::size_t warps_per_block = kTwoPassThreads / kWarp;
  const auto row_blocks = static_cast<unsigned>((rows + warps_per_block - 1) / warps_per_block);
  launch("warp_per_row (t = A x)", warp_per_row, {row_blocks, kTwoPassThreads}, stream, a, x, rows, cols, t)
      .work([&] { return count_of(warps_per_block, "line") + " per block"; });
  const dim3 chunk_grid(column_blocks(cols), chunks);
  launch("column_chunks (y = A^T t)", column_chunks, {chunk_grid, kTwoPassThreads}, stream, a, t, rows, cols, per_chunk,
         partial)
      .work([&] { return count_of(kTwoPassThreads, "column") + " x " + count_of(per_chunk, "line") + " per block"; });
  launch("sum_chunks", sum_chunks, {column_blocks(cols), kTwoPassThreads}, stream, partial, chunks, cols, y)
      .work([&] { return count_of(chunks, "partial") + " per column"; });
}

bool fused_takes(std::uint32_t cols) { return cols <= fused_max_cols(); }

std::size_t first_fused_temp_bytes(std::uint32_t rows, std::uint32_t cols) {
  return fused_takes(cols) ? std::size_t{panel_blocks(rows)} * cols * sizeof(float) : two_pass_temp_bytes(rows, cols);
}

void first_fused(const float* a, const float* x, std::uint32_t rows, std::uint32_t cols, float* y, void* temp,
                 cudaStream_t stream) {
  if (!fused_takes(cols)) return two_pass(a, x, rows, cols, y, temp, stream);
  const std::uint32_t blocks = panel_blocks(rows);
  const std::size_t smem = std::size_t{cols} * sizeof(float);
  const PanelKernel kernel = panels_for(cols);
  allow_dynamic_smem(reinterpret_cast<const void*>(kernel), smem, "gpulab::atax");
  const std::uint32_t per_block = (rows + blocks - 1) / blocks;
  launch("fused_panels", kernel, {blocks, 1024, smem}, stream, a, x, rows, cols, per_block, static_cast<float*>(temp))
      .work([&] { return count_of(per_block, "line") + " per block"; });
  launch("sum_chunks", sum_chunks, {column_blocks(cols), kTwoPassThreads}, stream, static_cast<const float*>(temp), blocks,
         cols, y)
      .work([&] { return count_of(blocks, "partial") + " per column"; });
}

namespace {
constexpr std::uint32_t kCoopMinCols = 128;  // narrower: most of a 256-thread block would idle
bool coop_takes(std::uint32_t cols) { return cols >= kCoopMinCols && fused_takes(cols); }

// 16-byte loads of A need every row to start 16-byte aligned.
bool vector_loads_fit(const float* a, std::uint32_t cols) {
  return cols % 4 == 0 && reinterpret_cast<std::uintptr_t>(a) % 16 == 0;
}
}  // namespace

// The library takes rung 6 where each SM must take more DRAM bytes a cycle than an H100's 12.8: on an
// H200 (18.8) rung 5 is bound by issuing its instructions and rung 6 has half of them (1.14× at
// 8960x17920, 1.23× at 5000x32000; docs/atax.md). Below it, rung 5 until rung 6 is shown no slower.
constexpr double kHalfBlocksFromBytesPerSmCycle = 15.0;

/// The fused pass (half_blocks: rung 6's blocks where they apply) after the arguments' checks; the
/// two passes where the fused kernels do not take the width.
void checked_pass(const float* a, const float* x, std::uint32_t rows, std::uint32_t cols, float* y, void* temp,
                  std::size_t temp_bytes, cudaStream_t stream, bool half_blocks) {
  if (a == nullptr || x == nullptr || y == nullptr || temp == nullptr) throw Error("atax: null device pointer");
  if (rows == 0 || cols == 0 || rows > 0x7FFFFFFFu || cols > 0x7FFFFFFFu)
    throw Error("atax: " + std::to_string(cols) + " columns × " + std::to_string(rows) + " rows; both must be in [1, 2^31 - 1]");
  const std::size_t needed = atax_temp_bytes(rows, cols);
  if (temp_bytes < needed)
    throw Error("atax: temporary storage of " + std::to_string(temp_bytes) + " bytes is too small; atax_temp_bytes() says " +
                std::to_string(needed));
  if (!coop_takes(cols)) return two_pass(a, x, rows, cols, y, temp, stream);
  launch_plan(coop_plan(rows, cols, vector_loads_fit(a, cols), half_blocks), a, x, rows, cols, y, temp, stream);
}

void cooperative_pass(const float* a, const float* x, std::uint32_t rows, std::uint32_t cols, float* y, void* temp,
                      std::size_t temp_bytes, cudaStream_t stream) {
  checked_pass(a, x, rows, cols, y, temp, temp_bytes, stream, false);
}

void half_blocks(const float* a, const float* x, std::uint32_t rows, std::uint32_t cols, float* y, void* temp, std::size_t temp_bytes,
                 cudaStream_t stream) {
  checked_pass(a, x, rows, cols, y, temp, temp_bytes, stream, true);
}

}  // namespace atax_detail

using namespace atax_detail;

std::size_t atax_temp_bytes(std::uint32_t rows, std::uint32_t cols) {
  if (!coop_takes(cols)) return two_pass_temp_bytes(rows, cols);
  // Enough for every plan: which one runs depends on A's alignment and the device's bandwidth.
  std::uint32_t blocks = coop_plan(rows, cols, false).blocks;
  if (cols % 4 == 0) blocks = std::max({blocks, coop_plan(rows, cols, true).blocks, coop_plan(rows, cols, true, true).blocks});
  return std::size_t{blocks} * cols * sizeof(float);
}

void atax(const float* a, const float* x, std::uint32_t rows, std::uint32_t cols, float* y, void* temp,
          std::size_t temp_bytes, cudaStream_t stream) {
  checked_pass(a, x, rows, cols, y, temp, temp_bytes, stream,
               current_dram_bytes_per_sm_cycle() >= kHalfBlocksFromBytesPerSmCycle);
}

}  // namespace gpulab
