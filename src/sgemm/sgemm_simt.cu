// The CUDA-core kernels of gpulab::sgemm and their launches, for every GPU: the warp-tiled,
// cp.async-pipelined kernels (sgemm_warp_tiles.cuh, sgemm_big_tiles.cuh) in a few tile configurations; split-K's ordered
// second pass; and for C of at most 8 rows or 8 columns (GEMV-like), kernels that stream the large
// operand once (the few-rows kernel in clusters where the GPU launches them, sm_90 and newer).
// Which of them runs is sgemm_dispatch.cu's rules and sgemm.cu's tuner.
#include "lib/arith.hpp"
#include "lib/launch.cuh"
#include "lib/launch_limits.hpp"
#include "lib/memory_layout.hpp"
#include "lib/per_device.hpp"
#include "sgemm/sgemm_big_tiles.cuh"
#include "sgemm/sgemm_warp_tiles.cuh"
#include "sgemm/sgemm_paths.hpp"

#include <gpulab/error.hpp>

#include <cooperative_groups.h>

#include <algorithm>
#include <iterator>
#include <string>
#include <type_traits>
#include <vector>

namespace gpulab {

namespace sgemm_device {

namespace cg = cooperative_groups;

__device__ __forceinline__ float4 plus(float4 x, float4 y) { return {x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w}; }

/// acc += a · b along k: the four products of a lane's step, the last one first.
__device__ __forceinline__ float dot4_add(float4 a, float4 b, float acc) {
  return fmaf(a.x, b.x, fmaf(a.y, b.y, fmaf(a.z, b.z, fmaf(a.w, b.w, acc))));
}

/// acc[i][q] += A(i, p) · B(p, j + q) for p from `first` below `end` in steps of `step`, in that
/// order, batches of loads issued before their multiply-adds. kFull: B(p, j … j + 3) is one
/// aligned float4 inside the matrix; else the columns from n on read as 0.
template <int kRows, bool kFull>
__device__ __forceinline__ void accumulate_few_rows(const GemmArgs& g, int j, int first, int end, int step,
                                                    float (&acc)[kRows][4]) {
  // The batch's B and A values in registers. Batches of 16 for one or two rows, with two blocks
  // an SM, were 5–6% slower (1×4096×4096 and 4×4096×4096 on the H100).
  constexpr int kBatch = kRows <= 2 ? 8 : 4;
  auto load_b = [&](int p) {
    const float* row = g.b + static_cast<std::size_t>(p) * g.ldb + j;
    if constexpr (kFull) return *reinterpret_cast<const float4*>(row);
    return float4{row[0], j + 1 < g.n ? row[1] : 0.f, j + 2 < g.n ? row[2] : 0.f, j + 3 < g.n ? row[3] : 0.f};
  };
  auto load_a = [&](int i, int p) { return i < g.m ? g.a[static_cast<std::size_t>(i) * g.lda + p] : 0.f; };
  auto add = [&](const float4& b, const float (&a)[kRows]) {
#pragma unroll
    for (int i = 0; i < kRows; ++i) {
      acc[i][0] = fmaf(a[i], b.x, acc[i][0]);
      acc[i][1] = fmaf(a[i], b.y, acc[i][1]);
      acc[i][2] = fmaf(a[i], b.z, acc[i][2]);
      acc[i][3] = fmaf(a[i], b.w, acc[i][3]);
    }
  };
  int p = first;
  for (; p + (kBatch - 1) * step < end; p += kBatch * step) {
    float4 b[kBatch];
    float a[kBatch][kRows];
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      b[u] = load_b(p + u * step);
#pragma unroll
      for (int i = 0; i < kRows; ++i) a[u][i] = load_a(i, p + u * step);
    }
#pragma unroll
    for (int u = 0; u < kBatch; ++u) add(b[u], a[u]);
  }
  for (; p < end; p += step) {
    float a[kRows];
#pragma unroll
    for (int i = 0; i < kRows; ++i) a[i] = load_a(i, p);
    add(load_b(p), a);
  }
}

// Few rows of C (m ≤ 8), split-K form (too few columns for clusters, or more than 4 rows and 64
// MiB of B or more): the product is B read once, m multiply-adds per element of B. A thread owns 4
// columns and all m rows of them; the block's 256 threads 1024 columns (4 KB of each row of B);
// blockIdx.y a slice of k, whose raw sums go to `partials` for add_slices. The warp-tiled kernel
// would spend a 64-row tile on each row.
template <int kRows, bool kVectorB>
__global__ void __launch_bounds__(256) few_rows(GemmArgs g, int k_slice, float* partials) {
  allow_dependent_grid();  // add_slices may be scheduled now; it waits for this grid's sums
  const int j = (static_cast<int>(blockIdx.x) * 256 + static_cast<int>(threadIdx.x)) * 4;
  if (j >= g.n) return;
  const int k_begin = static_cast<int>(blockIdx.y) * k_slice, k_end = min(g.k, k_begin + k_slice);
  float acc[kRows][4] = {};
  if (kVectorB && j + 3 < g.n)
    accumulate_few_rows<kRows, true>(g, j, k_begin, k_end, 1, acc);
  else
    accumulate_few_rows<kRows, false>(g, j, k_begin, k_end, 1, acc);
#pragma unroll
  for (int i = 0; i < kRows; ++i) {
    if (i >= g.m) break;
    if (partials == nullptr) {
      store_c4(g, i, j, {acc[i][0], acc[i][1], acc[i][2], acc[i][3]});
    } else {
      float* p = partials + (static_cast<std::size_t>(blockIdx.y) * g.m + i) * g.n + j;
      for (int q = 0; q < 4 && j + q < g.n; ++q) p[q] = acc[i][q];
    }
  }
}

// Few rows of C (m ≤ 4, or up to 8 where the split-K form's grid would not fill the GPU; the GEMV
// of a row vector at m = 1): B is read once, at the rate of a copy. A block owns 128 columns (a
// warp reads 512 contiguous bytes of a row of B, a lane 16) and 1/ranks of k; its 8 warps take
// every 8th row of that range. The warps' sums go through shared memory, then the cluster's blocks'
// sums through distributed shared memory, each added in a fixed order: one launch, no partial sums
// in global memory and no second kernel (the split-K path's), the same bits every run.
template <int kRows, bool kVectorB>
__global__ void __launch_bounds__(256) few_rows_cluster(GemmArgs g, int k_slice) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  __trap();  // clusters need compute capability 9.0: few_rows_cluster_ranks gives 0 on older GPUs
#else
  constexpr int kWarps = 8, kCols = 128;
  __shared__ float4 warp_sums[kWarps][kRows][32];
  __shared__ float4 block_sums[kRows][32];
  cg::cluster_group cluster = cg::this_cluster();
  const int rank = static_cast<int>(cluster.block_rank()), ranks = static_cast<int>(cluster.num_blocks());
  const int group = static_cast<int>(blockIdx.x) / ranks;
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int j = group * kCols + lane * 4;
  const int k_begin = rank * k_slice, k_end = min(g.k, k_begin + k_slice);

