// 3xTF32 on Hopper's own tensor-core machinery: warpgroup MMA (wgmma) fed by the tensor
// memory accelerator (TMA) through a ring of shared-memory stages. Built for sm_90a only (wgmma
// exists nowhere else); gpulab's other files keep the plain sm_90 target.
//
// What it adds over the mma.sync rung (tc_3xtf32, sgemm_mma.cu):
// - The operands are split once, not per warp: a first pass writes big = tf32(x) and
//   small = tf32(x − big) of A (m × k) and of Bᵀ (n × k: wgmma reads TF32 operands K-major only),
//   and finds each row's and column's largest magnitude on the way.
// - One producer thread copies each 32-deep slice of the four tiles (A big and small, 128 × 32;
//   Bᵀ big and small, 128 × 32) with TMA into 128-byte-swizzled shared memory, the layout wgmma
//   reads without bank conflicts; an mbarrier per stage says when a slice has landed, another
//   when both consumers are done with it.
// - Two consumer warpgroups of 64 rows each issue the slice's 12 wgmma m64n128k8 (big·small and
//   small·big first, big·big last) into a fresh accumulator and add it to their FP32 sums with
//   rounding FP32 adds: the tensor cores truncate their own additions (12× cuBLAS's error when
//   every product of K stayed in their accumulator), so at most 12 products'
//   additions of a slice are truncated before an exact-rounding add takes over.
// - Rows of A and columns of B of uncommon magnitudes are split again, scaled by a power of two,
//   and their sums scaled back in the epilogue (sgemm_scales.cuh).
//
// TF32 (one product, big·big) has two forms: the 128 × 128 one (rung wgmma_tf32) and the wide
// one the library takes (wgmma_tf32_wide): 128 × 256 tiles in clusters of two blocks down M that
// share each slice of Bᵀ by TMA multicast, half the bytes from L2 a product of the narrow form.
#include "lib/arith.hpp"
#include "lib/async_copy.cuh"
#include "lib/launch.cuh"
#include "lib/launch_limits.hpp"
#include "lib/per_device.hpp"
#include "lib/stream_scratch.hpp"
#include "lib/tma.cuh"
#include "lib/wgmma.cuh"
#include "sgemm/sgemm_device.cuh"
#include "sgemm/sgemm_paths.hpp"
#include "sgemm/sgemm_scales.cuh"

