// What the SGEMM kernels share: the operands, the epilogue c = alpha·acc + beta·c, the TF32 split,
// tile copies (plain or cp.async, with zero fill past the edges), the main loop over k's slices, and
// what a block of a tiled kernel computes and stores. The kernels: the warp-tiled one
// (sgemm_warp_tiles.cuh), the big-tile one (sgemm_big_tiles.cuh), on tensor cores sgemm_mma.cu and
// sgemm_wgmma.cu.
#pragma once

#include "lib/async_copy.cuh"
#include "sgemm/sgemm_args.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace gpulab::sgemm_device {

/// c = alpha·acc, or fma(alpha, acc, beta·c): C is not read when beta = 0 (BLAS's rule).
__device__ __forceinline__ float epilogue(const GemmArgs& g, float acc, const float* c) {
  return g.beta == 0.f ? g.alpha * acc : fmaf(g.alpha, acc, g.beta * *c);
}

/// x rounded to TF32 (11 significant bits, to nearest, ties away), in a 32-bit container.
__device__ __forceinline__ unsigned to_tf32(float x) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  // No cvt to TF32 before compute capability 8.0: half a TF32 unit added to the magnitude, then
  // the 13 low bits dropped (rna's rounding for finite x; NaN and Inf kept as they are).
  const unsigned bits = __float_as_uint(x);
  return isfinite(x) ? (bits + 0x1000u) & 0xffffe000u : bits;
#else
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
  return r;
#endif
}
/// The 3xTF32 split: big = tf32(x), small = tf32(x − big) (x − big is exact in FP32).
__device__ __forceinline__ void split_tf32(float x, unsigned& big, unsigned& small) {
  big = to_tf32(x);
  small = to_tf32(x - __uint_as_float(big));
}

/// Element (i, p) of op(A) and (p, j) of op(B), in the operands' form (GemmArgs).
__device__ __forceinline__ float a_at(const GemmArgs& g, int i, int p) {
  return g.a_transposed ? g.a[static_cast<std::size_t>(p) * g.lda + i] : g.a[static_cast<std::size_t>(i) * g.lda + p];
}
__device__ __forceinline__ float b_at(const GemmArgs& g, int p, int j) {
  return g.b_transposed ? g.b[static_cast<std::size_t>(j) * g.ldb + p] : g.b[static_cast<std::size_t>(p) * g.ldb + j];
}

/// C's element at `c`, as the thread stored it, to the same place of each of C's copies
/// (GemmArgs::copies). Read back from the L2 (ld.global.cg: what the thread wrote), not kept in
/// registers: the copies add no register pressure to the kernels' C epilogue (a loop over C and
/// its copies from registers took big_tiles' 128 × 256 kernel from 237 to 253 registers and 2%).
__device__ __forceinline__ void copy_c(const GemmArgs& g, float* c) {
  const float v = __ldcg(c);
#pragma unroll 1
  for (int q = 0; q < g.copies; ++q) *reinterpret_cast<float*>(reinterpret_cast<char*>(c) + g.copy_offsets[q]) = v;
}

__device__ __forceinline__ void store_c(const GemmArgs& g, int i, int j, float acc) {
  float* c = g.c + static_cast<std::size_t>(i) * g.ldc + j;
  *c = epilogue(g, acc, c);
  if (g.copies > 0) copy_c(g, c);
}

/// Four consecutive elements of row i from column j to C (not its copies): one 16-byte access
/// where the row is 16-byte aligned and all four are inside, elements one by one otherwise.
__device__ __forceinline__ void write_c4(const GemmArgs& g, int i, int j, float4 acc) {
  if (i >= g.m || j >= g.n) return;
  float* c = g.c + static_cast<std::size_t>(i) * g.ldc + j;
  if (j + 3 < g.n && (reinterpret_cast<std::uintptr_t>(c) & 15) == 0) {
    float4 v = acc;
    if (g.beta != 0.f) {
      const float4 old = *reinterpret_cast<const float4*>(c);
      v = {fmaf(g.alpha, acc.x, g.beta * old.x), fmaf(g.alpha, acc.y, g.beta * old.y),
           fmaf(g.alpha, acc.z, g.beta * old.z), fmaf(g.alpha, acc.w, g.beta * old.w)};
    } else {
      v = {g.alpha * acc.x, g.alpha * acc.y, g.alpha * acc.z, g.alpha * acc.w};
    }
    *reinterpret_cast<float4*>(c) = v;
    return;
  }
  const float values[4] = {acc.x, acc.y, acc.z, acc.w};
  for (int q = 0; q < 4 && j + q < g.n; ++q) c[q] = epilogue(g, values[q], c + q);
}