  float acc[kRows][4] = {};
  // No return for j ≥ n: every thread takes part in the barriers below. The test of the row's
  // last columns is made once, outside the loop, so that each batch's loads are all issued
  // before its first multiply-add (a branch per load kept one load in flight a warp: 1.37 TB/s).
  if (kVectorB && j + 3 < g.n)
    accumulate_few_rows<kRows, true>(g, j, k_begin + warp, k_end, kWarps, acc);
  else if (j < g.n)
    accumulate_few_rows<kRows, false>(g, j, k_begin + warp, k_end, kWarps, acc);
#pragma unroll
  for (int i = 0; i < kRows; ++i) warp_sums[warp][i][lane] = {acc[i][0], acc[i][1], acc[i][2], acc[i][3]};
  __syncthreads();
  const int t = static_cast<int>(threadIdx.x);
  if (t < kRows * 32) {  // the block's sum of (row t / 32, lane t % 32): warps in order
    float4 sum = warp_sums[0][t / 32][t % 32];
    for (int w = 1; w < kWarps; ++w) {
      sum = plus(sum, warp_sums[w][t / 32][t % 32]);
    }
    block_sums[t / 32][t % 32] = sum;
  }
  cluster.sync();  // every block's sums are written
  // The cluster's sum: this block finishes every ranks-th entry, adding the blocks' sums in order.
  for (int e = t * ranks + rank; e < kRows * 32; e += 256 * ranks) {
    float4 sum = *cluster.map_shared_rank(&block_sums[e / 32][e % 32], 0);
    for (int r = 1; r < ranks; ++r) {
      sum = plus(sum, *cluster.map_shared_rank(&block_sums[e / 32][e % 32], r));
    }
    store_c4(g, e / 32, group * kCols + e % 32 * 4, sum);
  }
  cluster.sync();  // no block leaves while another still reads its sums
#endif
}