#include <gpulab/error.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace gpulab::sgemm_detail {
namespace {

using sgemm_device::GemmArgs;
using namespace sgemm_scales;

constexpr int kBM = 128;            // the block's rows of C
constexpr int kBK = 32;             // a slice: 32 floats = one 128-byte swizzled row
constexpr int kConsumers = 2;                           // warpgroups of 64 rows
constexpr int kThreads = 128 * (1 + kConsumers);        // a producer warpgroup, then the consumers
constexpr int kTileBytesA = kBM * kBK * 4;
constexpr int kMinSplitSlice = 1024;                    // split-K's shortest slice of k
constexpr int kSwizzleAlign = 1024;                     // the 128-byte swizzle repeats every 8 rows
constexpr int kStageBudget = 192 * 1024;                // shared memory for the ring of stages

/// The forms: 3 products (3xTF32: big·big + big·small + small·big, FP32 accuracy) or 1 (TF32:
/// big·big), on tiles of 128 × kTileN, in clusters of kCluster blocks along M that share each
/// slice of Bᵀ: each block copies 1/kCluster of it and the TMA multicasts it into every block of
/// the cluster, so a block reads from L2 its A and a share of B. A stage holds A's and Bᵀ's tiles
/// of each part they use.
template <int kProducts, int kTileN = 128, int kCluster = 1>
struct Form {
  static_assert(kProducts == 1 || kProducts == 3);
  static_assert(kTileN == 128 || (kTileN == 256 && kProducts == 1), "two 64 x 256 sums a thread do not fit its registers");
  static constexpr int kBM = sgemm_detail::kBM, kBN = kTileN, kBK = sgemm_detail::kBK;  // for BlockWork
  static constexpr int kClusterM = kCluster;
  static constexpr int kParts = kProducts == 3 ? 2 : 1;  // big, and small
  static constexpr int kTileBytesB = kBN * kBK * 4;
  static constexpr int kShareRowsB = kBN / kCluster;     // the rows of Bᵀ's tile each block copies
  static constexpr int kStageBytes = kParts * (kTileBytesA + kTileBytesB);
  static constexpr int kStages = kStageBudget / kStageBytes;
  static constexpr std::size_t kSmemBytes = std::size_t{kStages} * kStageBytes + kSwizzleAlign;
  static constexpr int kSums = kBN / 2;  // a consumer thread's accumulators (64 rows × kBN / 128 threads)
  /// Where a stage's tile of A (operand 0) or Bᵀ (1), part 0 (big) or 1 (small), starts.
  __device__ static unsigned char* tile(unsigned char* smem, int stage, int operand, int part) {
    return smem + stage * kStageBytes + (operand == 0 ? part * kTileBytesA : kParts * kTileBytesA + part * kTileBytesB);
  }
};

// ---- the split: both operands in one launch, their maxima found on the way -------------------------

/// One operand as the split reads it: op(A) (m × k) or op(B)ᵀ (n × k), written K-major as `rows`
/// rows of k (leading dimension depth). Stored along k (A as stored, B stored transposed: k_major)
/// it is streamed a row at a time; stored along m or n (A stored transposed, B as stored) its tiles
/// are transposed through shared memory, so that both the reads and the writes stay coalesced.
struct SplitOperand {
  const float* data = nullptr;
  std::size_t ld = 0;
  bool k_major = true;
  int rows = 0;                       // m or n
  unsigned* maxima = nullptr;         // each row's largest |x| (magnitude bits), zeroed before the split
  float *big = nullptr, *small = nullptr;  // small: null for the one-product form
  long long blocks = 0;
  int blocks_x = 0;                   // transposed: tiles along the stored columns; k_major: pieces of a row
};
/// The split's blocks: A's, then B's; each block does one piece of work at a time.
struct SplitArgs {
  SplitOperand operand[2];
  int k = 0;
  std::size_t depth = 0;  // the split operands' leading dimension (k padded to 4: rows of 16 bytes)
  DeviceGate gate;
};

constexpr int kSplitWarps = 8;                 // a split block: 32 × 8 threads
constexpr int kRowPiece = 32 * 4 * 4;          // floats of a row a warp streams at once: 4 float4 a lane
constexpr int kTile = 32, kTileK = 64;         // a transposed tile: 64 of k × 32 rows, 8 floats a thread

/// x split unscaled: big = tf32(x), small = tf32(x − big) (a non-finite x: itself and 0). A row the
/// maxima say is to be scaled is split again by rescale_rows (rare: magnitudes outside [2^−50, 2^51)).
__device__ __forceinline__ void split_unscaled(float x, float& big, float& small) {
  unsigned hi, lo;
  sgemm_scales::split_scaled(x, 0, hi, lo);
  big = __uint_as_float(hi), small = __uint_as_float(lo);
}

/// Piece t of kSplitWarps pieces of kRowPiece floats of K-major rows, a warp each: 4 loads of 16
/// bytes a lane in flight (4-byte loads where the row is not 16-byte aligned), issued before any
/// store (a store could alias the next load); the row's largest |x| by one atomicMax a piece.
__device__ __forceinline__ void split_row_pieces(const SplitOperand& o, int k, std::size_t depth, long long t) {
  const int lane = static_cast<int>(threadIdx.x);
  const long long piece = t * kSplitWarps + threadIdx.y;
  if (piece >= static_cast<long long>(o.rows) * o.blocks_x) return;  // (uniform in the warp)
  const int row = static_cast<int>(piece / o.blocks_x), c0 = static_cast<int>(piece % o.blocks_x) * kRowPiece;
  const float* src = o.data + static_cast<std::size_t>(row) * o.ld;
  const bool vector = (reinterpret_cast<std::uintptr_t>(src) & 15) == 0;
  float4 x[4];
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    const int col = c0 + 4 * (lane + 32 * q);
    if (vector && col + 3 < k) {
      x[q] = *reinterpret_cast<const float4*>(src + col);
    } else {
      x[q] = {col < k ? src[col] : 0.f, col + 1 < k ? src[col + 1] : 0.f, col + 2 < k ? src[col + 2] : 0.f, col + 3 < k ? src[col + 3] : 0.f};
    }
  }
  unsigned largest = 0;
#pragma unroll
  for (int q = 0; q < 4; ++q)
    largest = max(largest, max(max(magnitude_bits(x[q].x), magnitude_bits(x[q].y)), max(magnitude_bits(x[q].z), magnitude_bits(x[q].w))));
  largest = __reduce_max_sync(0xffffffffu, largest);
  if (lane == 0 && largest != 0) atomicMax(&o.maxima[row], largest);
  float* big_row = o.big + static_cast<std::size_t>(row) * depth;
  float* small_row = o.small == nullptr ? nullptr : o.small + static_cast<std::size_t>(row) * depth;
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    const int col = c0 + 4 * (lane + 32 * q);
    if (col >= k) continue;
    float4 big, small;
    split_unscaled(x[q].x, big.x, small.x), split_unscaled(x[q].y, big.y, small.y);
    split_unscaled(x[q].z, big.z, small.z), split_unscaled(x[q].w, big.w, small.w);
    // depth is a multiple of 4: the split rows are 16-byte aligned, and col + 3 < depth.
    *reinterpret_cast<float4*>(big_row + col) = big;
    if (small_row != nullptr) *reinterpret_cast<float4*>(small_row + col) = small;
  }
}