/// What write_c4(g, i, j, …) stored, to each of C's copies (copy_c's way, 16 bytes at a time
/// where write_c4 stored so).
__device__ __forceinline__ void copy_c4(const GemmArgs& g, int i, int j) {
  if (i >= g.m || j >= g.n) return;
  float* c = g.c + static_cast<std::size_t>(i) * g.ldc + j;
  if (j + 3 < g.n && (reinterpret_cast<std::uintptr_t>(c) & 15) == 0) {
    const float4 v = __ldcg(reinterpret_cast<const float4*>(c));
#pragma unroll 1
    for (int q = 0; q < g.copies; ++q) *reinterpret_cast<float4*>(reinterpret_cast<char*>(c) + g.copy_offsets[q]) = v;
    return;
  }
  for (int e = 0; e < 4 && j + e < g.n; ++e) copy_c(g, c + e);
}

/// write_c4, then the same to each of C's copies.
__device__ __forceinline__ void store_c4(const GemmArgs& g, int i, int j, float4 acc) {
  write_c4(g, i, j, acc);
  if (g.copies > 0) copy_c4(g, i, j);
}

/// Element (i, j) of a row-major matrix, or 0 outside rows × cols (the tiles' zero fill).
__device__ __forceinline__ float load_or_zero(const float* p, std::size_t ld, int i, int j, int rows, int cols) {
  return i < rows && j < cols ? p[static_cast<std::size_t>(i) * ld + j] : 0.f;
}

/// Four elements of row i from column j (j a multiple of 4, rows 16-byte aligned), zeros outside.
__device__ __forceinline__ float4 load4_or_zero(const float* p, std::size_t ld, int i, int j, int rows, int cols) {
  if (i >= rows || j >= cols) return {0.f, 0.f, 0.f, 0.f};
  const float* row = p + static_cast<std::size_t>(i) * ld + j;
  if (j + 3 < cols) return *reinterpret_cast<const float4*>(row);
  return {row[0], j + 1 < cols ? row[1] : 0.f, j + 2 < cols ? row[2] : 0.f, 0.f};
}

/// One tile copy, either plain (load, then store to shared) or asynchronous (cp.async).
template <bool kAsync>
struct TileCopy {
  /// *dst = *src, or 0 when !valid (src is then not read).
  __device__ __forceinline__ static void one_at(float* dst, const float* src, bool valid) {
    if constexpr (kAsync)
      cp_async4(dst, src, valid);
    else
      *dst = valid ? *src : 0.f;
  }
  /// dst[0..3] = the first `bytes` of src[0..3] (16-byte aligned), zeros after them.
  __device__ __forceinline__ static void four_at(float* dst, const float* src, int bytes) {
    if constexpr (kAsync) {
      cp_async16(dst, src, bytes);
    } else if (bytes == 16) {
      *reinterpret_cast<float4*>(dst) = *reinterpret_cast<const float4*>(src);
    } else {
      for (int q = 0; q < 4; ++q) dst[q] = 4 * q < bytes ? src[q] : 0.f;
    }
  }
};

