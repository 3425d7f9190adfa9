// SGEMM on the TF32 tensor cores through mma.sync (compute capability 8.0 and newer): the library's
// tensor path where wgmma is missing (sm_80 … sm_89, and newer GPUs running the PTX), and the
// ladder's tc_3xtf32 rung.
//
// 3xTF32: FP32 accuracy from TF32 tensor cores. Each value x is split into a TF32 part
// big = tf32(x) (11 significant bits) and small = tf32(x − big); a·b ≈ a_big·b_big + a_big·b_small
// + a_small·b_big, the dropped terms and the split's roundings within about 3·2^-22·|a·b|, products
// exact and summed in FP32 by the tensor cores (mma.sync m16n8k8). Three tensor-core products for
// one FP32 product; the TF32 form (SgemmPrecision::tf32) keeps big·big alone. Rows and columns of
// uncommon magnitudes are scaled first (sgemm_scales.cuh), in a form of the kernel that only the
// tiles holding them take.
// A 128 × 128 block tile, 8 warps of 64 × 32 (4 × 4 MMA tiles), three cp.async stages; A in shared
// memory row-major with 4 floats of padding and B with 8, so that the fragment loads (lanes
// g = lane/4 down, t = lane%4 across) hit 32 distinct banks.
#include "lib/launch.cuh"
#include "lib/launch_limits.hpp"
#include "lib/stream_scratch.hpp"
#include "lib/warp.cuh"
#include "sgemm/sgemm_device.cuh"
#include "sgemm/sgemm_paths.hpp"
#include "sgemm/sgemm_scales.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>