/// Tile t of an operand stored k × rows, 32 × 8 threads: the tile's stored rows are k from r0, its
/// columns rows of the output from c0; each column's largest |x| by shared atomics, then one global
/// atomicMax a column. Each thread's eight loads are issued before any store.
__device__ __forceinline__ void split_transposed_tile(const SplitOperand& o, int k, std::size_t depth, long long t,
                                                      float (&tile_big)[kTileK][kTile + 1], float (&tile_small)[kTileK][kTile + 1],
                                                      unsigned (&tile_max)[kTile]) {
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const int r0 = static_cast<int>(t / o.blocks_x) * kTileK, c0 = static_cast<int>(t % o.blocks_x) * kTile;
  float x[kTileK / 8];
#pragma unroll
  for (int q = 0; q < kTileK / 8; ++q) {
    const int p = r0 + ty + 8 * q, col = c0 + tx;
    x[q] = p < k && col < o.rows ? o.data[static_cast<std::size_t>(p) * o.ld + col] : 0.f;
  }
  if (ty == 0) tile_max[tx] = 0;
  __syncthreads();
  unsigned largest = 0;
#pragma unroll
  for (int q = 0; q < kTileK / 8; ++q) {
    split_unscaled(x[q], tile_big[ty + 8 * q][tx], tile_small[ty + 8 * q][tx]);
    largest = max(largest, magnitude_bits(x[q]));
  }
  if (largest != 0) atomicMax(&tile_max[tx], largest);
  __syncthreads();
  if (ty == 0 && c0 + tx < o.rows && tile_max[tx] != 0) atomicMax(&o.maxima[c0 + tx], tile_max[tx]);
  for (int c = ty; c < kTile; c += 8) {
#pragma unroll
    for (int h = 0; h < kTileK; h += 32) {
      const int row = c0 + c, p = r0 + h + tx;
      if (row >= o.rows || p >= k) continue;
      o.big[static_cast<std::size_t>(row) * depth + p] = tile_big[h + tx][c];
      if (o.small != nullptr) o.small[static_cast<std::size_t>(row) * depth + p] = tile_small[h + tx][c];
    }
  }
  __syncthreads();
}

/// big and small TF32 parts of op(A) and of op(B)ᵀ, K-major (leading dimension depth), unscaled, and
/// the largest magnitude of each row of op(A) and each column of op(B).
__global__ void split_operands(SplitArgs p) {
  __shared__ float tile_big[kTileK][kTile + 1], tile_small[kTileK][kTile + 1];
  __shared__ unsigned tile_max[kTile];
  if (!p.gate.open()) return;
  const long long a_blocks = p.operand[0].blocks;
  for (long long t = blockIdx.x; t < a_blocks + p.operand[1].blocks; t += gridDim.x) {  // (uniform in the block)
    const SplitOperand& o = p.operand[t < a_blocks ? 0 : 1];
    const long long u = t < a_blocks ? t : t - a_blocks;
    if (o.k_major) split_row_pieces(o, p.k, p.depth, u);
    else split_transposed_tile(o, p.k, p.depth, u, tile_big, tile_small, tile_max);
  }
}