/// The main loop over k's slices. kStages = 1: load a slice, compute on it, one at a time.
/// kStages ≥ 2: cp.async keeps kStages − 1 slices in flight while the block computes on the
/// oldest (load(s, stage) issues the copies of slice s into `stage`).
template <int kStages, class Load, class Compute>
__device__ __forceinline__ void run_slices(int slices, Load&& load, Compute&& compute) {
  if constexpr (kStages == 1) {
    for (int s = 0; s < slices; ++s) {
      load(s, 0);
      __syncthreads();
      compute(0);
      __syncthreads();
    }
  } else {
#pragma unroll
    for (int s = 0; s < kStages - 1; ++s) {
      if (s < slices) load(s, s);
      cp_async_commit();  // an empty group keeps the count of pending groups uniform
    }
    for (int s = 0; s < slices; ++s) {
      cp_async_wait<kStages - 2>();  // slice s has landed (for this thread) ...
      __syncthreads();               // ... for every thread; and the stage of slice s − 1 is free
      const int ahead = s + kStages - 1;
      if (ahead < slices) load(ahead, ahead % kStages);
      cp_async_commit();
      compute(s % kStages);
    }
    cp_async_wait<0>();
  }
}
// ---- what the tiled kernels share -------------------------------------------------------------------------

/// The tile (tm, tn) a block computes: blocks go down groups of 8 tile rows before moving right,
/// so that the blocks resident together share panels of A and B in the L2.
__device__ __forceinline__ void grouped_tile(int block, int tiles_m, int tiles_n, int& tm, int& tn) {
  constexpr int kGroup = 8;
  const int per_group = kGroup * tiles_n;
  const int first = block / per_group * kGroup;
  const int rows = min(tiles_m - first, kGroup);
  tm = first + block % per_group % rows;
  tn = block % per_group / rows;
}

/// The blocks a cluster of T's kernel stacks along M (T::kClusterM; 1 where T has none).
template <class T>
constexpr int cluster_rows() {
  if constexpr (requires { T::kClusterM; }) return T::kClusterM;
  else return 1;
}

/// What a block of a tiled kernel computes: its kBM × kBN tile of C at (m0, n0) (grouped_tile's
/// order) and k from k_begin to k_end (split-K: blockIdx.z's slice of k_slice) in `slices` steps of kBK.
/// Clustered, the grouped order places clusters: a cluster's blocks take consecutive tiles down M
/// (the grid has whole clusters: tiles past m read zeros and store nothing).
struct BlockWork {
  int m0, n0, k_begin, k_end, slices;
  template <class T>
  __device__ static BlockWork of(const GemmArgs& g, int k_slice) {
    constexpr int kCluster = cluster_rows<T>();
    const int tiles_m = (g.m + T::kBM * kCluster - 1) / (T::kBM * kCluster), tiles_n = (g.n + T::kBN - 1) / T::kBN;
    int tm, tn;
    grouped_tile(static_cast<int>(blockIdx.x) / kCluster, tiles_m, tiles_n, tm, tn);
    const int k_begin = static_cast<int>(blockIdx.z) * k_slice;
    const int k_end = min(g.k, k_begin + k_slice);
    const int m0 = (tm * kCluster + static_cast<int>(blockIdx.x) % kCluster) * T::kBM;
    return {m0, tn * T::kBN, k_begin, k_end, k_end > k_begin ? (k_end - k_begin + T::kBK - 1) / T::kBK : 0};
  }
};

/// One thread's share of copying a rows × cols tile of a row-major matrix every slice: kPer
/// copies of kWidth floats, in rows kRowStep apart, the same rows and column of the tile each
/// time. The pointer and the row tests are worked out once; a slice moves the tile on by an
/// offset. Only those two live in registers (128 a thread hold 64 accumulators and little more):
/// the thread's row and column in the tile are recomputed from threadIdx.x where needed.
/// (Per copy, index and bounds arithmetic would cost more instructions than the copy itself.)
///
/// kGuardLast: a 16-byte cp.async of a partial vector addresses all 16 bytes though it reads only
/// `bytes`. With a leading dimension that is a multiple of 4 those stay inside the row's padding,
/// except in the matrix's last row, where a caller's allocation may end at its last element
/// (memcheck reports the address). A guarded loader copies that one vector 4 bytes at a time. It
/// is a separate instantiation, used only where a partial vector can occur (n or k not a multiple
/// of 4): the test costs the unguarded loop 4-10% (the journal: git show 539355e:docs/notes.md).
template <int kRows, int kCols, int kThreads, int kWidth, bool kAsync, bool kGuardLast = false>
struct TileLoader {
  static constexpr bool kGuarded = kGuardLast && kWidth == 4 && kAsync;
  static constexpr int kFloats = kWidth;  // per copy
  static constexpr int kUnitsPerRow = kCols / kWidth;
  static constexpr int kPer = kRows * kCols / kWidth / kThreads, kRowStep = kThreads / kUnitsPerRow;
  __device__ static int row() { return static_cast<int>(threadIdx.x) / kUnitsPerRow; }
  __device__ static int col() { return static_cast<int>(threadIdx.x) % kUnitsPerRow * kWidth; }