namespace gpulab::sgemm_detail {
namespace {

using namespace sgemm_scales;

// ---- the rows' and columns' largest magnitudes (both tensor-core paths) ---------------------------

/// One operand as the maxima pass reads it: a stored rows × cols matrix (leading dimension ld)
/// whose rows' largest magnitudes (per_row: A as stored, B stored transposed, both running along k)
/// or columns' go to `out`, zeroed before the pass. Rows are read in warps of a row's 1024 columns,
/// 8 rows a block; columns in blocks of 32 columns × 256 rows.
struct MaximaOperand {
  const float* data = nullptr;
  std::size_t ld = 0;
  int rows = 0, cols = 0;
  bool per_row = true;
  unsigned* out = nullptr;
  long long blocks = 0;
  int blocks_x = 0;  // of them along the columns
};
/// The pass's blocks: A's, then B's; each block does one at a time.
struct MaximaArgs {
  MaximaOperand operand[2];
};

/// Block t of `o`'s rows: a warp reads 1024 columns of a row (32 independent loads a lane) and
/// makes one atomicMax.
__device__ __forceinline__ void row_maxima(const MaximaOperand& o, long long t, int tx, int ty) {
  const int row = static_cast<int>(t / o.blocks_x) * 8 + ty, c0 = static_cast<int>(t % o.blocks_x) * 1024;
  if (row >= o.rows) return;
  const float* src = o.data + static_cast<std::size_t>(row) * o.ld;
  unsigned m = 0;
#pragma unroll
  for (int i = 0; i < 32; ++i)
    if (c0 + tx + 32 * i < o.cols) m = max(m, magnitude_bits(src[c0 + tx + 32 * i]));
  m = warp_max_unsigned(m);
  if (tx == 0 && m != 0) atomicMax(&o.out[row], m);
}

/// Block t of `o`'s columns: 32 columns × 256 rows, its 8 warps' maxima meeting in shared memory
/// before one atomicMax a column. (Uniform in the block: it holds barriers.)
__device__ __forceinline__ void column_maxima(const MaximaOperand& o, long long t, int tx, int ty, unsigned (&partial)[8][32]) {
  const int col = static_cast<int>(t % o.blocks_x) * 32 + tx, r0 = static_cast<int>(t / o.blocks_x) * 256;
  unsigned m = 0;
#pragma unroll
  for (int i = 0; i < 32; ++i) {
    const int row = r0 + ty + 8 * i;
    if (row < o.rows && col < o.cols) m = max(m, magnitude_bits(o.data[static_cast<std::size_t>(row) * o.ld + col]));
  }
  partial[ty][tx] = m;
  __syncthreads();
  if (ty == 0) {
    for (int y = 1; y < 8; ++y) m = max(m, partial[y][tx]);
    if (col < o.cols && m != 0) atomicMax(&o.out[col], m);
  }
  __syncthreads();
}

/// Each row of op(A)'s and column of op(B)'s largest |x| as magnitude_bits, by atomicMax.
__global__ void operand_maxima(MaximaArgs p) {
  __shared__ unsigned partial[8][32];
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const long long a_blocks = p.operand[0].blocks;
  for (long long t = blockIdx.x; t < a_blocks + p.operand[1].blocks; t += gridDim.x) {  // (uniform in the block)
    const MaximaOperand& o = p.operand[t < a_blocks ? 0 : 1];
    const long long u = t < a_blocks ? t : t - a_blocks;
    if (o.per_row)
      row_maxima(o, u, tx, ty);
    else
      column_maxima(o, u, tx, ty, partial);
  }
}

/// The blocks the maxima pass launches: at most this many, each looping over the pass's blocks.
constexpr long long kMaxMaximaBlocks = 1 << 20;

// ---- the product on mma.sync ----------------------------------------------------------------------

constexpr int kBM = 128, kBN = 128, kBK = 16, kStages = 3, kThreads = 256;
constexpr int kAStride = kBK + 4, kBStride = kBN + 8;
constexpr int kStageFloats = kBM * kAStride + kBK * kBStride;
constexpr std::size_t kSmemBytes = sizeof(float) * kStageFloats * kStages;

/// d += a·b on a 16 × 8 × 8 tile (TF32 inputs, FP32 accumulators).
__device__ __forceinline__ void mma_tf32(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  __trap();  // TF32 tensor cores need compute capability 8.0: mma_tf32_supported() keeps this from older GPUs
#else
  // Not volatile: the compiler may interleave independent MMAs to hide their latency.
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
}

/// x of a row or column of scale exponent e as TF32: big alone (one product), or big and small
/// (three). kScaled false: a tile of common magnitudes, every value finite (e is 0).
template <int kProducts, bool kScaled>
__device__ __forceinline__ void split(float x, int e, unsigned& big, unsigned& small) {
  if constexpr (!kScaled) {
    if constexpr (kProducts == 3) sgemm_device::split_tf32(x, big, small);
    else big = sgemm_device::to_tf32(x);
  } else if constexpr (kProducts == 3) {
    split_scaled(x, e, big, small);
  } else {
    big = isfinite(x) && e != 0 ? sgemm_device::to_tf32(scalbnf(x, -e)) : sgemm_device::to_tf32(x);
  }
}

/// The block's tile of C from (m0, n0). kScaled: some of its rows of A or columns of B are of
/// uncommon magnitudes or hold ±Inf or NaN (sgemm_scales.cuh); else none, and the split and the
/// epilogue take no scales (nor the registers that would hold them, which the kernel cannot spare).
template <int kProducts, bool kVectorA, bool kVectorB, bool kScaled>
__device__ __forceinline__ void mma_tile(const GemmArgs& g, const Scales& scales, float* smem, int m0, int n0) {
  const int t = static_cast<int>(threadIdx.x), warp = t / 32, lane = t % 32;
  const int warp_m = warp % 2 * 64, warp_n = warp / 2 * 32;
  const int gr = lane / 4, tc = lane % 4;

  // The tiled kernels' copies (sgemm_device.cuh's TileLoader), A's rows 16 or 4 bytes at a time, B's too;
  // the last rows guarded always (one instantiation fewer; the tensor cores, not the copies, bound it).
  using ATile = sgemm_device::TileLoader<kBM, kBK, kThreads, kVectorA ? 4 : 1, true, true>;
  using BTile = sgemm_device::TileLoader<kBK, kBN, kThreads, kVectorB ? 4 : 1, true, true>;
  const ATile a_tile(g.a, g.lda, m0, 0, g.m);
  const BTile b_tile(g.b, g.ldb, 0, n0, g.k);
  auto load_slice = [&](int s, int stage) {
    float* as = smem + stage * kStageFloats;
    sgemm_device::copy_slice(g, a_tile, b_tile, as, kAStride, as + kBM * kAStride, kBStride, 0, s * kBK, g.k, n0);
  };

  // The scale exponents of the 8 rows of A and 4 columns of B this lane splits.
  int a_exponent[4][2] = {}, b_exponent[4] = {};
  if constexpr (kScaled) {
#pragma unroll
    for (int mi = 0; mi < 4; ++mi)
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int i = m0 + warp_m + mi * 16 + gr + 8 * half;
        a_exponent[mi][half] = scale_exponent(i < g.m ? scales.a_rows[i] : 0u);
      }
#pragma unroll
    for (int ni = 0; ni < 4; ++ni) {
      const int j = n0 + warp_n + ni * 8 + gr;
      b_exponent[ni] = scale_exponent(j < g.n ? scales.b_cols[j] : 0u);
    }
  }