/// Each row of op(A) and each column of op(B) whose largest magnitude lies outside the common range
/// split again, scaled into [1, 2) by a power of two (sgemm_scales.cuh): a block a row, the others
/// return at once.
__global__ void rescale_rows(SplitArgs p) {
  if (!p.gate.open()) return;
  const int rows = p.operand[0].rows + p.operand[1].rows;
  for (int q = static_cast<int>(blockIdx.x); q < rows; q += static_cast<int>(gridDim.x)) {
    const bool of_a = q < p.operand[0].rows;
    const SplitOperand& o = p.operand[of_a ? 0 : 1];
    const int row = of_a ? q : q - p.operand[0].rows;
    const int e = scale_exponent(o.maxima[row]);
    if (e == 0) continue;
    for (int col = static_cast<int>(threadIdx.x); col < p.k; col += static_cast<int>(blockDim.x)) {
      const float x = o.k_major ? o.data[static_cast<std::size_t>(row) * o.ld + col] : o.data[static_cast<std::size_t>(col) * o.ld + row];
      unsigned big, small;
      sgemm_scales::split_scaled(x, e, big, small);
      o.big[static_cast<std::size_t>(row) * p.depth + col] = __uint_as_float(big);
      if (o.small != nullptr) o.small[static_cast<std::size_t>(row) * p.depth + col] = __uint_as_float(small);
    }
  }
}

// ---- the product ---------------------------------------------------------------------------------

struct SplitMaps {
  CUtensorMap a_big, a_small, b_big, b_small;  // A: m × k, boxes of 128 rows × 32; Bᵀ: n × k, of kShareRowsB × 32
};

/// C's tile of this block, k from blockIdx.z · k_slice for k_slice; the raw sums go to `partials`
/// (slice blockIdx.z of m × n) when it is not null, else c = alpha·sum + beta·c.
template <class F>
__global__ void __launch_bounds__(kThreads, 1)
    wgmma_product(const __grid_constant__ SplitMaps maps, GemmArgs g, Scales scales, int k_slice, float* partials, DeviceGate gate) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  if (!gate.open()) return;  // (every block of a cluster alike: before any waits on another)
  constexpr int kStages = F::kStages, kCluster = F::kClusterM, kBN = F::kBN;
  constexpr bool kProducts3 = F::kParts == 2;
  __shared__ std::uint64_t full[kStages], empty[kStages];
  // The epilogue's power-of-two scales of the tile's rows, then of its columns (sgemm_scales.cuh),
  // and whether any is not 0: read by the consumers while the first slices arrive.
  __shared__ int tile_exponents[kBM + kBN];
  __shared__ int tile_scaled;
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = reinterpret_cast<unsigned char*>(align_up(reinterpret_cast<std::uintptr_t>(smem_raw), kSwizzleAlign));

  // This block's tile in grouped_tile's order (the blocks resident together share slices of A
  // and B in L2; a cluster's blocks are neighbours along M), and its slice of k (blockIdx.z).
  const auto [m0, n0, k_begin, k_end, slices] = sgemm_device::BlockWork::of<F>(g, k_slice);
  const unsigned rank = blockIdx.x % kCluster;  // in the cluster (clusters of kCluster × 1 × 1)

  const int warpgroup = static_cast<int>(threadIdx.x) / 128;
  if (threadIdx.x == 0) {
    init_ring(full, empty, kCluster * kConsumers * 4);  // each consumer warp's lane 0, of every block
    tile_scaled = 0;
  }
  // No block copies into another, or arrives on its barriers, before they exist (and tile_scaled's
  // 0 is seen before any consumer sets it).
  if constexpr (kCluster > 1) cluster_arrive(), cluster_wait();
  else __syncthreads();

  if (warpgroup == 0) {  // the producer: one thread issues every copy
    if (threadIdx.x == 0) {
      for (int slice = 0; slice < slices; ++slice) {
        const int stage = slice % kStages, round = slice / kStages;
        // Clustered, this block's copy of B lands in every block: wait until all have freed the stage.
        if (round > 0) barrier_wait(&empty[stage], (round - 1) & 1);
        barrier_expect_bytes(&full[stage], F::kStageBytes);
        const int k0 = k_begin + slice * kBK;  // k_slice is a multiple of kBK; TMA reads zeros past k
        for (int part = 0; part < F::kParts; ++part) {
          tma_load(part == 0 ? maps.a_big : maps.a_small, F::tile(smem, stage, 0, part), &full[stage], k0, m0);
          const int share = static_cast<int>(rank) * F::kShareRowsB;
          unsigned char* b_share = F::tile(smem, stage, 1, part) + share * kBK * 4;
          if constexpr (kCluster > 1)
            tma_load_multicast(part == 0 ? maps.b_big : maps.b_small, b_share, &full[stage], k0, n0 + share, (1u << kCluster) - 1);
          else
            tma_load(part == 0 ? maps.b_big : maps.b_small, b_share, &full[stage], k0, n0 + share);
        }
      }
    }
    if constexpr (kCluster > 1) cluster_arrive(), cluster_wait();  // stay until the cluster is done with this block
    return;
  }

  const int consumer = warpgroup - 1, warp = static_cast<int>(threadIdx.x) / 32 % 4, lane = static_cast<int>(threadIdx.x) % 32;
  float sum[F::kSums], slice_sum[kProducts3 ? F::kSums : 1];