  const float* first;    // the thread's first copy with the tile at (row0, col0)
  unsigned rows_in = 0;  // bit r: copy r's row is inside the matrix
  unsigned last_in = 0;  // bit r: copy r's row is the matrix's last (guarded loaders only)

  __device__ TileLoader(const float* p, std::size_t ld, int row0, int col0, int matrix_rows)
      : first(p + static_cast<std::size_t>(row0 + row()) * ld + col0 + col()) {
#pragma unroll
    for (int r = 0; r < kPer; ++r) {
      rows_in |= (row0 + row() + r * kRowStep < matrix_rows ? 1u : 0u) << r;
      if constexpr (kGuarded) last_in |= (row0 + row() + r * kRowStep == matrix_rows - 1 ? 1u : 0u) << r;
    }
  }
  /// Copy r with the tile moved `offset` elements on, into dst (row-major, `dst_stride` floats a
  /// row); `bytes` of its 4·kWidth are read (none: `base`, a valid address, stands in), the rest
  /// zero-filled. `last_row`: the copy is in the matrix's last row (read by guarded loaders only).
  __device__ __forceinline__ void copy(float* dst, int dst_stride, int r, std::ptrdiff_t offset, std::size_t ld,
                                       const float* base, int bytes, bool last_row = false) const {
    const float* src = bytes > 0 ? first + offset + static_cast<std::ptrdiff_t>(r * kRowStep) * static_cast<std::ptrdiff_t>(ld) : base;
    float* d = dst + (row() + r * kRowStep) * dst_stride + col();
    if constexpr (kGuarded) {
      if (last_row && bytes < 16) {
#pragma unroll
        for (int q = 0; q < 4; ++q) TileCopy<kAsync>::one_at(d + q, 4 * q < bytes ? src + q : base, 4 * q < bytes);
        return;
      }
    }
    if constexpr (kWidth == 4)
      TileCopy<kAsync>::four_at(d, src, bytes);
    else
      TileCopy<kAsync>::one_at(d, src, bytes > 0);
  }
};

/// Slice k0 (counted from k_begin) of A's tile (rows from m0, row-major into `as`, `a_stride`
/// floats a row) and of B's (columns from n0, into `bs`), zeros past k_end, m and n.
template <class ATile, class BTile>
__device__ __forceinline__ void copy_slice(const GemmArgs& g, const ATile& a_tile, const BTile& b_tile, float* as,
                                           int a_stride, float* bs, int b_stride, int k_begin, int k0, int k_end, int n0) {
  const int a_bytes = 4 * max(0, min(ATile::kFloats, k_end - (k_begin + k0 + ATile::col())));
#pragma unroll
  for (int r = 0; r < ATile::kPer; ++r) {
    // A's tile moves along k: its rows, and so which of them is A's last, stay put.
    const bool last = ATile::kGuarded && (a_tile.last_in >> r & 1u);
    a_tile.copy(as, a_stride, r, k0, g.lda, g.a, (a_tile.rows_in >> r & 1u) ? a_bytes : 0, last);
  }
  const int b_bytes = 4 * max(0, min(BTile::kFloats, g.n - (n0 + BTile::col())));
#pragma unroll
  for (int r = 0; r < BTile::kPer; ++r) {
    const int b_row = k_begin + k0 + BTile::row() + r * BTile::kRowStep;
    b_tile.copy(bs, b_stride, r, static_cast<std::ptrdiff_t>(k0) * static_cast<std::ptrdiff_t>(g.ldb), g.ldb, g.b,
                b_row < k_end ? b_bytes : 0, BTile::kGuarded && b_row == g.k - 1);
  }
}

