// What every SGEMM kernel shares: the operands, the epilogue c = alpha·acc + beta·c, tile copies
// (plain or cp.async, with zero fill past the edges) and the warp-tiled kernel that rungs 7-8 and
// the library instantiate.
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

__device__ __forceinline__ void store_c(const GemmArgs& g, int i, int j, float acc) {
  float* c = g.c + static_cast<std::size_t>(i) * g.ldc + j;
  *c = epilogue(g, acc, c);
}

/// Four consecutive elements of row i from column j: one 16-byte access where the row is
/// 16-byte aligned and all four are inside, elements one by one otherwise.
__device__ __forceinline__ void store_c4(const GemmArgs& g, int i, int j, float4 acc) {
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

// ---- the warp-tiled kernel ------------------------------------------------------------------------------
//
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

/// What a block of a tiled kernel computes: its kBM × kBN tile of C at (m0, n0) (grouped_tile's
/// order) and k from k_begin to k_end (split-K: blockIdx.z's slice of k_slice) in `slices` steps of kBK.
struct BlockWork {
  int m0, n0, k_begin, k_end, slices;
  template <class T>
  __device__ static BlockWork of(const GemmArgs& g, int k_slice) {
    const int tiles_m = (g.m + T::kBM - 1) / T::kBM, tiles_n = (g.n + T::kBN - 1) / T::kBN;
    int tm, tn;
    grouped_tile(static_cast<int>(blockIdx.x), tiles_m, tiles_n, tm, tn);
    const int k_begin = static_cast<int>(blockIdx.z) * k_slice;
    const int k_end = min(g.k, k_begin + k_slice);
    return {tm * T::kBM, tn * T::kBN, k_begin, k_end, k_end > k_begin ? (k_end - k_begin + T::kBK - 1) / T::kBK : 0};
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

/// Four sums of row i from column j: to C through the epilogue, or, split-K (`partials`), raw to
/// partials[blockIdx.z][i][j…].
__device__ __forceinline__ void store_sums4(const GemmArgs& g, int i, int j, float4 sums, float* partials) {
  if (partials == nullptr) {
    store_c4(g, i, j, sums);
  } else if (i < g.m) {
    float* p = partials + (static_cast<std::size_t>(blockIdx.z) * g.m + i) * g.n + j;
    const float values[4] = {sums.x, sums.y, sums.z, sums.w};
    for (int q = 0; q < 4 && j + q < g.n; ++q) p[q] = values[q];
  }
}

/// A thread's sums of a tiled kernel to C (or split-K's partials): acc[c·4 + i][d·4 … d·4 + 3] are
/// row row_of(c, i), columns col0 + d·32 … + 3 (each warp's lanes 4 columns apart in 32-column bands).
template <int kRows, int kCols, class RowOf>
__device__ __forceinline__ void store_thread_tile(const GemmArgs& g, const float (&acc)[kRows][kCols], RowOf row_of, int col0,
                                                  float* partials) {
#pragma unroll
  for (int c = 0; c < kRows / 4; ++c)
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int d = 0; d < kCols / 4; ++d) {
        const float* r = acc[c * 4 + i] + d * 4;
        store_sums4(g, row_of(c, i), col0 + d * 32, {r[0], r[1], r[2], r[3]}, partials);
      }
}

template <int kWarpsM, int kWarpsN, int kFragsM, int kFragsN, int kStages, Copies kCopies>
__global__ void __launch_bounds__(WarpTiles<kWarpsM, kWarpsN, kFragsM, kFragsN, kStages, kCopies>::kThreads,
                                  WarpTiles<kWarpsM, kWarpsN, kFragsM, kFragsN, kStages, kCopies>::kMinBlocks)
    warp_tiles(GemmArgs g, int k_slice, float* partials) {
  using T = WarpTiles<kWarpsM, kWarpsN, kFragsM, kFragsN, kStages, kCopies>;
  extern __shared__ float4 smem4[];
  float* const smem = reinterpret_cast<float*>(smem4);

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

// ---- the big-tile kernel: fragments double-buffered in registers -----------------------------------------
//
// What it adds over the warp-tiled kernel:
// - kChunksM = 4: a thread tile of 16 × 8 (a block of 128 × 256, warps of 64 × 64; cuBLAS's SIMT
//   layout, 255 registers a thread, one block of 8 warps an SM): 6 shared loads feed 128 FMAs.
//   kChunksM = 2: 8 × 8 (a block of 128 × 128, warps of 32 × 64) within 128 registers, so that two
//   blocks share an SM: 4 shared loads feed 64 FMAs, but a scheduler has 4 warps to choose from
//   where the other has 2;
// - A stored transposed in shared memory (as[k][m]), so a lane's 16 values of A at one k are
//   4 float4 loads. kStages = 0: a 16-byte cp.async cannot transpose, so the next slice's global
//   loads wait in registers while the current slice's FMAs run, and are stored to the other of two
//   shared buffers: one barrier a slice. kStages ≥ 3 (the `staged` rung): 4-byte cp.async copies
//   put each of A's values in its transposed place, as cuBLAS's SIMT kernels do, kStages − 1
//   slices ahead, with no staging registers (below, at copy_whole);
// - the fragments of step k + 1 loaded while step k's FMAs run (two register sets), so the FMAs
//   wait on no shared load;
// - tiles wholly inside the matrices load full slices without a bounds test: the edge path's
//   counts and branches, run every slice, cost 5% more instructions and 5% of the time at 4096³
//   (H100: 3.135 → 2.982 ms for 16 × 8);
// - with 16 × 8, the FMAs two rows of A at a time across the columns (kPairedRows).
// Lanes form 4 (ly) × 8 (lx): rows c·16 + ly·4 … + 3 (c < kChunksM) and columns c·32 + lx·4 … + 3 (c < 2)
// of the warp's tile, so a warp's load of A reads 4 distinct float4 and of B 8, consecutive and
// broadcast: one shared wavefront each. As's rows hold 4 floats of padding, so that the lanes'
// transposing stores (rows t/2, k groups t%2) fall in 32 distinct banks.
// kVector: 16-byte global loads (rows 16-byte aligned); otherwise 4 bytes at a time. Plain loads
// read only valid elements, so no guarded form is needed.
// kBlockRows 64 (with 8 × 8 a thread): 64 × 128 tiles of 4 warps, cuBLAS's tile for products of a
// few hundred tiles (1000³ and the like), four blocks an SM at 128 registers.
template <int kChunksM, int kBlockRows = 128>
struct BigTiles {
  static constexpr int kRows = 4 * kChunksM, kCols = 8;  // a thread's
  static constexpr int kWM = 16 * kChunksM, kWN = 64, kBM = kBlockRows, kBK = 8, kThreads = 2 * kBM;
  static constexpr int kWarpsM = kBM / kWM, kBN = kThreads / 32 / kWarpsM * kWN;
  static constexpr int kMinBlocks = kChunksM == 4 ? 1 : 256 / kThreads * 2;
  static constexpr int kAStride = kBM + 4;
  // B's copies: kBPer float4 a thread, rows kBRowStep apart.
  static constexpr int kBUnits = kBN / 4, kBPer = kBK * kBUnits / kThreads, kBRowStep = kThreads / kBUnits;
  static_assert(kBM * kBK == 4 * kThreads, "A's slice is one float4 a thread");
};

/// The FMAs two rows of A at a time (below) where that measured faster: the 16 × 8 tile with
/// 16-byte loads, 1.04× at 4096³, 8192³ and 5000×3000×700 on the H100 against cuBLAS's order (two
/// B columns down the rows), itself 1.02× against one A value across the 8 B values. With 4-byte
/// loads it times level (0.99× at 4097³); for 8 × 8 its SASS has twice the same-bank operand pairs.
template <int kChunksM, bool kVector>
constexpr bool kPairedRows = kChunksM == 4 && kVector;

/// The first `count` (≤ 4) of p[0..3], zeros after them; one 16-byte load when all four are
/// wanted and kVector (p then 16-byte aligned).
template <bool kVector>
__device__ __forceinline__ float4 load4_first(const float* p, int count) {
  if (kVector && count == 4) return *reinterpret_cast<const float4*>(p);
  return {count > 0 ? p[0] : 0.f, count > 1 ? p[1] : 0.f, count > 2 ? p[2] : 0.f, count > 3 ? p[3] : 0.f};
}

template <int kChunksM, bool kVector, int kBlockRows = 128, int kStages = 0>
__global__ void __launch_bounds__(BigTiles<kChunksM, kBlockRows>::kThreads, BigTiles<kChunksM, kBlockRows>::kMinBlocks)
    big_tiles(GemmArgs g, int k_slice, float* partials) {
  using T = BigTiles<kChunksM, kBlockRows>;
  constexpr bool kAsync = kStages > 0;
  constexpr int kBuffers = kAsync ? kStages : 2;
  static_assert(!kAsync || kStages >= 3, "cp.async fills a stage beside the one read and the one read next");
  __shared__ __align__(16) float as[kBuffers][T::kBK][T::kAStride];
  __shared__ __align__(16) float bs[kBuffers][T::kBK][T::kBN];

  const auto [m0, n0, k_begin, k_end, slices] = BlockWork::of<T>(g, k_slice);

  const int t = static_cast<int>(threadIdx.x), warp = t / 32, lane = t % 32;
  const int warp_m = warp % T::kWarpsM * T::kWM, warp_n = warp / T::kWarpsM * T::kWN;
  const int ly = lane / 8, lx = lane % 8;

  // The thread's global loads a slice: A's row a_row, k from a_k (one float4); B's rows b_row +
  // r·kBRowStep, columns from b_col (kBPer float4).
  const int a_row = t / 2, a_k = t % 2 * 4, b_row = t / T::kBUnits, b_col = t % T::kBUnits * 4;
  const float* a_src = g.a + static_cast<std::size_t>(min(m0 + a_row, g.m - 1)) * g.lda + k_begin + a_k;
  const float* b_src = g.b + static_cast<std::size_t>(k_begin + b_row) * g.ldb + n0 + b_col;
  const bool a_row_in = m0 + a_row < g.m;
  const int b_cols = max(0, min(4, g.n - (n0 + b_col)));

  // Tiles with all their rows and columns inside the matrices read full slices without a test.
  const bool interior = m0 + T::kBM <= g.m && n0 + T::kBN <= g.n;
  const std::ptrdiff_t b_row_step = static_cast<std::ptrdiff_t>(T::kBRowStep) * static_cast<std::ptrdiff_t>(g.ldb);

  float4 a_next, b_next[T::kBPer];
  auto load_global = [&](int s) {
    const int k0 = s * T::kBK;
    if (interior && k_begin + k0 + T::kBK <= k_end) {
      const float* b_slice = b_src + static_cast<std::ptrdiff_t>(k0) * static_cast<std::ptrdiff_t>(g.ldb);
      a_next = load4_first<kVector>(a_src + k0, 4);
#pragma unroll
      for (int r = 0; r < T::kBPer; ++r) b_next[r] = load4_first<kVector>(b_slice + r * b_row_step, 4);
      return;
    }
    a_next = load4_first<kVector>(a_src + k0, a_row_in ? max(0, min(4, k_end - (k_begin + k0 + a_k))) : 0);
#pragma unroll
    for (int r = 0; r < T::kBPer; ++r) {
      const int k = k_begin + k0 + b_row + T::kBRowStep * r;
      b_next[r] = load4_first<kVector>(
          b_src + static_cast<std::ptrdiff_t>(k0 + T::kBRowStep * r) * static_cast<std::ptrdiff_t>(g.ldb), k < k_end ? b_cols : 0);
    }
  };
  auto store_shared = [&](int buf) {
    as[buf][a_k + 0][a_row] = a_next.x;
    as[buf][a_k + 1][a_row] = a_next.y;
    as[buf][a_k + 2][a_row] = a_next.z;
    as[buf][a_k + 3][a_row] = a_next.w;
#pragma unroll
    for (int r = 0; r < T::kBPer; ++r) *reinterpret_cast<float4*>(&bs[buf][b_row + T::kBRowStep * r][b_col]) = b_next[r];
  };
  // kStages ≥ 3: slices copied straight into their stage, A's values one 4-byte cp.async each to
  // their transposed places, B's 16 bytes at a time (4 where its rows are not 16-byte aligned, or
  // where a partial vector could address past the matrix's last row). A thread copies A's k = t % 8
  // of rows t / 8 + q·kBM / 4: a warp's copy reads 4 rows' 32 bytes (4 sectors, not the 16 of a
  // float4 a thread) and writes 32 distinct banks (row stride 4 mod 32). The slices are counted
  // back from k_end: slice 0 holds the ragged part (from k_first, zeros below k_begin), so that in
  // a tile inside the matrices every later slice is whole and copied without a test. The sums are
  // the same bits: a thread adds its products in ascending k either way, and 0·0 changes none.
  const int ac_k = t % 8, ac_row = t / 8;
  constexpr int kARowStep = T::kBM / 4;
  const int k_first = k_end - slices * T::kBK;
  const std::ptrdiff_t ac_step = static_cast<std::ptrdiff_t>(kARowStep) * static_cast<std::ptrdiff_t>(g.lda);
  const float* ac_row_start = g.a + static_cast<std::size_t>(min(m0 + ac_row, g.m - 1)) * g.lda + ac_k;
  // B's 4-byte copies (rows not 16-byte aligned): a thread's 4 columns kBUnits apart, from
  // bc_col = t % kBUnits, so that a warp's copy reads 128 consecutive bytes (4 from each of 32
  // lanes' float4 places would span 512).
  const int bc_col = kVector ? b_col : t % T::kBUnits;
  constexpr int kBColStep = kVector ? 1 : T::kBUnits;
  using Copy = TileCopy<true>;  // the warp tiles' cp.async copies, zero-filled where not valid
  // Whole slices from running pointers: a_run at A's (row ac_row, k), b_run at B's (row k + b_row, col bc_col).
  auto copy_whole = [&](const float* a_run, const float* b_run, int stage) {
#pragma unroll
    for (int q = 0; q < 4; ++q) Copy::one_at(&as[stage][ac_k][ac_row + q * kARowStep], a_run + q * ac_step, true);
#pragma unroll
    for (int r = 0; r < T::kBPer; ++r) {
      float* dst = &bs[stage][b_row + T::kBRowStep * r][bc_col];
      if constexpr (kVector) {
        Copy::four_at(dst, b_run + r * b_row_step, 16);
      } else {
#pragma unroll
        for (int q = 0; q < 4; ++q) Copy::one_at(dst + q * kBColStep, b_run + r * b_row_step + q * kBColStep, true);
      }
    }
  };
  auto copy_checked = [&](int s, int stage) {
    const int k = k_first + s * T::kBK;  // k + 7 < k_end
    const bool a_k_in = k + ac_k >= k_begin;
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const bool valid = a_k_in && m0 + ac_row + q * kARowStep < g.m;
      Copy::one_at(&as[stage][ac_k][ac_row + q * kARowStep], valid ? ac_row_start + q * ac_step + k : g.a, valid);
    }
#pragma unroll
    for (int r = 0; r < T::kBPer; ++r) {
      const int row = k + b_row + T::kBRowStep * r;
      // 4-byte copies, then `continue`; the 16-byte form below is written as it was measured
      // (an else, or its `kVector &&` dropped, changes that form's SASS; cuobjdump compared).
      if constexpr (!kVector) {
        float* dst = &bs[stage][b_row + T::kBRowStep * r][bc_col];
        const float* src = g.b + static_cast<std::size_t>(max(row, 0)) * g.ldb + n0 + bc_col;
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          const bool valid = row >= k_begin && n0 + bc_col + q * kBColStep < g.n;
          Copy::one_at(dst + q * kBColStep, valid ? src + q * kBColStep : g.b, valid);
        }
        continue;
      }
      const int cols = row >= k_begin ? b_cols : 0;
      const float* src = cols > 0 ? g.b + static_cast<std::size_t>(row) * g.ldb + n0 + b_col : g.b;
      float* dst = &bs[stage][b_row + T::kBRowStep * r][b_col];
      if (kVector && (cols == 4 || cols == 0)) {
        Copy::four_at(dst, src, 4 * cols);
      } else {
#pragma unroll
        for (int q = 0; q < 4; ++q) Copy::one_at(dst + q, q < cols ? src + q : g.b, q < cols);
      }
    }
  };

  float a[2][T::kRows], b[2][T::kCols];
  auto load_fragments = [&](int buf, int k, float (&fa)[T::kRows], float (&fb)[T::kCols]) {
#pragma unroll
    for (int c = 0; c < kChunksM; ++c)
      *reinterpret_cast<float4*>(fa + 4 * c) = *reinterpret_cast<const float4*>(&as[buf][k][warp_m + c * 16 + ly * 4]);
#pragma unroll
    for (int c = 0; c < 2; ++c)
      *reinterpret_cast<float4*>(fb + 4 * c) = *reinterpret_cast<const float4*>(&bs[buf][k][warp_n + c * 32 + lx * 4]);
  };

  float acc[T::kRows][T::kCols] = {};
  // Step k's FMAs, on the fragments in register set k % 2.
  auto multiply = [&](int k) {
    if constexpr (kPairedRows<kChunksM, kVector>) {
      // Two rows of A walked across the columns of B, the columns' direction reversed at each
      // pair: consecutive FMAs share their B value and both A values stay in the operand reuse
      // cache (SASS: 1.99 register reads an FFMA, 12.6% same-bank pairs; docs/sgemm.md).
#pragma unroll
      for (int i = 0; i < T::kRows; i += 2)
#pragma unroll
        for (int r = 0; r < T::kCols; ++r) {
          const int j = i / 2 % 2 ? T::kCols - 1 - r : r;
          acc[i][j] = fmaf(a[k % 2][i], b[k % 2][j], acc[i][j]);
          acc[i + 1][j] = fmaf(a[k % 2][i + 1], b[k % 2][j], acc[i + 1][j]);
        }
    } else {
#pragma unroll
      for (int i = 0; i < T::kRows; ++i)
#pragma unroll
        for (int j = 0; j < T::kCols; ++j) acc[i][j] = fmaf(a[k % 2][i], b[k % 2][j], acc[i][j]);
    }
  };

  if constexpr (!kAsync) {
    if (slices > 0) {
      load_global(0);
      store_shared(0);
      __syncthreads();
      load_fragments(0, 0, a[0], b[0]);
    }
    for (int s = 0; s < slices; ++s) {
      const int buf = s & 1;
      const bool more = s + 1 < slices;
      if (more) load_global(s + 1);  // in flight during this slice's FMAs
#pragma unroll
      for (int k = 0; k < T::kBK; ++k) {
        if (k == T::kBK - 1 && more) {
          // The other buffer was last read before the previous slice's barrier: free to fill.
          store_shared(buf ^ 1);
          __syncthreads();
        }
        if (k < T::kBK - 1)
          load_fragments(buf, k + 1, a[(k + 1) % 2], b[(k + 1) % 2]);
        else if (more)
          load_fragments(buf ^ 1, 0, a[0], b[0]);
        multiply(k);
      }
    }
  } else {
    // whole_tile: the tile is inside the matrices and holds at least kStages slices, so every
    // slice past the prologue's is copied without a test: a loop of its own, with no branch.
    // Not run_slices (the warp tiles' ring): its barrier comes when a slice's stage is needed,
    // and here slice s + 1 must have landed a slice early, for its first fragments (below).
    auto staged_loop = [&](auto whole_tile) {
      [[maybe_unused]] constexpr bool kWhole = decltype(whole_tile)::value;
      int stage = 0, next = 1;  // slice s's stage, s % kStages, and slice s + 1's
      // whole_tile: the next slice to copy, slice kStages − 1 (the prologue's are checked).
      [[maybe_unused]] const float* a_run = ac_row_start + k_first + (kStages - 1) * T::kBK;
      [[maybe_unused]] const float* b_run =
          g.b + static_cast<std::ptrdiff_t>(k_first + (kStages - 1) * T::kBK + b_row) * static_cast<std::ptrdiff_t>(g.ldb) + n0 + bc_col;
#pragma unroll
      for (int s = 0; s < kStages - 1; ++s) {
        if (s < slices) copy_checked(s, s);
        cp_async_commit();  // an empty group keeps the count of pending groups uniform
      }
      cp_async_wait<kStages - 2>();
      __syncthreads();
      if (slices > 0) load_fragments(0, 0, a[0], b[0]);
      for (int s = 0; s < slices; ++s) {
        const bool more = s + 1 < slices;
        // The barrier a slice early: slice s + 1 has landed for every thread, so its first
        // fragments can be loaded anywhere in this slice, far from their use (at the slice's end
        // the compiler moved the last step's FMAs above the barrier, and the next slice's first
        // FMAs waited on those loads: ncu's most sampled stall). After it, no thread reads the
        // stage of slice s − 1: slice s + kStages − 1 is copied there.
        cp_async_wait<kStages - 3>();
        __syncthreads();
        const int ahead = s + kStages - 1, free_stage = stage == 0 ? kStages - 1 : stage - 1;
        if constexpr (kWhole) {
          // No branch: past the last slice the last is copied again, into a stage that no later
          // slice reads (the slices left hold fewer than kStages stages).
          copy_whole(a_run, b_run, free_stage);
          if (ahead < slices - 1) {
            a_run += T::kBK;
            b_run += T::kBK * static_cast<std::ptrdiff_t>(g.ldb);
          }
        } else if (ahead < slices) {
          copy_checked(ahead, free_stage);
        }
        cp_async_commit();
#pragma unroll
        for (int k = 0; k < T::kBK; ++k) {
          if (k < T::kBK - 1)
            load_fragments(stage, k + 1, a[(k + 1) % 2], b[(k + 1) % 2]);
          else if (more)
            load_fragments(next, 0, a[0], b[0]);
          multiply(k);
        }
        stage = next;
        next = next + 1 == kStages ? 0 : next + 1;
      }
    };
    if (interior && slices >= kStages)
      staged_loop(std::true_type{});
    else
      staged_loop(std::false_type{});
    cp_async_wait<0>();
  }

  // Rows consecutive in each 16-row band: ly·4 … ly·4 + 3.
  store_thread_tile(g, acc, [&](int c, int i) { return m0 + warp_m + c * 16 + ly * 4 + i; }, n0 + warp_n + lx * 4, partials);
}

/// Split-K's second step: c = alpha·Σ_z partials[z] + beta·c, the slices added in order.
__global__ void add_slices(GemmArgs g, int splits, const float* partials);
/// The same for deep slicings of few elements: `depth` warps share an element's slices.
__global__ void add_slices_deep(GemmArgs g, int splits, int depth, const float* partials);

}  // namespace gpulab::sgemm_device