#pragma unroll
  for (int i = 0; i < F::kSums; ++i) sum[i] = 0.f;
#pragma unroll
  for (auto& x : slice_sum) x = 0.f;
  for (int t = static_cast<int>(threadIdx.x) - 128; t < kBM + kBN; t += 128 * kConsumers) {
    const bool row = t < kBM;  // else a column: tile_exponents holds the rows', then the columns'
    const int i = row ? m0 + t : n0 + t - kBM;
    const unsigned largest = i < (row ? g.m : g.n) ? (row ? scales.a_rows : scales.b_cols)[i] : 0u;
    const int e = epilogue_exponent(largest);
    tile_exponents[t] = e;
    if (e != 0) tile_scaled = 1;
  }

  // A consumer warp frees a stage in every block of the cluster (whose producers multicast into it).
  auto free_stage = [&](int stage) {
    if (lane != 0) return;
    if constexpr (kCluster > 1) {
#pragma unroll
      for (unsigned r = 0; r < kCluster; ++r) barrier_arrive_in(&empty[stage], r);
    } else {
      barrier_arrive(&empty[stage]);
    }
  };
  for (int slice = 0; slice < slices; ++slice) {
    const int stage = slice % kStages;
    barrier_wait(&full[stage], (slice / kStages) & 1);
    const int a_rows = consumer * 64 * 128;  // this warpgroup's 64 rows of 128 bytes
    const std::uint64_t a_big = smem_descriptor(F::tile(smem, stage, 0, 0) + a_rows);
    const std::uint64_t b_big = smem_descriptor(F::tile(smem, stage, 1, 0));
    wgmma_fence();
    // Each step of 8 along K is 32 bytes further into the swizzled rows (2 in the descriptor's
    // 16-byte units).
    if constexpr (kProducts3) {
      // The small products first, into a fresh accumulator, then big·big; the slice's sum is added
      // to the running one by rounding FP32 adds.
      const std::uint64_t a_small = smem_descriptor(F::tile(smem, stage, 0, 1) + a_rows);
      const std::uint64_t b_small = smem_descriptor(F::tile(smem, stage, 1, 1));
#pragma unroll
      for (int step = 0; step < kBK / 8; ++step) {
        wgmma_m64nk8(slice_sum, a_small + 2 * step, b_big + 2 * step, step > 0);
        wgmma_m64nk8(slice_sum, a_big + 2 * step, b_small + 2 * step, true);
      }
#pragma unroll
      for (int step = 0; step < kBK / 8; ++step) wgmma_m64nk8(slice_sum, a_big + 2 * step, b_big + 2 * step, true);
    } else {
#pragma unroll
      for (int step = 0; step < kBK / 8; ++step) wgmma_m64nk8(sum, a_big + 2 * step, b_big + 2 * step, true);
    }
    wgmma_commit();
    if constexpr (kProducts3) {
      wgmma_wait_all();
      fence_registers(slice_sum);
      free_stage(stage);
#pragma unroll
      for (int i = 0; i < F::kSums; ++i) sum[i] += slice_sum[i];
    } else {
      // One product accumulates in place: this slice's wgmma stay in flight while the stage before
      // is freed and the next slice's are issued.
      wgmma_wait_one();
      fence_registers(sum);
      if (slice > 0) free_stage((slice - 1) % kStages);
    }
  }
  if constexpr (!kProducts3) {
    wgmma_wait_all();
    fence_registers(sum);
  }
  // This block's arrivals on the others' barriers are done; it waits for theirs before it exits.
  if constexpr (kCluster > 1) cluster_arrive();

  asm volatile("bar.sync 1, %0;" ::"n"(128 * kConsumers) : "memory");  // the consumers' tile_exponents written

  // The sums go through the ring of stages (free: every slice has landed and been read) so that C
  // is written a row at a time, 16 bytes a thread (as the sums lie, a warp's store covers 8 rows
  // with 8 bytes each: 8x the store instructions, which bound shallow products). The accumulator
  // layout of m64nNk8: warp w holds rows 16w + lane/4 and 16w + lane/4 + 8; each 8-column group j
  // its columns 8j + 2·(lane % 4) and the next. Rows of the staged tile are kStagedLd apart: 8
  // floats more than a row, so that a warp's 8 rows fall in different banks.
  constexpr int kStagedLd = kBN + 8;
  static_assert(std::size_t{kBM} * kStagedLd * sizeof(float) <= std::size_t{kStages} * F::kStageBytes, "the staged tile fits the ring");
  float* staged = reinterpret_cast<float*>(smem);
  const int tile_row = consumer * 64 + warp * 16 + lane / 4;
