// The big-tile SGEMM kernel: rungs 9 (fragments double-buffered in registers) and 10 (cp.async
// into 3 stages) of the ladder, and the library's tiles for the large products.
#pragma once

#include <utility>

#include "sgemm/sgemm_device.cuh"

namespace gpulab::sgemm_device {

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
// kSliceK: a slice's depth, 8; 16 for the staged kernel where A and B both run along k (deep_slices).
template <int kChunksM, int kBlockRows = 128, int kSliceK = 8>
struct BigTiles {
  static constexpr int kRows = 4 * kChunksM, kCols = 8;  // a thread's
  static constexpr int kWM = 16 * kChunksM, kWN = 64, kBM = kBlockRows, kBK = kSliceK, kThreads = 2 * kBM;
  static constexpr int kWarpsM = kBM / kWM, kBN = kThreads / 32 / kWarpsM * kWN;
  static constexpr int kMinBlocks = kChunksM == 4 ? 1 : 256 / kThreads * 2;
  static constexpr int kAStride = kBM + 4;
  // B's copies: kBPer float4 a thread, rows kBRowStep apart.
  static constexpr int kBUnits = kBN / 4, kBPer = kBK * kBUnits / kThreads, kBRowStep = kThreads / kBUnits;
  static_assert(kBK == 16 || kBM * kBK == 4 * kThreads, "A's slice is one float4 a thread (rung 9's copies)");
  /// Bs's row: padded by 4 floats where B is stored transposed, so that its transposing copies
  /// fall in 32 distinct banks as A's do.
  template <bool kBTransposed>
  static constexpr int kBStride = kBTransposed ? kBN + 4 : kBN;
};

/// Slices 16 deep (staged, A as stored, B stored n × k): both operands go to transposed places by
/// 4-byte cp.async, and a warp's copy of an 8-deep slice reads 32 bytes of each of 4 rows: 4 L1
/// wavefronts for 128 bytes, twice N,N's count in all (docs/sgemm.md). 16 deep, a warp's copy reads
/// 64 bytes of 2 rows: 2 wavefronts. Their shared rows stay padded by 4 floats, and values at
/// k ≥ 8 of the slice are stored at m ^ 2 (and n ^ 2), so that k and k + 8 of a row, 32 floats apart,
/// fall in different banks; the fragments' loads read them back with the two pairs swapped.
/// (16 × 8 a thread; 8 × 8 at 128 registers spills with them.)
template <int kChunksM, int kStages, bool kATransposed, bool kBTransposed>
constexpr bool deep_slices = kChunksM == 4 && kStages > 0 && !kATransposed && kBTransposed;

/// The shared memory of a big-tile kernel, A's stages then B's.
template <class T, int kStages, bool kBTransposed>
constexpr std::size_t big_tiles_smem_bytes() {
  const std::size_t buffers = kStages > 0 ? kStages : 2;
  return buffers * T::kBK * (T::kAStride + T::template kBStride<kBTransposed>)*sizeof(float);
}

/// A big-tile kernel's stages of A and of B in shared memory: static arrays, or past the 48 KiB a
/// block may hold statically (deep slices) dynamic shared memory, launched with sizeof both.
template <class ATiles, class BTiles, bool kDynamic>
__device__ __forceinline__ std::pair<ATiles*, BTiles*> shared_tiles() {
  if constexpr (kDynamic) {
    extern __shared__ __align__(16) unsigned char dynamic_smem[];
    return {reinterpret_cast<ATiles*>(dynamic_smem), reinterpret_cast<BTiles*>(dynamic_smem + sizeof(ATiles))};
  } else {
    __shared__ __align__(16) ATiles as;
    __shared__ __align__(16) BTiles bs;
    return {&as, &bs};
  }
}

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

/// One operand's copies in rung 9 (kStages = 0): a slice loaded into registers a slice ahead, then
/// stored to shared memory, xs[k][m or n] (`stride` floats a row), after the slice's FMAs. kAlongK:
/// the stored rows run along k (A as stored, B stored transposed): a thread loads a float4 along k of
/// stored rows t / 2 + r·kThreads / 2 and stores its four values to their transposed places;
/// otherwise (A stored transposed, B as stored) a float4 along m or n of stored rows t / kUnits +
/// r·kRowStep, stored as it is.
template <int kMN, int kThreads, int kBK, bool kAlongK, bool kVector>
struct RegisterCopy {
  static constexpr int kUnits = (kAlongK ? kBK : kMN) / 4;  // float4 a stored row of a slice
  static constexpr int kRowStep = kThreads / kUnits, kLoads = kMN * kBK / 4 / kThreads;
  static_assert(kLoads >= 1 && kRowStep * kUnits == kThreads);
  const float* src;                     // the thread's first float4 of the block's first slice
  std::ptrdiff_t row_step, slice_step;  // from a load to the next; from a slice to the next
  int unit_mn, unit_k;                  // its first float4's place in the tile
  float4 next[kLoads];