// Few columns of C (n ≤ 8; the GEMV of a column vector when n = 1): row i of C is row i of A
// times B's n columns, so A is read once and B (k × n, small) many times. A warp owns a row; its
// lanes take 4 consecutive k at a time (16-byte loads where A's rows allow), and B's columns come
// from shared memory, staged transposed per chunk of k so that a lane reads its 4 values of a
// column as one conflict-free float4. The lanes' sums are added by a butterfly, the same tree
// every run.
template <int kCols, bool kVectorA>
__global__ void __launch_bounds__(256) few_cols(GemmArgs g) {
  constexpr int kWarps = 8, kChunk = 1024;
  __shared__ float4 bt[kCols][kChunk / 4];  // bt[c][p / 4]: column c of B's chunk, along k
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int row = static_cast<int>(blockIdx.x) * kWarps + warp;
  const float* a_row = g.a + static_cast<std::size_t>(min(row, g.m - 1)) * g.lda;
  float acc[kCols] = {};
  for (int k0 = 0; k0 < g.k; k0 += kChunk) {
    const int len = min(kChunk, g.k - k0);
    __syncthreads();  // the previous chunk is used up
    float* bt_floats = reinterpret_cast<float*>(bt);
    for (int e = static_cast<int>(threadIdx.x); e < kCols * kChunk; e += 256) {
      const int c = e / kChunk, p = e % kChunk;  // consecutive threads, consecutive slots: no bank conflict
      bt_floats[c * kChunk + p] = p < len && c < g.n ? g.b[static_cast<std::size_t>(k0 + p) * g.ldb + c] : 0.f;
    }
    __syncthreads();
    if (row < g.m && kVectorA && len == kChunk) {
      // A whole chunk: the lane's 8 loads issued before any multiply-add.
      float4 a[kChunk / 128];
#pragma unroll
      for (int u = 0; u < kChunk / 128; ++u) a[u] = *reinterpret_cast<const float4*>(a_row + k0 + lane * 4 + u * 128);
#pragma unroll
      for (int u = 0; u < kChunk / 128; ++u)
#pragma unroll
        for (int c = 0; c < kCols; ++c) {
          acc[c] = dot4_add(a[u], bt[c][lane + u * 32], acc[c]);
        }
    } else if (row < g.m) {
#pragma unroll 2
      for (int p = lane * 4; p < len; p += 128) {
        const float* a_p = a_row + k0 + p;
        const float4 a = kVectorA && p + 3 < len
                             ? *reinterpret_cast<const float4*>(a_p)
                             : float4{a_p[0], p + 1 < len ? a_p[1] : 0.f, p + 2 < len ? a_p[2] : 0.f, p + 3 < len ? a_p[3] : 0.f};
#pragma unroll
        for (int c = 0; c < kCols; ++c) acc[c] = dot4_add(a, bt[c][p / 4], acc[c]);
      }
    }
  }
#pragma unroll
  for (int c = 0; c < kCols; ++c)
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) acc[c] += __shfl_xor_sync(0xffffffffu, acc[c], offset);
  if (row < g.m && lane == 0)
#pragma unroll
    for (int c = 0; c < kCols; ++c)
      if (c < g.n) store_c(g, row, c, acc[c]);
}

// Split-K's second step: each element of C is its slices' sums added in slice order, one thread
// an element (nvcc keeps 16 loads in flight).
__global__ void add_slices(GemmArgs g, int splits, const float* partials) {
  wait_for_prior_grid();  // launched as a dependent of the kernel that wrote `partials`
  const std::size_t elements = static_cast<std::size_t>(g.m) * g.n;
  for (std::size_t e = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; e < elements;
       e += std::size_t{gridDim.x} * blockDim.x) {
    float sum = partials[e];
    for (int z = 1; z < splits; ++z) sum += partials[z * elements + e];
    store_c(g, static_cast<int>(e / g.n), static_cast<int>(e % g.n), sum);
  }
}