/// Split-K's raw sums of row i from column j (those inside n) to partials[blockIdx.z][i][j…], the
/// slice of k this block summed, for add_slices.
__device__ __forceinline__ void write_partials4(const GemmArgs& g, int i, int j, float4 sums, float* partials) {
  if (i >= g.m) return;
  float* p = partials + (static_cast<std::size_t>(blockIdx.z) * g.m + i) * g.n + j;
  const float values[4] = {sums.x, sums.y, sums.z, sums.w};
  for (int q = 0; q < 4 && j + q < g.n; ++q) p[q] = values[q];
}

/// Four sums of row i from column j: to C through the epilogue (not its copies), or, split-K
/// (`partials`), raw to the block's slice of partials.
__device__ __forceinline__ void store_sums4(const GemmArgs& g, int i, int j, float4 sums, float* partials) {
  if (partials == nullptr) write_c4(g, i, j, sums);
  else write_partials4(g, i, j, sums, partials);
}

/// A thread's sums of a tiled kernel to C (or split-K's partials): acc[c·4 + i][d·4 … d·4 + 3] are
/// row row_of(c, i), columns col0 + d·32 … + 3 (each warp's lanes 4 columns apart in 32-column bands).
/// C's copies after all of C, from C (copy_c4), once the sums are no longer needed. kTransposed: the
/// tile is of Cᵀ (sgemm_big_tiles.cuh's kCTransposed), acc[c·4 + i][d·4 + e] C's element (col0 +
/// d·32 + e, row_of(c, i)); row_of(c, i) = row_of(c, 0) + i, so four of a column of acc are 16 bytes
/// of a row of C; `g` as C is stored (m × n), with no copies.
template <bool kTransposed = false, int kRows, int kCols, class RowOf>
__device__ __forceinline__ void store_thread_tile(const GemmArgs& g, const float (&acc)[kRows][kCols], RowOf row_of, int col0,
                                                  float* partials) {
  if constexpr (kTransposed) {
#pragma unroll
    for (int c = 0; c < kRows / 4; ++c)
#pragma unroll
      for (int j = 0; j < kCols; ++j)
        store_sums4(g, col0 + j / 4 * 32 + j % 4, row_of(c, 0), {acc[c * 4][j], acc[c * 4 + 1][j], acc[c * 4 + 2][j], acc[c * 4 + 3][j]},
                    partials);
  } else {
#pragma unroll
    for (int c = 0; c < kRows / 4; ++c)
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int d = 0; d < kCols / 4; ++d) {
          const float* r = acc[c * 4 + i] + d * 4;
          store_sums4(g, row_of(c, i), col0 + d * 32, {r[0], r[1], r[2], r[3]}, partials);
        }
    if (partials != nullptr || g.copies == 0) return;
#pragma unroll
    for (int c = 0; c < kRows / 4; ++c)
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int d = 0; d < kCols / 4; ++d) copy_c4(g, row_of(c, i), col0 + d * 32);
  }
}

/// Split-K's second step: c = alpha·Σ_z partials[z] + beta·c, the slices added in order.
__global__ void add_slices(GemmArgs g, int splits, const float* partials);
/// The same for deep slicings of few elements: `depth` warps share an element's slices.
__global__ void add_slices_deep(GemmArgs g, int splits, int depth, const float* partials);

