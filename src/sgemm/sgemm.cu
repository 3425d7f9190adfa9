// gpulab::sgemm (include/gpulab/sgemm.hpp): the warp-tiled, cp.async-pipelined kernel of
// sgemm_device.cuh in a few tile configurations, chosen per shape and device by measurement;
// split-K with an ordered second pass where the output has too few tiles to fill the GPU; and
// for C of at most 8 rows or 8 columns (GEMV-like), kernels that stream the large operand once.
#include "lib/arith.hpp"
#include "lib/copy_rows.hpp"
#include "lib/launch.cuh"
#include "lib/launch_limits.hpp"
#include "lib/memory_layout.hpp"
#include "lib/per_device.hpp"
#include "lib/stream_scratch.hpp"
#include "sgemm/sgemm_device.cuh"
#include "sgemm/sgemm_paths.hpp"

#include <gpulab/device_buffer.hpp>
#include <gpulab/error.hpp>
#include <gpulab/sgemm.hpp>

#include <cooperative_groups.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
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
  // an SM, were slower: 1×4096×4096 36.5 → 38.5 µs, 4×4096×4096 40.2 → 42.5 µs (ee5dc0e).
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
  launch(name, kernel, {dim3(checked_grid(tiles, "gpulab::sgemm"), 1, static_cast<unsigned>(splits)), T::kThreads, smem_bytes},
         stream, g, k_slice, partials)
      .work([&] {
        return std::to_string(T::kBM) + "x" + std::to_string(T::kBN) + " tile, " + per_thread +
               (splits > 1 ? ", k in " + std::to_string(splits) + " slices" : "");
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
/// only valid elements, its cp.async copies a partial vector 4 bytes at a time).
template <int kChunksM, bool kVector, int kBlockRows, int kStages>
void launch_big(const char* name, const GemmArgs& g, int splits, float* partials, cudaStream_t stream) {
  using T = BigTiles<kChunksM, kBlockRows>;
  launch_tiled<T>(name, big_tiles<kChunksM, kVector, kBlockRows, kStages>, 0,
                  std::to_string(T::kRows) + "x" + std::to_string(T::kCols) + " per thread, fragments double-buffered" +
                      (kStages > 0 ? ", cp.async " + std::to_string(kStages) + " stages" : ""),
                  g, splits, partials, stream);
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
  return {{name, T::kBM, T::kBN},
          {launch_tiles<kWarpsM, kWarpsN, kFragsM, kFragsN, kStages, Copies::scalar>,
           launch_tiles<kWarpsM, kWarpsN, kFragsM, kFragsN, kStages, Copies::vector>,
           launch_tiles<kWarpsM, kWarpsN, kFragsM, kFragsN, kStages, Copies::vector_guarded>},
          "warp_tiles"};
}

template <int kChunksM, int kBlockRows = 128, int kStages = 0>
constexpr Config big_config(std::string_view name) {
  using T = BigTiles<kChunksM, kBlockRows>;
  return {{name, T::kBM, T::kBN},
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
constexpr std::size_t kDefault = 0, kSmall = 3, kBig = 6, kStaged = 9;

void run_with(const Config& c, const GemmArgs& g, int splits, float* partials, cudaStream_t stream) {
  const std::string name = std::string(c.kernel) + "_" + std::string(c.info.name);
  c.launchers[static_cast<int>(copies_for(g))](name.c_str(), g, splits, partials, stream);
}

}  // namespace

bool rows_aligned16(const float* p, std::size_t ld) {
  // Every row, even of a one-row operand: a 16-byte cp.async of a partial vector addresses 16
  // bytes, and only a leading dimension that is a multiple of 4 keeps them inside the row's
  // padding (docs/notes.md).
  return gpulab::rows_aligned16(p, ld * sizeof(float), 2);
}

bool vector_rows(const GemmArgs& g) { return rows_aligned16(g.a, g.lda) && rows_aligned16(g.b, g.ldb); }

std::span<const TileConfig> tile_configs() {
  static const auto infos = [] {
    std::vector<TileConfig> v;
    for (const Config& c : kConfigs) v.push_back(c.info);
    return v;
  }();
  return infos;
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

/// Partial sums within 256 MiB, at most 65535 slices.
int capped_splits(const GemmArgs& g, std::size_t splits) {
  const std::size_t per_split = static_cast<std::size_t>(g.m) * g.n * sizeof(float);
  return static_cast<int>(std::clamp<std::size_t>(std::min(splits, (std::size_t{256} << 20) / per_split), 1, 65535));
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

int sm_count() {
  static PerDevice<int> count;
  return count.get([] { return current_device_attribute(cudaDevAttrMultiProcessorCount); });
}

bool cluster_launch() {
  static PerDevice<bool> supported;
  return supported.get([] { return current_device_attribute(cudaDevAttrClusterLaunch) != 0; });
}

void run_config(std::size_t config, const GemmArgs& g, int splits, float* partials, cudaStream_t stream) {
  if (g.m == 0 || g.n == 0) return;
  run_with(kConfigs[config], g, splits, splits > 1 ? partials : nullptr, stream);
  add_slices_of(g, splits, partials, stream, true);
}

std::size_t few_rows_splits_for(std::size_t n, std::size_t k, std::size_t sms) {
  // Two blocks per SM and at least 32 slices, each at least 32 deep. Each slice more is m·n
  // partial sums for add_slices to add in order: with eight blocks per SM, 8×4096×4096 took 128
  // slices and 0.0450 ms, with 64 0.0362; over m = 5…8 and n = 2048…16384 the fastest of 32, 64
  // and 128 slices was the one nearest two blocks per SM, and at n = 16384 32 slices (0.1083 ms at
  // 6×16384×4096) where 17 took 0.1405 (H100, docs/sgemm.md).
  const std::size_t wanted = std::max<std::size_t>(32, ceil_div(2 * sms, ceil_div(n, 1024)));
  return std::min(wanted, std::max<std::size_t>(1, k / 32));
}

int few_rows_splits(const GemmArgs& g) {
  return capped_splits(g, few_rows_splits_for(static_cast<std::size_t>(g.n), static_cast<std::size_t>(g.k),
                                              static_cast<std::size_t>(sm_count())));
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

int few_rows_cluster_ranks_for(std::size_t m, std::size_t n, std::size_t k, std::size_t sms, int max_ranks) {
  // Clusters of 8 blocks along k; of 16 where 8 would leave more than half the SMs idle (n ≤ 1024
  // on 132 SMs); none where even 16 would (the split-K form then). More than 4 rows take the
  // split-K form where B holds 64 MiB or more and its grid fills the GPU: its blocks read 4 KB of
  // each row of B where the cluster's read 512 bytes (8×4096×4096 0.0356 against 0.0416 ms,
  // 8×1024×16384 0.0397 against 0.0406); on less the one launch wins (8×1024×8192 0.0244 against
  // 0.0278, 8×3072×4096 0.0310 against 0.0319, 8×1024×1024 0.0102 against 0.0155). At m ≤ 4 the
  // clusters won on every shape measured (1×2048×8192 0.0280 against 0.0315 ms; 8 ranks, not 4, at
  // 1×16384×16384: 0.3563 against 0.3624; H100, docs/sgemm.md).
  constexpr std::size_t kSplitMinBytes = std::size_t{64} << 20;
  const std::size_t groups = ceil_div(n, 128);
  if (m > 4 && n * k * sizeof(float) >= kSplitMinBytes && ceil_div(n, 1024) * few_rows_splits_for(n, k, sms) >= sms) return 0;
  const int ranks = 2 * groups * 8 < sms ? max_ranks : 8;  // 8: the portable cluster size
  return 2 * groups * static_cast<std::size_t>(ranks) < sms ? 0 : ranks;
}

int few_rows_cluster_ranks(const GemmArgs& g) {
  if (!cluster_launch()) return 0;  // the split-K form
  // The device is asked whether it holds clusters of 16 only where the rule wants them.
  const auto m = static_cast<std::size_t>(g.m), n = static_cast<std::size_t>(g.n), k = static_cast<std::size_t>(g.k);
  const auto sms = static_cast<std::size_t>(sm_count());
  const int ranks = few_rows_cluster_ranks_for(m, n, k, sms, kMaxClusterRanks);
  if (ranks <= kMaxClusterRanks / 2 || few_rows_max_cluster_ranks() >= ranks) return ranks;
  return few_rows_cluster_ranks_for(m, n, k, sms, few_rows_max_cluster_ranks());
}

void run_few_rows_cluster(const GemmArgs& g, int ranks, cudaStream_t stream) {
  if (g.m == 0 || g.n == 0) return;
  if (g.m > kFewRows) throw Error("gpulab::sgemm: the few-rows path takes at most 8 rows");
  if (ranks < 1 || ranks > few_rows_max_cluster_ranks())
    throw Error("gpulab::sgemm: a cluster of 1 to " + std::to_string(few_rows_max_cluster_ranks()) + " blocks on this device");
  by_count(g.m, [&](auto rows) { launch_few_rows_cluster<decltype(rows)::value>(g, ranks, stream); });
}

bool few_cols_fits(const GemmArgs& g) {
  // One row a warp, eight a block: enough rows for two blocks an SM.
  return g.n <= kFewCols && ceil_div(static_cast<std::size_t>(g.m), 8) >= 2 * static_cast<std::size_t>(sm_count());
}

void run_few_cols(const GemmArgs& g, cudaStream_t stream) {
  if (g.m == 0 || g.n == 0) return;
  if (g.n > kFewCols) throw Error("gpulab::sgemm: the few-columns path takes at most 8 columns");
  by_count(g.n, [&](auto cols) { launch_few_cols<decltype(cols)::value>(g, stream); });
}

int splits_for(const GemmArgs& g, std::size_t tiles, int min_slice) {
  const auto sms = static_cast<std::size_t>(sm_count());
  if (tiles >= sms || g.k < 2 * min_slice) return 1;
  return capped_splits(g, std::min<std::size_t>(ceil_div(2 * sms, tiles), static_cast<std::size_t>(g.k / min_slice)));
}

namespace {

/// Waves of T's tiles over an m × n output on the current device.
template <class T>
std::size_t waves_of(int m, int n) {
  return ceil_div(tile_count(m, n, T::kBM, T::kBN), static_cast<std::size_t>(T::kMinBlocks) * sm_count());
}

}  // namespace

constexpr std::size_t kFringeAlwaysMacs = std::size_t{1} << 34;

Fringe fringe_of(const GemmArgs& g) {
  // Products of 2^34 multiply-adds or more take every fringe (below). Smaller ones take a fringe
  // only where it saves waves, counted for the two configurations the tuner picks on large
  // products, added: the big tiles' 128 × 256 at one block an SM and 128 × 128 at two; the fewest
  // of rows and columns that do: each costs a launch and a pass over B (rows) or A
  // (columns), 35 µs at 4097³. Counted in one form alone, the rule lost: 5000×3000×700 (4 waves
  // either way) 2% with 8 rows taken out (ee5dc0e); 4097³ with its last row out saves a wave of
  // 128 × 128 tiles but not of 128 × 256, and ran at 0.94× cuBLAS against 0.96× (9e755cb).
  using Wide = sgemm_device::BigTiles<4>;
  using Square = sgemm_device::BigTiles<2>;
  constexpr int kSide = Square::kBM, kMinDepth = 64;  // shallower products are bound by writing C, not by waves
  static_assert(Wide::kBM == kSide && Square::kBN == kSide && Wide::kBN % kSide == 0);
  if (g.k < kMinDepth) return {};
  auto waves = [&](Fringe f) {
    return waves_of<Wide>(g.m - f.rows, g.n - f.cols) + waves_of<Square>(g.m - f.rows, g.n - f.cols);
  };
  // A fringe is what is left past at least one full tile: a side of 1–8 is not a fringe (the
  // few-rows and few-columns paths' own rules take such products, or not).
  const int rows = g.m > kSide && g.m % kSide <= kFewRows ? g.m % kSide : 0;
  const int cols = g.n > kSide && g.n % kSide <= kFewCols ? g.n % kSide : 0;
  // Large products take every fringe: a strip's launch and its pass over B or A cost about 1% of
  // the product or less, and the tiles a fringe would leave (one to eight rows or columns, run
  // over the whole of k) cost more than their share of waves says: 8192×8193×8192 1.040× faster
  // with its one-column strip out (16 waves of 132 tiles either way), 8193³ 1.048×, 4097³ 1.016×;
  // but 5000×3000×700 (m·n·k below 2^34, its strip of 8 rows 2% of the product) 0.974× (H100,
  // docs/sgemm.md). Below, a fringe is taken where it saves waves.
  const auto macs = static_cast<std::size_t>(g.m) * static_cast<std::size_t>(g.n) * static_cast<std::size_t>(g.k);
  if (macs >= kFringeAlwaysMacs) return Fringe{rows, cols};
  Fringe best{};
  for (const Fringe f : {Fringe{rows, 0}, Fringe{0, cols}, Fringe{rows, cols}})
    if (waves(f) < waves(best)) best = f;
  return best;
}

std::size_t split_count_for(std::size_t m, std::size_t n, std::size_t k, std::size_t sms) {
  // The slice count whose busiest SM does the least, counted in 64×64 tiles (the smallest): an
  // SM's work is its blocks (ceil(tiles·s / SMs)) times a slice's depth (k / s), and each slice
  // more adds m·n partial sums, costed as 1/10700 of a tile's 64-deep step each (a 768×768
  // slice's sums 1.8 µs on the H100, a tile's step 0.033 µs). Candidates: no split, and slice
  // counts that give every SM two blocks or more (an SM with one block runs it little faster than
  // two: 512×512×4096 in 2 slices 0.0824 ms, in 4 0.0690), of at least 64 deep. Measured on the
  // H100 (docs/sgemm.md): 768×768×768 0.0505 ms unsplit, 0.0399 in 4; 512×512×4096 0.0788 in 5 (the
  // rule before: two blocks an SM), 0.0689 in 6; 896×896×2048 0.1248 unsplit, 0.0998 in the
  // count's pick; 1024×1024×1024 unsplit 0.0653, 0.0658–0.0786 in 2–8.
  const std::size_t tiles = ceil_div(m, 64) * ceil_div(n, 64);
  if (tiles == 0 || tiles >= 8 * sms) return 1;  // large products: the tuner's larger tiles, not 64×64's waves, decide
  const std::size_t deepest = std::max<std::size_t>(1, k / 64);
  const double sums_cost = static_cast<double>(m) * static_cast<double>(n) / 10700.0;
  auto cost = [&](std::size_t s) {
    return static_cast<double>(ceil_div(tiles * s, sms) * ceil_div(k, s)) + (s > 1 ? static_cast<double>(s) * sums_cost : 0.0);
  };
  const std::size_t fewest = ceil_div(2 * sms, tiles);  // slices for two blocks an SM
  if (fewest > deepest) return deepest;                 // as many as k allows
  // Below an eighth of the SMs in tiles the count's cost did not predict the time: 256×256×4096
  // (16 tiles) in 24 slices 0.0258 ms, in 17 (two blocks an SM) 0.0246; with 20 tiles and more it did.
  if (8 * tiles < sms) return fewest;
  std::size_t best = 1;
  for (std::size_t s = std::max<std::size_t>(2, fewest); s <= std::min(deepest, 4 * fewest + 16); ++s)
    if (cost(s) < cost(best)) best = s;
  return best;
}

int split_count(const GemmArgs& g) {
  return capped_splits(g, split_count_for(static_cast<std::size_t>(g.m), static_cast<std::size_t>(g.n),
                                          static_cast<std::size_t>(g.k), static_cast<std::size_t>(sm_count())));
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

// Rows that do not start on 16-byte boundaries (an odd packed k or n, an offset pointer) make
// every tile configuration copy that operand 4 bytes at a time. Where each of its elements takes
// part in enough products, such operands are first copied once to rows padded to a multiple of 4
// floats (copy_rows into gpulab's pool, in stream order, freed in stream order after the product)
// and the product runs on the copy: same arithmetic, same bits. The staged kernel reads A 4 bytes
// at a time anyway, and only its B copies narrow (4% slower: 8192×8192×8193 22.78 ms on packed
// rows, 22.19 with A copied), so the copies pay from m·n·k ≥ 3072 × the elements copied (4% of the
// product against the copies: about 3300): 8193³ and 8192×8192×8193 (4096×) are copied, 4097³
// (2048×: 1.037× cuBLAS packed, 1.031× copied), 2047×2049×2051 and 2049×2047×1025 (1024×) not.
// Never where m·n·k < 2^32: each copy's calls cost ~10 µs whatever its size (1537×1537×67 0.89 →
// 0.48× cuBLAS, 6ab5996). H100, docs/sgemm.md.
constexpr std::size_t kRealignMinReuse = 3072;
constexpr std::size_t kRealignMinMacs = std::size_t{1} << 32;
constexpr int kRealignMinDepth = 64;  // shallower products are bound by writing C, not by reading A and B
// Per copy (the pool keeps what it held). 256 MiB left 8192×8192×8193 on 4-byte copies (A's copy
// is 256.06 MiB): 26.9 ms, 0.84× cuBLAS, against 23.5 ms with 16-byte rows (ee5dc0e).
constexpr std::size_t kRealignMaxBytes = std::size_t{1} << 30;

bool realigns_rows(const GemmArgs& g) {
  if (vector_rows(g)) return false;
  const auto m = static_cast<std::size_t>(g.m), n = static_cast<std::size_t>(g.n), k = static_cast<std::size_t>(g.k);
  const std::size_t copied = (rows_aligned16(g.a, g.lda) ? 0 : m * k) + (rows_aligned16(g.b, g.ldb) ? 0 : k * n);
  return g.k >= kRealignMinDepth && m * n * k >= kRealignMinReuse * copied && m * n * k >= kRealignMinMacs && !few_cols_fits(g) &&
         m > static_cast<std::size_t>(kFewRows);
}

// One row per family, oldest first. 3xTF32 costs three tensor-core products for one FP32 product:
// it pays where the TF32 rate is well above three times the FP32 rate. Dense rates from NVIDIA's
// data sheets (FP32 : TF32 TFLOP/s): T4 8.1 : none; A100 19.5 : 156; A10 31 : 62, RTX 3090
// 36 : 36, L4 30 : 60, RTX 4090 83 : 83; H100 SXM 67 : 495 (3xTF32 on wgmma measured 2.2× cuBLAS
// FP32, docs/sgemm.md). Blackwell runs the sm_90 PTX, without wgmma (sm_90a code runs on 9.0 alone):
// TF32 on mma.sync, and fp32_tensor the FP32 path until 3xTF32 on mma.sync is measured there.
constexpr SgemmPolicy kPolicies[] = {
    {75, "Turing (T4, RTX 20)", TensorForm::none, TensorForm::none},
    {80, "A100, A30", TensorForm::mma_sync, TensorForm::mma_sync},
    {86, "Ampere and Ada RTX, A10, L4, L40, Orin", TensorForm::mma_sync, TensorForm::none},
    {90, "Hopper (H100, H200, GH200)", TensorForm::wgmma, TensorForm::wgmma},
    {100, "Blackwell and newer (by PTX)", TensorForm::mma_sync, TensorForm::none},
};

const SgemmPolicy& sgemm_policy(int capability) {
  const SgemmPolicy* policy = &kPolicies[0];
  for (const SgemmPolicy& p : kPolicies)
    if (capability >= p.from_capability) policy = &p;
  return *policy;
}

const SgemmPolicy& current_sgemm_policy() { return sgemm_policy(current_compute_capability()); }

// The tensor-core paths run at ~2.3× the CUDA cores' rate on the H100, and wgmma's first splits A
// and B (12 bytes moved a value for 3xTF32): they pay where each value takes part in enough
// products. Measured on the H100 (docs/sgemm.md).
constexpr std::size_t kTensorMinReuse = 256;
constexpr std::size_t kTensorMinMacs = std::size_t{1} << 30;
constexpr int kTensorMinDepth = 64;

bool takes_tensor_cores(const GemmArgs& g) {
  const auto m = static_cast<std::size_t>(g.m), n = static_cast<std::size_t>(g.n);
  return g.m > kFewRows && g.n > kFewCols && g.k >= kTensorMinDepth && m * n >= kTensorMinReuse * (m + n) &&
         m * n * static_cast<std::size_t>(g.k) >= kTensorMinMacs;
}

}  // namespace sgemm_detail

// ---- the library -------------------------------------------------------------------------------------

namespace {

using sgemm_detail::GemmArgs;

// Sides below 2^31 − 1024, so that a tile's indices past the edge still fit an int.
constexpr std::size_t kMaxSide = (std::size_t{1} << 31) - 1024;

void require(bool ok, const std::string& what) {
  if (!ok) throw Error("gpulab::sgemm: " + what);
}

/// The bytes a rows × cols matrix with leading dimension ld spans.
ByteRange extent(const float* p, std::size_t rows, std::size_t cols, std::size_t ld) {
  return rows_span(p, rows, cols * sizeof(float), ld * sizeof(float));
}

/// Throws on a bad call; returns whether there is anything to do.
bool validate(std::size_t m, std::size_t n, std::size_t k, const float* a, std::size_t lda, const float* b,
              std::size_t ldb, const float* c, std::size_t ldc) {
  require(m < kMaxSide && n < kMaxSide && k < kMaxSide,
          "m, n and k must each be below 2^31 - 1024 (got " + std::to_string(m) + ", " + std::to_string(n) + ", " +
              std::to_string(k) + ")");
  require(lda >= k, "lda = " + std::to_string(lda) + " is smaller than k = " + std::to_string(k));
  require(ldb >= n, "ldb = " + std::to_string(ldb) + " is smaller than n = " + std::to_string(n));
  require(ldc >= n, "ldc = " + std::to_string(ldc) + " is smaller than n = " + std::to_string(n));
  if (m == 0 || n == 0) return false;  // nothing is read or written (BLAS's quick return)
  const bool has_a = m > 0 && k > 0, has_b = k > 0 && n > 0, has_c = m > 0 && n > 0;
  require(!has_a || a != nullptr, "a is null");
  require(!has_b || b != nullptr, "b is null");
  require(!has_c || c != nullptr, "c is null");
  for (const float* p : {a, b, c})
    require(reinterpret_cast<std::uintptr_t>(p) % alignof(float) == 0, "a matrix is not 4-byte aligned");
  const auto ce = extent(c, m, n, ldc);
  require(!overlap(ce, extent(a, m, k, lda)) && !overlap(ce, extent(b, k, n, ldb)), "c overlaps a or b");
  return true;
}

/// The tuner's memory: the configuration measured fastest per device and shape.
struct ChoiceKey {
  int device, m, n, k;
  bool vector;
  bool operator<(const ChoiceKey& o) const {
    return std::tie(device, m, n, k, vector) < std::tie(o.device, o.m, o.n, o.k, o.vector);
  }
};
std::mutex choices_mutex;
std::map<ChoiceKey, std::size_t> choices;

/// The rule used before (or without) a measurement: big tiles where there are enough of them.
std::size_t rule_config(const GemmArgs& g) {
  return sgemm_detail::tile_count(g.m, g.n, 128, 128) >= 2 * static_cast<std::size_t>(sgemm_detail::sm_count())
             ? sgemm_detail::kDefault
             : sgemm_detail::kSmall;
}

/// The largest scratch output the tuner allocates to measure a call with beta ≠ 0 (larger ones
/// take the rule's configuration).
constexpr std::size_t kMaxProbeBytes = std::size_t{256} << 20;

/// Times every configuration (two runs each after a warm-up) and returns the fastest; nothing
/// where that would cost the caller's C. With beta = 0 they run on the caller's own operands (C
/// is overwritten by each, then by the chosen one); with beta ≠ 0 they write a scratch output
/// instead, with beta = 0 (reading C costs every configuration the same), up to kMaxProbeBytes.
std::optional<std::size_t> measure_configs(GemmArgs g, int splits, float* partials, cudaStream_t stream) {
  std::optional<StreamScratch> scratch_c;
  if (g.beta != 0.f) {
    const std::size_t bytes = static_cast<std::size_t>(g.m) * g.n * sizeof(float);
    if (bytes > kMaxProbeBytes) return std::nullopt;
    scratch_c.emplace(bytes, stream);
    g.c = scratch_c->as<float>(), g.ldc = static_cast<std::size_t>(g.n), g.beta = 0.f;
  }
  const Event start, stop;
  auto time_config = [&](std::size_t config, int reps) {  // ms a run, `reps` runs back to back
    start.record(stream);
    for (int rep = 0; rep < reps; ++rep) sgemm_detail::run_config(config, g, splits, partials, stream);
    stop.record(stream);
    GPULAB_CUDA_CHECK(cudaEventSynchronize(stop.get()));
    return stop.ms_since(start) / static_cast<float>(reps);
  };
  const std::size_t configs = sgemm_detail::tile_configs().size();
  std::vector<float> ms(configs);
  for (std::size_t i = 0; i < configs; ++i) {
    sgemm_detail::run_config(i, g, splits, partials, stream);  // warm-up
    ms[i] = time_config(i, 2);
  }
  // Short products are timed a second time, every configuration after all have run, each keeping
  // its faster time: one round picked by noise among near-equal tiles (300×260×700 ran 0.0167–0.0193
  // ms over three processes of one build, 0.0159–0.0160 with two rounds; H100, docs/sgemm.md).
  constexpr float kRetimeBelowMs = 1.f;
  if (*std::min_element(ms.begin(), ms.end()) < kRetimeBelowMs)
    for (std::size_t i = 0; i < configs; ++i) ms[i] = std::min(ms[i], time_config(i, 4));
  return static_cast<std::size_t>(std::min_element(ms.begin(), ms.end()) - ms.begin());
}

/// Points `data`/`ld` (a rows × cols operand) at a copy with 16-byte-aligned rows held in `copy`,
/// where its rows are not aligned and the copy fits kRealignMaxBytes; else leaves them. A pool out
/// of memory leaves them too: the product then runs on the unaligned rows, only slower.
void realign_rows(const float*& data, std::size_t& ld, int rows, int cols, std::optional<StreamScratch>& copy, cudaStream_t stream) {
  if (sgemm_detail::rows_aligned16(data, ld)) return;
  const std::size_t padded = (static_cast<std::size_t>(cols) + 3) / 4 * 4;
  const std::size_t bytes = static_cast<std::size_t>(rows) * padded * sizeof(float);
  if (bytes > sgemm_detail::kRealignMaxBytes || !take_scratch(copy, bytes, stream)) return;
  const std::size_t row_bytes = static_cast<std::size_t>(cols) * sizeof(float), pitch = padded * sizeof(float);
  copy_rows(data, ld * sizeof(float), copy->as<float>(), pitch, row_bytes, static_cast<std::size_t>(rows), stream);
  // The padding is never used, but a row's last, partial vector is copied with a 16-byte cp.async
  // that reads only the valid bytes, and compute-sanitizer's initcheck counts all 16 as read: zero
  // it, so that a user's program under initcheck sees no report from memory gpulab made.
  if (padded != static_cast<std::size_t>(cols))
    GPULAB_CUDA_CHECK(cudaMemset2DAsync(copy->as<char>() + row_bytes, pitch, 0, pitch - row_bytes,
                                        static_cast<std::size_t>(rows), stream));
  data = copy->as<float>();
  ld = padded;
}

/// The few-rows path (g.m ≤ kFewRows) as the library runs it: one launch of clusters where the
/// columns fill the GPU, else split-K with its partial sums in scratch memory.
void few_rows_product(const GemmArgs& g, cudaStream_t stream) {
  if (const int ranks = sgemm_detail::few_rows_cluster_ranks(g); ranks > 0) {
    sgemm_detail::run_few_rows_cluster(g, ranks, stream);
    return;
  }
  const int splits = sgemm_detail::few_rows_splits(g);
  StreamScratch partials(splits > 1 ? static_cast<std::size_t>(splits) * g.m * g.n * sizeof(float) : 0, stream);
  sgemm_detail::run_few_rows(g, splits, partials.as<float>(), stream);
}

/// The rows × cols block of the product whose C starts at (row, col): A's rows from `row`, B's
/// columns from `col`, all of k.
GemmArgs block_of(GemmArgs g, int row, int col, int rows, int cols) {
  g.a += static_cast<std::size_t>(row) * g.lda;
  g.b += col;
  g.c += static_cast<std::size_t>(row) * g.ldc + static_cast<std::size_t>(col);
  g.m = rows, g.n = cols;
  return g;
}

bool capturing(cudaStream_t stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  GPULAB_CUDA_CHECK(cudaStreamIsCapturing(stream, &status));
  return status != cudaStreamCaptureStatusNone;
}

/// The product on the tensor cores where the device's policy gives `precision` a form and the shape
/// pays for it; false where the CUDA cores are to run it (also where gpulab's pool could not hold
/// the tensor path's scratch).
bool tensor_product(const GemmArgs& g, SgemmPrecision precision, cudaStream_t stream) {
  using sgemm_detail::TensorForm;
  const sgemm_detail::SgemmPolicy& policy = sgemm_detail::current_sgemm_policy();
  const bool tf32 = precision == SgemmPrecision::tf32;
  const TensorForm form = tf32 ? policy.tf32 : policy.fp32_tensor;
  require(sgemm_precision_supported(precision),
          "precision tf32 needs TF32 tensor cores (compute capability 8.0 and newer); this GPU is sm_" +
              std::to_string(current_compute_capability()) + ": use fp32 or fp32_tensor");
  if (form == TensorForm::none || !sgemm_detail::takes_tensor_cores(g)) return false;
  if (form == TensorForm::wgmma) return tf32 ? sgemm_detail::wgmma_tf32(g, stream) : sgemm_detail::wgmma_tf32x3(g, stream);
  return tf32 ? sgemm_detail::mma_tf32(g, stream) : sgemm_detail::mma_tf32x3(g, stream);
}

}  // namespace

bool sgemm_precision_supported(SgemmPrecision precision) {
  return precision != SgemmPrecision::tf32 || sgemm_detail::current_sgemm_policy().tf32 != sgemm_detail::TensorForm::none;
}

void sgemm(std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a, std::size_t lda, const float* b,
           std::size_t ldb, float beta, float* c, std::size_t ldc, cudaStream_t stream, SgemmPrecision precision) {
  require(precision == SgemmPrecision::fp32 || precision == SgemmPrecision::fp32_tensor || precision == SgemmPrecision::tf32,
          "unknown precision " + std::to_string(static_cast<int>(precision)));
  if (!validate(m, n, k, a, lda, b, ldb, c, ldc)) return;
  // alpha = 0: C = beta·C without reading A or B, as in BLAS (their Inf and NaN do not reach C).
  if (alpha == 0.f) k = 0;
  GemmArgs g = sgemm_device::gemm_args(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);

  if (precision != SgemmPrecision::fp32 && tensor_product(g, precision, stream)) return;

  if (m <= sgemm_detail::kFewRows) {
    few_rows_product(g, stream);
    return;
  }
  if (sgemm_detail::few_cols_fits(g)) {
    sgemm_detail::run_few_cols(g, stream);
    return;
  }
  std::optional<StreamScratch> aligned_a, aligned_b;  // declared before partials: freed after the product
  if (sgemm_detail::realigns_rows(g)) {
    realign_rows(g.a, g.lda, g.m, g.k, aligned_a, stream);
    realign_rows(g.b, g.ldb, g.k, g.n, aligned_b, stream);
  }
  // The tiles take C but its fringe; the fringe's columns (beside the tiles) and rows (below them,
  // the corner too) go to the paths that stream A or B once.
  const sgemm_detail::Fringe fringe = sgemm_detail::fringe_of(g);
  const GemmArgs tiled = block_of(g, 0, 0, g.m - fringe.rows, g.n - fringe.cols);
  if (fringe.cols > 0) sgemm_detail::run_few_cols(block_of(g, 0, tiled.n, tiled.m, fringe.cols), stream);
  if (fringe.rows > 0) few_rows_product(block_of(g, tiled.m, 0, fringe.rows, g.n), stream);

  const int splits = sgemm_detail::split_count(tiled);
  StreamScratch partials(splits > 1 ? static_cast<std::size_t>(splits) * tiled.m * tiled.n * sizeof(float) : 0, stream);
  const ChoiceKey key{current_device(), tiled.m, tiled.n, tiled.k, sgemm_detail::vector_rows(tiled)};
  std::size_t config = rule_config(tiled);
  bool known = false;
  {
    std::lock_guard lock(choices_mutex);
    if (const auto it = choices.find(key); it != choices.end()) config = it->second, known = true;
  }
  if (!known && !capturing(stream))
    if (const std::optional<std::size_t> measured = measure_configs(tiled, splits, partials.as<float>(), stream)) {
      config = *measured;
      std::lock_guard lock(choices_mutex);
      choices[key] = config;
    }
  sgemm_detail::run_config(config, tiled, splits, partials.as<float>(), stream);
}

}  // namespace gpulab