// add_slices for deep slicings of few elements (a 64×64 tile's 4096 sums in 264 slices), which
// one thread an element would spread over a few SMs: a block of 8 warps takes 32 elements per
// group of `depth` warps (2, 4 or 8); warp w of a group adds slices w, w + depth, ... in order, 16
// loads issued before their adds, then the group's first warp adds the warps' sums in order.
__global__ void __launch_bounds__(256) add_slices_deep(GemmArgs g, int splits, int depth, const float* partials) {
  extern __shared__ float sums[];  // [8 warps][32 lanes]
  wait_for_prior_grid();
  const std::size_t elements = static_cast<std::size_t>(g.m) * g.n;
  const int lane = static_cast<int>(threadIdx.x) % 32, warp = static_cast<int>(threadIdx.x) / 32;
  const int group = warp / depth, first = warp % depth, groups = 8 / depth;
  for (std::size_t base = std::size_t{blockIdx.x} * groups * 32; base < elements; base += std::size_t{gridDim.x} * groups * 32) {
    const std::size_t e = base + static_cast<std::size_t>(group) * 32 + lane;
    if (e < elements) {
      constexpr int kBatch = 16;
      float sum = partials[first * elements + e];
      for (int z0 = first + depth; z0 < splits; z0 += kBatch * depth) {
        float slice[kBatch];
#pragma unroll
        for (int u = 0; u < kBatch; ++u) slice[u] = z0 + u * depth < splits ? partials[(z0 + u * depth) * elements + e] : 0.f;
#pragma unroll
        for (int u = 0; u < kBatch; ++u)
          if (z0 + u * depth < splits) sum += slice[u];  // (not += 0: a -0 sum stays -0)
      }
      sums[warp * 32 + lane] = sum;
    }
    __syncthreads();
    if (first == 0 && e < elements) {
      float total = sums[warp * 32 + lane];
      for (int w = 1; w < depth; ++w) total += sums[(warp + w) * 32 + lane];
      store_c(g, static_cast<int>(e / g.n), static_cast<int>(e % g.n), total);
    }
    __syncthreads();  // the sums are read before the next elements overwrite them
  }
}

}  // namespace sgemm_device