#pragma unroll
  for (int s = 0; s < F::kSums; s += 2)
    *reinterpret_cast<float2*>(&staged[(tile_row + 8 * (s / 2 % 2)) * kStagedLd + 8 * (s / 4) + 2 * (lane % 4)]) = {sum[s], sum[s + 1]};
  asm volatile("bar.sync 1, %0;" ::"n"(128 * kConsumers) : "memory");
  const bool scaled = tile_scaled != 0;  // uniform in the block; rare: some scale not 0
  for (int t = static_cast<int>(threadIdx.x) - 128; t < kBM * kBN / 4; t += 128 * kConsumers) {
    const int r = t / (kBN / 4), c = t % (kBN / 4) * 4, i = m0 + r, j = n0 + c;
    if (i >= g.m || j >= g.n) continue;
    float4 v = *reinterpret_cast<const float4*>(&staged[r * kStagedLd + c]);
    if (scaled) {
      auto back = [&](int q, float x) {
        return j + q < g.n ? unscaled_sum(g, x, tile_exponents[r] + tile_exponents[kBM + c + q], i, j + q, k_begin, k_end) : x;
      };
      v = {back(0, v.x), back(1, v.y), back(2, v.z), back(3, v.w)};
    }
    if (partials == nullptr) sgemm_device::store_c4(g, i, j, v);
    else sgemm_device::write_partials4(g, i, j, v, partials);
  }
  if constexpr (kCluster > 1) cluster_wait();
#else
  __trap();  // built without sm_90a: wgmma_supported() keeps this from being launched
#endif
}

// ---- host side ------------------------------------------------------------------------------------

/// The tensor map of a rows × cols row-major FP32 matrix (leading dimension ld, a multiple of 4),
/// boxes of box_rows × 32 in the 128-byte swizzle; reads past the edges give zeros.
CUtensorMap tile_map(const float* data, int rows, int cols, std::size_t ld, int box_rows) {
  return swizzled_tile_map(CU_TENSOR_MAP_DATA_TYPE_FLOAT32, static_cast<int>(sizeof(float)), data, static_cast<std::uint64_t>(cols),
                           static_cast<std::uint64_t>(rows), ld * sizeof(float), box_rows);
}