  float acc[4][4][4] = {};
  auto compute_slice = [&](int stage) {
    const float* as = smem + stage * kStageFloats;
    const float* bs = as + kBM * kAStride;
    float slice[4][4][4] = {};
#pragma unroll
    for (int ks = 0; ks < kBK; ks += 8) {
      unsigned a_big[4][4], a_small[4][4], b_big[4][2], b_small[4][2];
#pragma unroll
      for (int mi = 0; mi < 4; ++mi) {
        const float* r0 = as + (warp_m + mi * 16 + gr) * kAStride + ks + tc;
        const float* r1 = r0 + 8 * kAStride;
        const float x[4] = {r0[0], r1[0], r0[4], r1[4]};
#pragma unroll
        for (int q = 0; q < 4; ++q) split<kProducts, kScaled>(x[q], a_exponent[mi][q % 2], a_big[mi][q], a_small[mi][q]);
      }
#pragma unroll
      for (int ni = 0; ni < 4; ++ni) {
        const float* c0 = bs + (ks + tc) * kBStride + warp_n + ni * 8 + gr;
        split<kProducts, kScaled>(c0[0], b_exponent[ni], b_big[ni][0], b_small[ni][0]);
        split<kProducts, kScaled>(c0[4 * kBStride], b_exponent[ni], b_big[ni][1], b_small[ni][1]);
      }
      // The small products first, so that they are not lost against the big one; each pass over
      // all 16 tiles, so that consecutive MMAs are independent.
      auto pass = [&](const unsigned (&a)[4][4], const unsigned (&b)[4][2]) {
#pragma unroll
        for (int mi = 0; mi < 4; ++mi)
#pragma unroll
          for (int ni = 0; ni < 4; ++ni) mma_tf32(slice[mi][ni], a[mi], b[ni]);
      };
      if constexpr (kProducts == 3) {
        pass(a_small, b_big);
        pass(a_big, b_small);
      }
      pass(a_big, b_big);
    }
#pragma unroll
    for (int mi = 0; mi < 4; ++mi)
#pragma unroll
      for (int ni = 0; ni < 4; ++ni)
#pragma unroll
        for (int q = 0; q < 4; ++q) acc[mi][ni][q] += slice[mi][ni][q];
  };

  sgemm_device::run_slices<kStages>((g.k + kBK - 1) / kBK, load_slice, compute_slice);

  // Accumulator q of tile (mi, ni): row gr (+8 for q ≥ 2), column 2·tc (+1 for odd q). Every scale
  // is read before the first store (the compiler cannot tell that a store to C leaves them alone).
  int row_exponent[4][2] = {}, col_exponent[4][2] = {};
  if constexpr (kScaled) {
#pragma unroll
    for (int x = 0; x < 4; ++x)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int i = m0 + warp_m + x * 16 + gr + 8 * h, j = n0 + warp_n + x * 8 + 2 * tc + h;
        row_exponent[x][h] = epilogue_exponent(i < g.m ? scales.a_rows[i] : 0u);
        col_exponent[x][h] = epilogue_exponent(j < g.n ? scales.b_cols[j] : 0u);
      }
  }
#pragma unroll
  for (int mi = 0; mi < 4; ++mi)
#pragma unroll
    for (int ni = 0; ni < 4; ++ni)
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        const int i = m0 + warp_m + mi * 16 + gr + (q >= 2 ? 8 : 0), j = n0 + warp_n + ni * 8 + 2 * tc + q % 2;
        if (i >= g.m || j >= g.n) continue;
        const int exponent = row_exponent[mi][q / 2] + col_exponent[ni][q % 2];
        sgemm_device::store_c(g, i, j, kScaled ? unscaled_sum(g, acc[mi][ni][q], exponent, i, j, 0, g.k) : acc[mi][ni][q]);
      }
}

template <int kProducts, bool kVectorA, bool kVectorB>
__global__ void __launch_bounds__(kThreads) mma_product(GemmArgs g, Scales scales) {
  static_assert(kProducts == 1 || kProducts == 3);
  extern __shared__ float4 smem4[];
  float* const smem = reinterpret_cast<float*>(smem4);
  const int tiles_m = (g.m + kBM - 1) / kBM, tiles_n = (g.n + kBN - 1) / kBN;
  int tm, tn;
  sgemm_device::grouped_tile(static_cast<int>(blockIdx.x), tiles_m, tiles_n, tm, tn);
  const int m0 = tm * kBM, n0 = tn * kBN;
  // Whether any of the tile's rows of A or columns of B takes a scale (nearly never: operands of
  // common magnitudes and finite): the block's threads look at one each.
  const int t = static_cast<int>(threadIdx.x);
  static_assert(kBM <= kThreads && kBN <= kThreads);
  const bool uncommon = (t < kBM && m0 + t < g.m && epilogue_exponent(scales.a_rows[m0 + t]) != 0) ||
                        (t < kBN && n0 + t < g.n && epilogue_exponent(scales.b_cols[n0 + t]) != 0);
  if (__syncthreads_or(uncommon))
    mma_tile<kProducts, kVectorA, kVectorB, true>(g, scales, smem, m0, n0);
  else
    mma_tile<kProducts, kVectorA, kVectorB, false>(g, scales, smem, m0, n0);
}