namespace sgemm_detail {
namespace {

using namespace sgemm_device;

/// A tiled kernel (warp_tiles, big_tiles) over C in T's tiles and k in `splits` slices
/// (blockIdx.z), each slice a multiple of T::kBK so that only the last one is ragged.
template <class T, class Kernel>
void launch_tiled(const char* name, Kernel kernel, std::size_t smem_bytes, const std::string& per_thread,
                  const GemmArgs& g, int splits, float* partials, cudaStream_t stream) {
  const std::size_t tiles = tile_count(g.m, g.n, T::kBM, T::kBN);
  const int k_slice = splits == 1 ? g.k : static_cast<int>(align_up(ceil_div(static_cast<std::size_t>(g.k), splits), T::kBK));
  launch(name, kernel,
         {dim3(checked_grid(tiles, "gpulab::sgemm"), static_cast<unsigned>(g.batch), static_cast<unsigned>(splits)), T::kThreads, smem_bytes},
         stream, g, k_slice, partials)
      .work([&] {
        return std::to_string(T::kBM) + "x" + std::to_string(T::kBN) + " tile, " + per_thread +
               (splits > 1 ? ", k in " + std::to_string(splits) + " slices" : "") +
               (g.batch > 1 ? ", " + std::to_string(g.batch) + " products (blockIdx.y)" : "");
      });
}

template <int kWarpsM, int kWarpsN, int kFragsM, int kFragsN, int kStages, Copies kCopies>
void launch_tiles(const char* name, const GemmArgs& g, int splits, float* partials, cudaStream_t stream) {
  using T = WarpTiles<kWarpsM, kWarpsN, kFragsM, kFragsN, kStages, kCopies>;
  constexpr auto kernel = warp_tiles<kWarpsM, kWarpsN, kFragsM, kFragsN, kStages, kCopies>;
  allow_smem<kernel>(T::kSmemBytes);
  launch_tiled<T>(name, kernel, T::kSmemBytes, std::to_string(kFragsM * 4) + "x" + std::to_string(kFragsN * 4) + " per thread",
                  g, splits, partials, stream);
}

/// The big-tile kernel (16-byte loads or 4-byte; it needs no guarded form: its plain loads read
/// only valid elements, its cp.async copies a partial vector 4 bytes at a time), in the operands'
/// form (GemmArgs::a_transposed, b_transposed).
template <int kChunksM, bool kVector, int kBlockRows, int kStages>
void launch_big(const char* name, const GemmArgs& g, int splits, float* partials, cudaStream_t stream) {
  using T = BigTiles<kChunksM, kBlockRows>;
  const std::string per_thread = std::to_string(T::kRows) + "x" + std::to_string(T::kCols) + " per thread, fragments double-buffered" +
                                 (kStages > 0 ? ", cp.async " + std::to_string(kStages) + " stages" : "");
  auto run = [&](auto a_transposed, auto b_transposed) {
    constexpr bool kAT = decltype(a_transposed)::value, kBT = decltype(b_transposed)::value;
    constexpr auto kernel = big_tiles<kChunksM, kVector, kBlockRows, kStages, kAT, kBT>;
    if constexpr (deep_slices<kChunksM, kStages, kAT, kBT>) {
      // Slices 16 deep (big_tiles_smem_bytes past the 48 KiB of static shared memory): where the
      // device cannot give a block that much (a T4: 64 KiB, and no cp.async), the fragments kernel.
      using Deep = BigTiles<kChunksM, kBlockRows, 16>;
      constexpr std::size_t kBytes = big_tiles_smem_bytes<Deep, kStages, kBT>();
      if (kBytes > static_cast<std::size_t>(current_device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin)))
        return launch_big<kChunksM, kVector, kBlockRows, 0>(name, g, splits, partials, stream);
      allow_smem<kernel>(kBytes);
      // k's split slices aligned to 8 as the other forms' (T), so that each sum is theirs: the
      // kernel zero-fills a first slice that starts below its k.
      launch_tiled<T>(name, kernel, kBytes, per_thread + ", slices 16 deep, " + std::string(operand_form(g)), g, splits, partials, stream);
    } else {
      launch_tiled<T>(name, kernel, 0, per_thread + (g.as_stored() ? "" : ", " + std::string(operand_form(g))), g, splits, partials, stream);
    }
  };
  using No = std::false_type;
  using Yes = std::true_type;
  if (g.a_transposed && g.b_transposed && g.copies == 0) {
    // Cᵀ = op(B)ᵀ·op(A)ᵀ = B·A with both as stored: the as-stored kernel on B's rows and A's (16-byte
    // copies where B stored n × k went to transposed places 4 bytes at a time: 0.93 of cuBLAS at
    // 8192³ on the H200, as stored 0.97), its tile's rows stored as C's columns. The same FMA
    // chains, so the same bits.
    GemmArgs swapped = g;
    swapped.m = g.n, swapped.n = g.m;
    swapped.a = g.b, swapped.lda = g.ldb, swapped.stride_a = g.stride_b;
    swapped.b = g.a, swapped.ldb = g.lda, swapped.stride_b = g.stride_a;
    swapped.a_transposed = swapped.b_transposed = false;
    return launch_tiled<T>(name, big_tiles<kChunksM, kVector, kBlockRows, kStages, false, false, true>, 0,
                           per_thread + ", A and B stored transposed: Cᵀ = B·A, stored transposed", swapped, splits, partials, stream);
  }
  if (g.a_transposed && g.b_transposed) return run(Yes{}, Yes{});
  if (g.a_transposed) return run(Yes{}, No{});
  if (g.b_transposed) return run(No{}, Yes{});
  run(No{}, No{});
}

using Launcher = void (*)(const char*, const GemmArgs&, int, float*, cudaStream_t);

/// One configuration: its name and its launchers, one per way of copying tiles (Copies).
struct Config {
  TileConfig info;
  Launcher launchers[3];
  std::string_view kernel;  // the launches' name: kernel_<configuration>
};

template <int kWarpsM, int kWarpsN, int kFragsM, int kFragsN, int kStages>
constexpr Config config(std::string_view name) {
  using T = WarpTiles<kWarpsM, kWarpsN, kFragsM, kFragsN, kStages, Copies::vector>;
  return {{name, T::kBM, T::kBN, T::kSmemBytes},
          {launch_tiles<kWarpsM, kWarpsN, kFragsM, kFragsN, kStages, Copies::scalar>,
           launch_tiles<kWarpsM, kWarpsN, kFragsM, kFragsN, kStages, Copies::vector>,
           launch_tiles<kWarpsM, kWarpsN, kFragsM, kFragsN, kStages, Copies::vector_guarded>},
          "warp_tiles"};
}

template <int kChunksM, int kBlockRows = 128, int kStages = 0>
constexpr Config big_config(std::string_view name) {
  using T = BigTiles<kChunksM, kBlockRows>;
  return {{name, T::kBM, T::kBN, 0, true},
          {launch_big<kChunksM, false, kBlockRows, kStages>, launch_big<kChunksM, true, kBlockRows, kStages>,
           launch_big<kChunksM, true, kBlockRows, kStages>},
          "big_tiles"};
}

/// 16-byte copies where both operands' rows allow them; guarded where a partial vector can occur
/// (n or k not a multiple of 4, so a row's last vector is partial).
Copies copies_for(const GemmArgs& g) {
  if (!vector_rows(g)) return Copies::scalar;
  return g.n % 4 != 0 || g.k % 4 != 0 ? Copies::vector_guarded : Copies::vector;
}

// The tuner's candidates: big tiles reuse more per load, small ones fill the GPU on small or
// skinny outputs. Warps × fragments: 4 × 2 warps of 2 × 1 fragments = 128 × 64 (the default:
// 2 blocks an SM); 2 × 2 fragments = 128 × 128 (more reuse, 1 block an SM).
constexpr Config kConfigs[] = {
    config<4, 2, 2, 1, 3>("128x64x3"),
    config<4, 2, 2, 2, 3>("128x128x3"),
    config<2, 2, 2, 2, 3>("64x128x3"),
    config<2, 2, 2, 1, 4>("64x64x4"),
    config<4, 2, 2, 2, 2>("128x128x2"),
    config<4, 2, 4, 2, 3>("256x128x3"),  // 16 × 8 a thread: cuBLAS's shape for this problem
    big_config<4>("128x256_fragments"),
    big_config<2>("128x128_fragments"),
    big_config<2, 64>("64x128_fragments"),
    big_config<4, 128, 3>("128x256_staged3"),
    big_config<2, 64, 4>("64x128_staged4"),  // the tuner's pick at 1536³ and 3000³ (H100); 128 × 128 staged never was
};
// The rule's picks (and rungs 8-10) fit the 48 KiB every GPU gives a block.
static_assert(kConfigs[kDefault].info.smem_bytes <= 48 * 1024 && kConfigs[kSmall].info.smem_bytes <= 48 * 1024);
static_assert(std::size(kConfigs) > kSmallStaged && kConfigs[kDefault].info.name == "128x64x3" && kConfigs[kSmall].info.name == "64x64x4" &&
              kConfigs[kBig].info.name == "128x256_fragments" && kConfigs[kStaged].info.name == "128x256_staged3" &&
              kConfigs[kSmallStaged].info.name == "64x128_staged4" && kConfigs[kStaged].info.every_form &&
              kConfigs[kSmallStaged].info.every_form);

void run_with(const Config& c, const GemmArgs& g, int splits, float* partials, cudaStream_t stream) {
  const std::string name = std::string(c.kernel) + "_" + std::string(c.info.name);
  c.launchers[static_cast<int>(copies_for(g))](name.c_str(), g, splits, partials, stream);
}

}  // namespace
bool rows_aligned16(const float* p, std::size_t ld) {
  // Every row, even of a one-row operand: a 16-byte cp.async of a partial vector addresses 16
  // bytes, and only a leading dimension that is a multiple of 4 keeps them inside the row's
  // padding (the journal: git show 539355e:docs/notes.md).
  return gpulab::rows_aligned16(p, ld * sizeof(float), 2);
}