/// The blocks a pass launches: at most this many, each looping over the pass's blocks of work.
constexpr long long kMaxSplitBlocks = 1 << 20;

/// The split of op(A) (into a_big, a_small) and op(B)ᵀ (b_big, b_small) and their rows' and columns'
/// largest magnitudes (maxima: m of A's rows, then n of B's columns); rows and columns of uncommon
/// magnitudes split again, scaled.
void launch_split(const GemmArgs& g, unsigned* maxima, float* a_big, float* a_small, float* b_big, float* b_small, std::size_t depth,
                  cudaStream_t stream, DeviceGate gate) {
  GPULAB_CUDA_CHECK(cudaMemsetAsync(maxima, 0, (static_cast<std::size_t>(g.m) + g.n) * sizeof(unsigned), stream));
  if (g.k == 0) return;
  auto operand = [&](const float* data, std::size_t ld, bool k_major, int rows, unsigned* max, float* big, float* small) {
    SplitOperand o{data, ld, k_major, rows, max, big, small};
    if (k_major) {  // pieces of kRowPiece floats of each row, kSplitWarps a block
      o.blocks_x = static_cast<int>(ceil_div(static_cast<std::size_t>(g.k), kRowPiece));
      o.blocks = static_cast<long long>(ceil_div(static_cast<std::size_t>(rows) * o.blocks_x, kSplitWarps));
    } else {  // tiles of the stored k × rows
      o.blocks_x = static_cast<int>(ceil_div(static_cast<std::size_t>(rows), kTile));
      o.blocks = static_cast<long long>(o.blocks_x) * static_cast<long long>(ceil_div(static_cast<std::size_t>(g.k), kTileK));
    }
    return o;
  };
  const SplitArgs p{{operand(g.a, g.lda, !g.a_transposed, g.m, maxima, a_big, a_small),
                     operand(g.b, g.ldb, g.b_transposed, g.n, maxima + g.m, b_big, b_small)},
                    g.k,
                    depth,
                    gate};
  // Behind a gate (the guarded Ozaki scheme's fallback, mostly closed) 16 blocks an SM, each looping
  // over the pieces: a block a piece cost 32 us of blocks returning at once at 8192³ (H200).
  const long long blocks = std::min(p.operand[0].blocks + p.operand[1].blocks, gate.count != nullptr ? 16LL * sm_count() : kMaxSplitBlocks);
  launch("sgemm_split_tf32", split_operands, {dim3(static_cast<unsigned>(blocks)), dim3(32, 8)}, stream, p)
      .work([] {
        return std::string("op(A), then op(B) transposed: rows along k in pieces of 512 (a warp, 16-byte loads), "
                           "others in tiles of 64 (k) x 32 transposed; big = tf32(x), small = tf32(x - big); each row's and column's "
                           "largest |x| by atomicMax");
      });
  launch("sgemm_rescale_tf32", rescale_rows, {dim3(static_cast<unsigned>(std::min(g.m + g.n, 4096))), 256}, stream, p).work([] {
    return std::string("a row of op(A) or of op(B) transposed a block, split again scaled by a power of two where its largest "
                       "|x| is outside [2^-50, 2^51) (else nothing)");
  });
}