constexpr int k2dTile = 128, k2dDepth = 8, k2dPer = 8, k2dThreads = (k2dTile / k2dPer) * (k2dTile / k2dPer);
/// Rung 5's tile (sgemm_kernels.cuh), which the guarded Ozaki scheme's FP32 fix-up (sgemm_ozaki.cu)
/// also runs: acc += this thread's 8 × 8 of the 128 × 128 tile of A·B at (m0, n0), its rows
/// t / 16·8 … and columns t % 16·8 …, FMA chains over k in order. kForms: op(A) and op(B) in the
/// operands' form (the fix-up's; the loads along m or n, not coalesced, for the few tiles it takes);
/// else as stored (rung 5).
template <bool kForms = false>
__device__ __forceinline__ void blocked_2d_tile(const GemmArgs& g, int m0, int n0, float (&acc)[k2dPer][k2dPer]) {
  __shared__ float as[k2dTile][k2dDepth], bs[k2dDepth][k2dTile];
  const int t = static_cast<int>(threadIdx.x);
  const int row0 = t / (k2dTile / k2dPer) * k2dPer, col0 = t % (k2dTile / k2dPer) * k2dPer;
  for (int p0 = 0; p0 < g.k; p0 += k2dDepth) {
#pragma unroll
    for (int e = t; e < k2dTile * k2dDepth; e += k2dThreads) {
      if constexpr (kForms) {
        const int i = m0 + e / k2dDepth, pa = p0 + e % k2dDepth, pb = p0 + e / k2dTile, j = n0 + e % k2dTile;
        as[e / k2dDepth][e % k2dDepth] = i < g.m && pa < g.k ? a_at(g, i, pa) : 0.f;
        bs[e / k2dTile][e % k2dTile] = pb < g.k && j < g.n ? b_at(g, pb, j) : 0.f;
      } else {
        as[e / k2dDepth][e % k2dDepth] = load_or_zero(g.a, g.lda, m0 + e / k2dDepth, p0 + e % k2dDepth, g.m, g.k);
        bs[e / k2dTile][e % k2dTile] = load_or_zero(g.b, g.ldb, p0 + e / k2dTile, n0 + e % k2dTile, g.k, g.n);
      }
    }
    __syncthreads();
#pragma unroll
    for (int p = 0; p < k2dDepth; ++p) {
      float a[k2dPer], b[k2dPer];
#pragma unroll
      for (int r = 0; r < k2dPer; ++r) a[r] = as[row0 + r][p];
#pragma unroll
      for (int c = 0; c < k2dPer; ++c) b[c] = bs[p][col0 + c];
#pragma unroll
      for (int r = 0; r < k2dPer; ++r)
#pragma unroll
        for (int c = 0; c < k2dPer; ++c) acc[r][c] = fmaf(a[r], b[c], acc[r][c]);
    }
    __syncthreads();
  }
}
/// Rung 5's tiles over C, blockIdx.x across its columns and blockIdx.y down its rows (looping past
/// gridDim.y): each tile taken where takes_tile(its row of tiles) says so (for blockIdx.x's column
/// of tiles), and each of its elements in C stored (store_c) where stores(i, j) says so. kForms as
/// blocked_2d_tile's.
template <bool kForms = false, class TakesTile, class Stores>
__device__ __forceinline__ void blocked_2d_tiles(const GemmArgs& g, TakesTile takes_tile, Stores stores) {
  const int t = static_cast<int>(threadIdx.x);
  const int row0 = t / (k2dTile / k2dPer) * k2dPer, col0 = t % (k2dTile / k2dPer) * k2dPer;
  const int n0 = static_cast<int>(blockIdx.x) * k2dTile;
  for (int tile = static_cast<int>(blockIdx.y); tile * k2dTile < g.m; tile += static_cast<int>(gridDim.y)) {
    if (!takes_tile(tile)) continue;
    const int m0 = tile * k2dTile;
    float acc[k2dPer][k2dPer] = {};
    blocked_2d_tile<kForms>(g, m0, n0, acc);
#pragma unroll
    for (int r = 0; r < k2dPer; ++r)
#pragma unroll
      for (int c = 0; c < k2dPer; ++c) {
        const int i = m0 + row0 + r, j = n0 + col0 + c;
        if (i < g.m && j < g.n && stores(i, j)) store_c(g, i, j, acc[r][c]);
      }
  }
}
}  // namespace gpulab::sgemm_device