bool vector_rows(const GemmArgs& g) {
  // In a batch, every member's rows: its strides keep the first member's alignment when they are
  // multiples of 4 floats.
  const bool members = g.batch == 1 || (g.stride_a % 4 == 0 && g.stride_b % 4 == 0);
  return members && rows_aligned16(g.a, g.lda) && rows_aligned16(g.b, g.ldb);
}

std::span<const TileConfig> tile_configs() {
  static const auto infos = [] {
    std::vector<TileConfig> v;
    for (const Config& c : kConfigs) v.push_back(c.info);
    return v;
  }();
  return infos;
}

std::string_view operand_form(const GemmArgs& g) {
  if (g.a_transposed) return g.b_transposed ? "A and B stored transposed" : "A stored transposed";
  return g.b_transposed ? "B stored transposed" : "A and B as stored";
}

bool config_takes(std::size_t config, const GemmArgs& g) { return g.as_stored() || tile_configs()[config].every_form; }

bool config_fits(std::size_t config) {
  return tile_configs()[config].smem_bytes <= static_cast<std::size_t>(current_device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin));
}

/// Split-K's second step, after either path.
void add_slices_of(const GemmArgs& g, int splits, const float* partials, cudaStream_t stream, bool after_tiles) {
  if (splits <= 1) return;
  const std::size_t elements = static_cast<std::size_t>(g.m) * g.n;
  // Warps along the slices where the elements give few warps, up to a block's 8 and at least 4
  // slices a warp: after the tiles below 8 warps an SM (64×64×2^20, 264 slices: 1.03× faster;
  // 128×128×8192 and 100×100×10000 1.11×). Only below 2 after the few-rows kernel, which leaves
  // room on an SM for add_slices' blocks to wait beside its own (32 registers, no shared memory)
  // and perhaps not for the deep kernel's (8×4096×4096: 0.0402 ms with 2 warps deep, 0.0356 with
  // add_slices; H100, docs/sgemm.md).
  const std::size_t warps = ceil_div(elements, 32), sms = static_cast<std::size_t>(sm_count());
  int depth = 1;
  if (warps < (after_tiles ? 8 : 2) * sms)
    while (depth < 8 && 4 * 2 * depth <= splits) depth *= 2;
  // Dependent launches: scheduled while the slices' kernel finishes, so the launch is not a gap.
  if (depth == 1) {
    LaunchShape shape{checked_grid(std::min<std::size_t>(ceil_div(elements, 256), 65536), "gpulab::sgemm"), 256};
    shape.follows = true;
    launch("add_slices", add_slices, shape, stream, g, splits, partials)
        .work([&] { return std::to_string(splits) + " slices added in order"; });
    return;
  }
  const std::size_t per_block = 32 * static_cast<std::size_t>(8 / depth);
  LaunchShape shape{checked_grid(std::min<std::size_t>(ceil_div(elements, per_block), 65536), "gpulab::sgemm"), 256,
                    8 * 32 * sizeof(float)};
  shape.follows = true;
  launch("add_slices_deep", add_slices_deep, shape, stream, g, splits, depth, partials)
      .work([&] { return std::to_string(splits) + " slices added in order, " + std::to_string(depth) + " warps deep"; });
}