  /// A stored matrix (leading dimension ld) whose tile starts at m or n = mn0 and k = k_begin;
  /// `extent`: m or n.
  __device__ RegisterCopy(const float* p, std::size_t ld, int mn0, int extent, int k_begin) {
    const int t = static_cast<int>(threadIdx.x);
    const auto stored_ld = static_cast<std::ptrdiff_t>(ld);
    row_step = kRowStep * stored_ld;
    if constexpr (kAlongK) {
      unit_mn = t / kUnits, unit_k = t % kUnits * 4;
      src = p + static_cast<std::size_t>(min(mn0 + unit_mn, extent - 1)) * ld + k_begin + unit_k;
      slice_step = kBK;
    } else {
      unit_k = t / kUnits, unit_mn = t % kUnits * 4;
      src = p + static_cast<std::ptrdiff_t>(k_begin + unit_k) * stored_ld + mn0 + unit_mn;
      slice_step = kBK * stored_ld;
    }
  }
  /// Slice s; `whole`: the tile and the slice lie inside the matrix (no test), else zeros outside
  /// m or n (extent, from mn0) and past k_end.
  __device__ __forceinline__ void load(int s, bool whole, int mn0, int extent, int k_begin, int k_end) {
    const float* p = src + s * slice_step;
    const int k = k_begin + s * kBK + unit_k;
#pragma unroll
    for (int r = 0; r < kLoads; ++r) {
      int count = 4;
      if (!whole) {
        if constexpr (kAlongK) count = mn0 + unit_mn + r * kRowStep < extent ? max(0, min(4, k_end - k)) : 0;
        else count = k + r * kRowStep < k_end ? max(0, min(4, extent - (mn0 + unit_mn))) : 0;
      }
      next[r] = load4_first<kVector>(p + r * row_step, count);
    }
  }
  __device__ __forceinline__ void store(float* xs, int stride) const {
#pragma unroll
    for (int r = 0; r < kLoads; ++r) {
      if constexpr (kAlongK) {
        float* d = xs + unit_k * stride + unit_mn + r * kRowStep;
        d[0] = next[r].x, d[stride] = next[r].y, d[2 * stride] = next[r].z, d[3 * stride] = next[r].w;
      } else {
        *reinterpret_cast<float4*>(xs + (unit_k + r * kRowStep) * stride + unit_mn) = next[r];
      }
    }
  }
};

// kATransposed, kBTransposed: an operand stored transposed (A as k × m, B as n × k, GemmArgs) is
// read in place. Both operands land in shared memory as they always do, as[k][m] and bs[k][n], so
// the FMAs are the same; only their copies change sides. A stored k × m runs along m, as B's rows
// run along n: it is copied as B is, 16 bytes at a time, straight to its places. B stored n × k
// runs along k, as A's rows do: it is copied as A is (RegisterCopy; in the staged kernel 4 bytes a
// value), to its transposed places, into rows padded as A's are.
// kCTransposed: g is the product transposed (Cᵀ = op(B)ᵀ·op(A)ᵀ, m and n swapped, launch_big's for
// A and B both stored transposed), and the tile's rows are stored as C's columns.
template <int kChunksM, bool kVector, int kBlockRows = 128, int kStages = 0, bool kATransposed = false, bool kBTransposed = false,
          bool kCTransposed = false>
__global__ void __launch_bounds__(BigTiles<kChunksM, kBlockRows>::kThreads, BigTiles<kChunksM, kBlockRows>::kMinBlocks)
    big_tiles(GemmArgs g, int k_slice, float* partials) {
  constexpr bool kDeep = deep_slices<kChunksM, kStages, kATransposed, kBTransposed>;
  using T = BigTiles<kChunksM, kBlockRows, kDeep ? 16 : 8>;
  constexpr bool kAsync = kStages > 0;
  constexpr int kBuffers = kAsync ? kStages : 2;
  static_assert(!kAsync || kStages >= 3, "cp.async fills a stage beside the one read and the one read next");
  using ATiles = float[kBuffers][T::kBK][T::kAStride];
  using BTiles = float[kBuffers][T::kBK][T::template kBStride<kBTransposed>];
  const auto [as_tiles, bs_tiles] = shared_tiles<ATiles, BTiles, kDeep>();
  ATiles& as = *as_tiles;
  BTiles& bs = *bs_tiles;
  // Deep slices: where a row's (or column's) value at k of a slice lies in its shared row.
  [[maybe_unused]] const auto placed = [](int k, int mn) { return kDeep && k >= 8 ? mn ^ 2 : mn; };

  g = g.member(blockIdx.y);  // a batch's member (GemmArgs::batch)
  const auto [m0, n0, k_begin, k_end, slices] = BlockWork::of<T>(g, k_slice);

  const int t = static_cast<int>(threadIdx.x), warp = t / 32, lane = t % 32;
  const int warp_m = warp % T::kWarpsM * T::kWM, warp_n = warp / T::kWarpsM * T::kWN;
  const int ly = lane / 8, lx = lane % 8;

  // The thread's B copies of the staged kernel (kStages ≥ 3), as stored: rows b_row + r·kBRowStep,
  // columns from b_col (kBPer float4).
  const int b_row = t / T::kBUnits, b_col = t % T::kBUnits * 4;
  const int b_cols = max(0, min(4, g.n - (n0 + b_col)));

  // Tiles with all their rows and columns inside the matrices read full slices without a test.
  const bool interior = m0 + T::kBM <= g.m && n0 + T::kBN <= g.n;
  const std::ptrdiff_t b_row_step = static_cast<std::ptrdiff_t>(T::kBRowStep) * static_cast<std::ptrdiff_t>(g.ldb);

  // kStages = 0: each operand's slice through registers (RegisterCopy).
  RegisterCopy<T::kBM, T::kThreads, T::kBK, !kATransposed, kVector> a_copy(g.a, g.lda, m0, g.m, k_begin);
  RegisterCopy<T::kBN, T::kThreads, T::kBK, kBTransposed, kVector> b_copy(g.b, g.ldb, n0, g.n, k_begin);
  auto load_global = [&](int s) {
    const bool whole = interior && k_begin + (s + 1) * T::kBK <= k_end;
    a_copy.load(s, whole, m0, g.m, k_begin, k_end);
    b_copy.load(s, whole, n0, g.n, k_begin, k_end);
  };
  auto store_shared = [&](int buf) {
    a_copy.store(&as[buf][0][0], T::kAStride);
    b_copy.store(&bs[buf][0][0], T::template kBStride<kBTransposed>);
  };
  // kStages ≥ 3: slices copied straight into their stage, A's values one 4-byte cp.async each to
  // their transposed places, B's 16 bytes at a time (4 where its rows are not 16-byte aligned, or
  // where a partial vector could address past the matrix's last row). A thread copies A's k = t % 8
  // of rows t / 8 + q·kBM / 4: a warp's copy reads 4 rows' 32 bytes (4 sectors, not the 16 of a
  // float4 a thread) and writes 32 distinct banks (row stride 4 mod 32). The slices are counted
  // back from k_end: slice 0 holds the ragged part (from k_first, zeros below k_begin), so that in
  // a tile inside the matrices every later slice is whole and copied without a test. The sums are
  // the same bits: a thread adds its products in ascending k either way, and 0·0 changes none.
  // (Deep slices: k = t % 16 of rows t / 16 + q·kThreads / 16, 2 rows' 64 bytes a warp.)
  const int ac_k = t % T::kBK, ac_row = t / T::kBK;
  constexpr int kARowStep = T::kThreads / T::kBK, kACopies = T::kBM / kARowStep;
  const int k_first = k_end - slices * T::kBK;
  const std::ptrdiff_t ac_step = static_cast<std::ptrdiff_t>(kARowStep) * static_cast<std::ptrdiff_t>(g.lda);
  const float* ac_row_start = g.a + static_cast<std::size_t>(min(m0 + ac_row, g.m - 1)) * g.lda + ac_k;
  // B's 4-byte copies (rows not 16-byte aligned): a thread's 4 columns kBUnits apart, from
  // bc_col = t % kBUnits, so that a warp's copy reads 128 consecutive bytes (4 from each of 32
  // lanes' float4 places would span 512).
  const int bc_col = kVector ? b_col : t % T::kBUnits;
  constexpr int kBColStep = kVector ? 1 : T::kBUnits;
  using Copy = TileCopy<true>;  // the warp tiles' cp.async copies, zero-filled where not valid
  // A stored k × m, copied as B is: a thread's float4 of stored row at_k from column m0 + at_m
  // (4-byte copies kAUnits apart where rows are not 16-byte aligned), one a thread a slice.
  constexpr int kAUnits = T::kBM / 4, kAColStep = kVector ? 1 : kAUnits;
  static_assert(kDeep || T::kBK * kAUnits == T::kThreads, "A's slice, stored k x m, is one float4 a thread");
  [[maybe_unused]] const int at_k = t / kAUnits, at_m = kVector ? t % kAUnits * 4 : t % kAUnits;
  // B stored n × k, copied as A is: k = ac_k of stored rows (B's columns) ac_row + q·kBTColStep.
  constexpr int kBTColStep = kARowStep, kBTPer = T::kBN / kBTColStep;
  [[maybe_unused]] const int bt_k = ac_k, bt_n = ac_row;
  [[maybe_unused]] const std::ptrdiff_t bt_step = static_cast<std::ptrdiff_t>(kBTColStep) * static_cast<std::ptrdiff_t>(g.ldb);
  [[maybe_unused]] const float* bt_row_start = g.b + static_cast<std::size_t>(min(n0 + bt_n, g.n - 1)) * g.ldb + bt_k;
  // Where copy q along k lands in a stage: A's row ac_row + q·kARowStep, B's (stored n × k) column
  // bt_n + q·kBTColStep, at k = ac_k.
  [[maybe_unused]] const auto a_place = [&](int stage, int q) { return &as[stage][ac_k][placed(ac_k, ac_row + q * kARowStep)]; };
  [[maybe_unused]] const auto bt_place = [&](int stage, int q) { return &bs[stage][bt_k][placed(bt_k, bt_n + q * kBTColStep)]; };
  // Whole slices from running pointers: a_run at A's (row ac_row, k), b_run at B's (row k + b_row,
  // col bc_col); stored transposed, a_run at A's stored (row k + at_k, col m0 + at_m), b_run at
  // B's stored (row n0 + bt_n, col k + bt_k).
  auto copy_whole = [&](const float* a_run, const float* b_run, int stage) {
    if constexpr (kATransposed) {
      float* dst = &as[stage][at_k][at_m];
      if constexpr (kVector) {
        Copy::four_at(dst, a_run, 16);
      } else {
#pragma unroll
        for (int q = 0; q < 4; ++q) Copy::one_at(dst + q * kAColStep, a_run + q * kAColStep, true);
      }
    } else {
#pragma unroll
      for (int q = 0; q < kACopies; ++q) Copy::one_at(a_place(stage, q), a_run + q * ac_step, true);
    }
    if constexpr (kBTransposed) {
#pragma unroll
      for (int q = 0; q < kBTPer; ++q) Copy::one_at(bt_place(stage, q), b_run + q * bt_step, true);
    } else {
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
    }
  };
  // Deep slices: a whole slice's 24 copies issued 2 a step over its first 12 steps; issued at once
  // they queued behind each other (long-scoreboard stalls 0.27 an issue, af39732-ncu).
  constexpr int kCopiesAStep = 2, kCopySteps = (kACopies + kBTPer) / kCopiesAStep;
  static_assert(!kDeep || kCopySteps * kCopiesAStep == kACopies + kBTPer);
  [[maybe_unused]] auto copy_whole_step = [&](const float* a_run, const float* b_run, int stage, int step) {
#pragma unroll
    for (int i = step * kCopiesAStep; i < (step + 1) * kCopiesAStep; ++i) {
      if (i < kACopies) {
        Copy::one_at(a_place(stage, i), a_run + i * ac_step, true);
      } else {
        const int q = i - kACopies;
        Copy::one_at(bt_place(stage, q), b_run + q * bt_step, true);
      }
    }
  };
  auto copy_checked = [&](int s, int stage) {
    const int k = k_first + s * T::kBK;  // k + kBK − 1 < k_end
    if constexpr (kATransposed) {
      const int row = k + at_k;
      const bool k_in = row >= k_begin;
      const float* src = g.a + static_cast<std::size_t>(max(row, 0)) * g.lda + m0 + at_m;
      float* dst = &as[stage][at_k][at_m];
      const int cols = k_in ? max(0, min(4, g.m - (m0 + at_m))) : 0;
      if (kVector && (cols == 4 || cols == 0)) {
        Copy::four_at(dst, cols > 0 ? src : g.a, 4 * cols);
      } else {
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          const bool valid = k_in && m0 + at_m + q * kAColStep < g.m;
          Copy::one_at(dst + q * kAColStep, valid ? src + q * kAColStep : g.a, valid);
        }
      }
    } else {
      const bool a_k_in = k + ac_k >= k_begin;
#pragma unroll
      for (int q = 0; q < kACopies; ++q) {
        const bool valid = a_k_in && m0 + ac_row + q * kARowStep < g.m;
        Copy::one_at(a_place(stage, q), valid ? ac_row_start + q * ac_step + k : g.a, valid);
      }
    }
    if constexpr (kBTransposed) {
      const bool k_in = k + bt_k >= k_begin;
#pragma unroll
      for (int q = 0; q < kBTPer; ++q) {
        const bool valid = k_in && n0 + bt_n + q * kBTColStep < g.n;
        Copy::one_at(bt_place(stage, q), valid ? bt_row_start + q * bt_step + k : g.b, valid);
      }
    } else {
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
    }
  };