/// False, with nothing enqueued, where gpulab's pool cannot hold the split operands.
template <class F>
bool run_wgmma(const GemmArgs& g, cudaStream_t stream, DeviceGate gate = {}) {
  if (g.m == 0 || g.n == 0) return true;
  if (!wgmma_supported()) throw Error("sgemm wgmma: needs a GPU of compute capability 9.0 (sm_90a)");
  constexpr int kProducts = F::kParts == 2 ? 3 : 1, kCluster = F::kClusterM;
  // K-major operands with rows padded to 16 bytes (TMA's stride unit); k = 0 copies nothing.
  const std::size_t depth = align_up(static_cast<std::size_t>(g.k), std::size_t{4});
  const std::size_t a_floats = static_cast<std::size_t>(g.m) * depth, b_floats = static_cast<std::size_t>(g.n) * depth;
  // Whole clusters: a cluster's kCluster tiles down M.
  const std::size_t tiles = tile_count(g.m, g.n, kBM * kCluster, F::kBN) * kCluster;
  const int splits = gate.count != nullptr ? 1 : splits_for(g, tiles, kMinSplitSlice);
  // Both freed in stream order, after the product.
  std::optional<StreamScratch> split, partials;
  // The split operands, then the rows' and columns' largest magnitudes (m + n words).
  const std::size_t split_bytes = F::kParts * (a_floats + b_floats) * sizeof(float);
  if (!take_scratch(split, split_bytes + (static_cast<std::size_t>(g.m) + g.n) * sizeof(unsigned), stream) ||
      !take_scratch(partials, splits > 1 ? static_cast<std::size_t>(splits) * g.m * g.n * sizeof(float) : 0, stream))
    return false;
  SplitMaps maps{};
  unsigned* a_rows = reinterpret_cast<unsigned*>(split->as<unsigned char>() + split_bytes);
  const Scales scales{a_rows, a_rows + g.m};
  float* a_big = split->as<float>();
  float* b_big = a_big + a_floats;
  float* a_small = kProducts == 3 ? b_big + b_floats : nullptr;
  float* b_small = kProducts == 3 ? a_small + a_floats : nullptr;
  launch_split(g, a_rows, a_big, a_small, b_big, b_small, depth, stream, gate);
  if (g.k > 0) {
    maps.a_big = tile_map(a_big, g.m, g.k, depth, kBM);
    maps.b_big = tile_map(b_big, g.n, g.k, depth, F::kShareRowsB);
    if (kProducts == 3)
      maps.a_small = tile_map(a_small, g.m, g.k, depth, kBM), maps.b_small = tile_map(b_small, g.n, g.k, depth, F::kShareRowsB);
  }
  constexpr auto kernel = wgmma_product<F>;
  allow_smem<kernel>(F::kSmemBytes);
  const int k_slice = static_cast<int>(align_up(ceil_div(static_cast<std::size_t>(g.k), splits), kBK));
  LaunchShape shape{dim3(checked_grid(tiles, "sgemm"), 1, static_cast<unsigned>(splits)), kThreads, F::kSmemBytes};
  shape.cluster = kCluster > 1 ? kCluster : 0;
  launch(kProducts == 3 ? "sgemm_wgmma_3xtf32" : kCluster > 1 ? "sgemm_wgmma_tf32_wide" : "sgemm_wgmma_tf32", kernel, shape, stream, maps,
         g, scales, k_slice, splits > 1 ? partials->as<float>() : nullptr, gate)
      .work([&] {
        const std::string n = std::to_string(F::kBN);
        return "a 128x" + n + " tile: TMA, " + std::to_string(F::kStages) + " stages of 32; 2 warpgroups of 64x" + n + ", " +
               (kProducts == 3 ? "12 wgmma a slice into a fresh accumulator" : "4 wgmma a slice") +
               (kCluster > 1 ? "; clusters of " + std::to_string(kCluster) + " down M, each block multicasting its share of B" : "") +
               (splits > 1 ? ", k in " + std::to_string(splits) + " slices" : "");
      });
  add_slices_of(g, splits, partials->as<float>(), stream, true);
  return true;
}

}  // namespace

bool wgmma_supported() {
  return current_compute_capability() == 90;  // sm_90a code runs on compute capability 9.0 only
}

bool wgmma_tf32x3(const GemmArgs& g, cudaStream_t stream) { return run_wgmma<Form<3>>(g, stream); }
bool wgmma_tf32x3_gated(const GemmArgs& g, cudaStream_t stream, DeviceGate gate) { return run_wgmma<Form<3>>(g, stream, gate); }
bool wgmma_tf32(const GemmArgs& g, cudaStream_t stream) { return run_wgmma<Form<1>>(g, stream); }
bool wgmma_tf32_wide(const GemmArgs& g, cudaStream_t stream) { return run_wgmma<Form<1, 256, 2>>(g, stream); }

}  // namespace gpulab::sgemm_detail