namespace {

/// f(std::integral_constant<int, c>), c the row (or column) count of the kernel that holds
/// `count` ≤ 8: 1, 2, 4 or 8.
template <class F>
void by_count(int count, F&& f) {
  if (count == 1) f(std::integral_constant<int, 1>{});
  else if (count == 2) f(std::integral_constant<int, 2>{});
  else if (count <= 4) f(std::integral_constant<int, 4>{});
  else f(std::integral_constant<int, 8>{});
}

template <int kRows>
void launch_few_rows(const GemmArgs& g, int splits, float* partials, cudaStream_t stream) {
  const bool vector_b = rows_aligned16(g.b, g.ldb);
  const int k_slice = static_cast<int>(ceil_div(static_cast<std::size_t>(g.k), splits));
  const dim3 grid(checked_grid(ceil_div(static_cast<std::size_t>(g.n), 1024), "gpulab::sgemm"), static_cast<unsigned>(splits));
  launch(vector_b ? "few_rows<vector>" : "few_rows<scalar>", vector_b ? few_rows<kRows, true> : few_rows<kRows, false>,
         {grid, 256}, stream, g, k_slice, partials)
      .work([&] {
        return "1024 columns x " + std::to_string(g.m) + " rows, k in " + std::to_string(splits) + " slices";
      });
}

template <int kRows>
void launch_few_rows_cluster(const GemmArgs& g, int ranks, cudaStream_t stream) {
  const bool vector_b = rows_aligned16(g.b, g.ldb);
  const int k_slice = static_cast<int>(ceil_div(static_cast<std::size_t>(g.k), ranks));
  const std::size_t groups = ceil_div(static_cast<std::size_t>(g.n), 128);
  LaunchShape shape{dim3(checked_grid(groups * ranks, "gpulab::sgemm")), dim3(256)};
  shape.cluster = static_cast<unsigned>(ranks);
  launch(vector_b ? "few_rows_cluster<vector>" : "few_rows_cluster<scalar>",
         vector_b ? few_rows_cluster<kRows, true> : few_rows_cluster<kRows, false>, shape, stream, g, k_slice)
      .work([&] { return "128 columns x " + std::to_string(g.m) + " rows, k in " + std::to_string(ranks) + " blocks of a cluster"; });
}

template <int kCols>
void launch_few_cols(const GemmArgs& g, cudaStream_t stream) {
  const bool vector_a = rows_aligned16(g.a, g.lda);
  launch(vector_a ? "few_cols<vector>" : "few_cols<scalar>", vector_a ? few_cols<kCols, true> : few_cols<kCols, false>,
         {dim3(checked_grid(ceil_div(static_cast<std::size_t>(g.m), 8), "gpulab::sgemm")), dim3(256)}, stream, g)
      .work([&] { return "8 rows x " + std::to_string(g.n) + " columns"; });
}

}  // namespace
void run_config(std::size_t config, const GemmArgs& g, int splits, float* partials, cudaStream_t stream) {
  if (!config_takes(config, g))
    throw Error("gpulab::sgemm: configuration " + std::string(tile_configs()[config].name) + " takes operands as stored only, not " +
                std::string(operand_form(g)));
  if (g.batch > 1 && splits > 1) throw Error("gpulab::sgemm: a batch of products does not split k");
  if (g.m == 0 || g.n == 0) return;
  run_with(kConfigs[config], g, splits, splits > 1 ? partials : nullptr, stream);
  add_slices_of(g, splits, partials, stream, true);
}
void run_few_rows(const GemmArgs& g, int splits, float* partials, cudaStream_t stream) {
  if (g.m == 0 || g.n == 0) return;
  if (g.m > kFewRows) throw Error("gpulab::sgemm: the few-rows path takes at most 8 rows");
  by_count(g.m, [&](auto rows) { launch_few_rows<decltype(rows)::value>(g, splits, splits > 1 ? partials : nullptr, stream); });
  add_slices_of(g, splits, partials, stream, false);
}