template <int kProducts, bool kVectorA, bool kVectorB>
void launch_mma(const GemmArgs& g, Scales scales, cudaStream_t stream) {
  constexpr auto kernel = mma_product<kProducts, kVectorA, kVectorB>;
  allow_smem<kernel>(kSmemBytes);
  launch(kProducts == 3 ? "sgemm_mma_3xtf32" : "sgemm_mma_tf32", kernel,
         {checked_grid(tile_count(g.m, g.n, kBM, kBN), "sgemm"), kThreads, kSmemBytes}, stream, g, scales)
      .work([] {
        return std::string("a 128x128 tile, 8 warps of 4x4 m16n8k8 MMAs, ") + (kProducts == 3 ? "3 per product" : "1 per product");
      });
}

template <int kProducts>
bool run_mma(const GemmArgs& g, cudaStream_t stream) {
  if (g.m == 0 || g.n == 0) return true;
  if (!mma_tf32_supported()) throw Error("sgemm mma.sync: TF32 tensor cores need a GPU of compute capability 8.0 or newer");
  if (!g.as_stored()) throw Error("sgemm mma.sync: takes A and B as stored only, not " + std::string(operand_form(g)));
  std::optional<StreamScratch> maxima;  // freed in stream order, after the product
  if (!take_scratch(maxima, (static_cast<std::size_t>(g.m) + g.n) * sizeof(unsigned), stream)) return false;
  unsigned* a_rows = maxima->as<unsigned>();
  find_operand_maxima(g, a_rows, stream);
  const Scales scales{a_rows, a_rows + g.m};
  const bool va = rows_aligned16(g.a, g.lda), vb = rows_aligned16(g.b, g.ldb);
  (va ? (vb ? launch_mma<kProducts, true, true> : launch_mma<kProducts, true, false>)
      : (vb ? launch_mma<kProducts, false, true> : launch_mma<kProducts, false, false>))(g, scales, stream);
  return true;
}

}  // namespace

void find_operand_maxima(const GemmArgs& g, unsigned* a_rows, cudaStream_t stream) {
  GPULAB_CUDA_CHECK(cudaMemsetAsync(a_rows, 0, (static_cast<std::size_t>(g.m) + g.n) * sizeof(unsigned), stream));
  if (g.k == 0) return;
  const auto blocks = [](int items, int per) { return (items + per - 1) / per; };
  // A stored rows × cols whose maxima are per row (along k) or per column.
  auto operand = [&](const float* data, std::size_t ld, int rows, int cols, bool per_row, unsigned* out) {
    MaximaOperand o{data, ld, rows, cols, per_row, out};
    o.blocks_x = per_row ? blocks(cols, 1024) : blocks(cols, 32);
    o.blocks = static_cast<long long>(o.blocks_x) * (per_row ? blocks(rows, 8) : blocks(rows, 256));
    return o;
  };
  const MaximaArgs p{{g.a_transposed ? operand(g.a, g.lda, g.k, g.m, false, a_rows) : operand(g.a, g.lda, g.m, g.k, true, a_rows),
                      g.b_transposed ? operand(g.b, g.ldb, g.n, g.k, true, a_rows + g.m)
                                     : operand(g.b, g.ldb, g.k, g.n, false, a_rows + g.m)}};
  launch("sgemm_operand_maxima", operand_maxima,
         {dim3(static_cast<unsigned>(std::min(p.operand[0].blocks + p.operand[1].blocks, kMaxMaximaBlocks))), dim3(32, 8)}, stream, p)
      .work([] {
        return std::string("rows along k: a warp a row's 1024 columns; along m or n: 32 columns x 256 rows; one atomicMax a row or column each");
      });
}

bool mma_tf32_supported() { return current_compute_capability() >= 80; }

bool mma_tf32x3(const GemmArgs& g, cudaStream_t stream) { return run_mma<3>(g, stream); }
bool mma_tf32(const GemmArgs& g, cudaStream_t stream) { return run_mma<1>(g, stream); }

}  // namespace gpulab::sgemm_detail