  float a[2][T::kRows], b[2][T::kCols];
  // Four values of a shared row into f[0..3]; with deep slices at k ≥ 8 they lie at places ^ 2,
  // so the float4's pairs are swapped back (register names only).
  const auto take4 = [](float* f, const float* src, bool swapped) {
    if (swapped) {
      const float4 v = *reinterpret_cast<const float4*>(src);
      f[0] = v.z, f[1] = v.w, f[2] = v.x, f[3] = v.y;
    } else {
      *reinterpret_cast<float4*>(f) = *reinterpret_cast<const float4*>(src);
    }
  };
  auto load_fragments = [&](int buf, int k, float (&fa)[T::kRows], float (&fb)[T::kCols]) {
    const bool swapped = kDeep && k >= 8;
#pragma unroll
    for (int c = 0; c < kChunksM; ++c) take4(fa + 4 * c, &as[buf][k][warp_m + c * 16 + ly * 4], swapped);
#pragma unroll
    for (int c = 0; c < 2; ++c) take4(fb + 4 * c, &bs[buf][k][warp_n + c * 32 + lx * 4], swapped);
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
      const int k_next = k_first + (kStages - 1) * T::kBK;
      [[maybe_unused]] const float* a_run =
          kATransposed ? g.a + static_cast<std::ptrdiff_t>(k_next + at_k) * static_cast<std::ptrdiff_t>(g.lda) + m0 + at_m
                       : ac_row_start + k_next;
      [[maybe_unused]] const float* b_run =
          kBTransposed ? bt_row_start + k_next
                       : g.b + static_cast<std::ptrdiff_t>(k_next + b_row) * static_cast<std::ptrdiff_t>(g.ldb) + n0 + bc_col;
      // A slice on: along A's (or stored Bᵀ's) rows, or a slice of rows down stored Aᵀ (or B).
      const std::ptrdiff_t a_slice = kATransposed ? T::kBK * static_cast<std::ptrdiff_t>(g.lda) : T::kBK;
      const std::ptrdiff_t b_slice = kBTransposed ? T::kBK : T::kBK * static_cast<std::ptrdiff_t>(g.ldb);
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
        // No branch in a whole tile: past the last slice the last is copied again, into a stage
        // that no later slice reads (the slices left hold fewer than kStages stages).
        constexpr bool kSpread = kWhole && kDeep;  // the copies spread over the slice's steps
        if constexpr (kWhole && !kDeep) {
          copy_whole(a_run, b_run, free_stage);
          if (ahead < slices - 1) {
            a_run += a_slice;
            b_run += b_slice;
          }
        } else if (!kWhole && ahead < slices) {
          copy_checked(ahead, free_stage);
        }
        if constexpr (!kSpread) cp_async_commit();
#pragma unroll
        for (int k = 0; k < T::kBK; ++k) {
          if constexpr (kSpread)
            if (k < kCopySteps) copy_whole_step(a_run, b_run, free_stage, k);
          if (k < T::kBK - 1)
            load_fragments(stage, k + 1, a[(k + 1) % 2], b[(k + 1) % 2]);
          else if (more)
            load_fragments(next, 0, a[0], b[0]);
          multiply(k);
        }
        if constexpr (kSpread) {
          cp_async_commit();
          if (ahead < slices - 1) {
            a_run += a_slice;
            b_run += b_slice;
          }
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
  const auto row_of = [&](int c, int i) { return m0 + warp_m + c * 16 + ly * 4 + i; };
  if constexpr (kCTransposed) {
    GemmArgs c_as_stored = g;
    c_as_stored.m = g.n, c_as_stored.n = g.m;
    store_thread_tile<true>(c_as_stored, acc, row_of, n0 + warp_n + lx * 4, partials);
  } else {
    store_thread_tile(g, acc, row_of, n0 + warp_n + lx * 4, partials);
  }
}

}  // namespace gpulab::sgemm_device