int few_rows_max_cluster_ranks() {
  static PerDevice<int> ranks;
  return ranks.get([] {
    // No clusters before compute capability 9.0: the few-rows path takes its split-K form there.
    if (!cluster_launch()) return 0;
    // Clusters of 16 are past the portable size: allowed per kernel, and taken only where the
    // device can hold one of the largest form (8 rows: 36 KB of shared memory a block).
    for (auto* kernel : {few_rows_cluster<1, true>, few_rows_cluster<1, false>, few_rows_cluster<2, true>, few_rows_cluster<2, false>,
                         few_rows_cluster<4, true>, few_rows_cluster<4, false>, few_rows_cluster<8, true>, few_rows_cluster<8, false>})
      GPULAB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    const void* largest = reinterpret_cast<const void*>(few_rows_cluster<8, true>);
    return resident_clusters(largest, 256, kMaxClusterRanks) >= 1 ? kMaxClusterRanks : kMaxClusterRanks / 2;
  });
}

void run_few_rows_cluster(const GemmArgs& g, int ranks, cudaStream_t stream) {
  if (g.m == 0 || g.n == 0) return;
  if (g.m > kFewRows) throw Error("gpulab::sgemm: the few-rows path takes at most 8 rows");
  if (ranks < 1 || ranks > few_rows_max_cluster_ranks())
    throw Error("gpulab::sgemm: a cluster of 1 to " + std::to_string(few_rows_max_cluster_ranks()) + " blocks on this device");
  by_count(g.m, [&](auto rows) { launch_few_rows_cluster<decltype(rows)::value>(g, ranks, stream); });
}

void run_few_cols(const GemmArgs& g, cudaStream_t stream) {
  if (g.m == 0 || g.n == 0) return;
  if (g.n > kFewCols) throw Error("gpulab::sgemm: the few-columns path takes at most 8 columns");
  by_count(g.n, [&](auto cols) { launch_few_cols<decltype(cols)::value>(g, stream); });
}

void warp_tiles_plain(const GemmArgs& g, cudaStream_t stream) {
  if (g.m == 0 || g.n == 0) return;
  // Plain loads copy a partial vector element by element: no guard needed.
  (vector_rows(g) ? launch_tiles<4, 2, 2, 1, 1, Copies::vector> : launch_tiles<4, 2, 2, 1, 1, Copies::scalar>)(
      "warp_tiles_plain", g, 1, nullptr, stream);
}

void warp_tiles_pipelined(const GemmArgs& g, cudaStream_t stream) { run_config(kDefault, g, 1, nullptr, stream); }

void big_tiles_fragments(const GemmArgs& g, cudaStream_t stream) { run_config(kBig, g, 1, nullptr, stream); }

void big_tiles_staged(const GemmArgs& g, cudaStream_t stream) { run_config(kStaged, g, 1, nullptr, stream); }


}  // namespace sgemm_detail
}  // namespace gpulab
