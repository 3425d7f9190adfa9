// The Ozaki scheme's INT8 products on gpulab's own Hopper GEMM (sgemm_ozaki.hpp): every modulus's
// residue planes multiplied by wgmma, and each modulus's int32 sums reduced mod m in the epilogue, so
// that the reconstruction reads a byte a modulus and an element, not the four of an int32 product.
// Built for sm_90a only (wgmma exists nowhere else).
//
// The pipeline is the TF32 wide rung's (sgemm_wgmma.cu) on bytes: 128 × 256 tiles in clusters of two
// blocks down M that share each slice of B̂ᵀ by TMA multicast; one producer thread, two consumer
// warpgroups of 64 × 256. A slice is 128 of k (a 128-byte swizzled row of int8), four wgmma
// m64n256k32 a consumer; a block's slices run through the moduli one after another, so the producer
// fetches the next modulus's first slices while the consumers reduce the last one's sums, stage them
// as bytes in shared memory of their own (beside the ring) and store them a row at a time. The same
// kernel with no modulus is the guard's product (fp32_tensor): its sums are not reduced but coded, a
// byte each, as lower bounds.
#include "lib/arith.hpp"
#include "lib/launch.cuh"
#include "lib/launch_limits.hpp"
#include "lib/tma.cuh"
#include "lib/wgmma.cuh"
#include "sgemm/sgemm_device.cuh"
#include "sgemm/sgemm_ozaki.hpp"
#include "sgemm/sgemm_paths.hpp"

#include <gpulab/error.hpp>

#include <cstdint>
#include <string>

namespace gpulab::sgemm_ozaki {
namespace {

constexpr int kBM = 128, kBN = 256;
constexpr int kBK = 128;                             // a slice: 128 int8 of k, one swizzled row of 128 bytes
constexpr int kCluster = 2;                          // blocks down M sharing B̂ᵀ's slices
constexpr int kConsumers = 2;                        // warpgroups of 64 rows
constexpr int kThreads = 128 * (1 + kConsumers);     // a producer warpgroup, then the consumers
constexpr int kTileBytesA = kBM * kBK, kTileBytesB = kBN * kBK;
constexpr int kStageBytes = kTileBytesA + kTileBytesB;
constexpr int kStages = 4;
constexpr int kShareRowsB = kBN / kCluster;          // the rows of B̂ᵀ's tile each block copies
constexpr int kSwizzleAlign = 1024;                  // the 128-byte swizzle repeats every 8 rows
/// Each consumer's 64 × 256 residue bytes staged for whole-row stores, rows kStagedLd bytes apart: 8
/// more than a row, so that a warp's 2-byte writes (8 rows, 8 bytes each) fall in distinct banks.
constexpr int kStagedLd = kBN + 8;
constexpr int kStagedBytes = 64 * kStagedLd;
constexpr std::size_t kSmemBytes = std::size_t{kStages} * kStageBytes + kConsumers * kStagedBytes + kSwizzleAlign;
constexpr int kSums = kBN / 2;                       // a consumer thread's int32 sums (64 rows × 256 / 128 threads)
/// Slices of k summed before the sums are reduced mod m: a residue is at most 128 in magnitude, so a
/// slice adds at most 128·2^14 = 2^21 to a sum, and 2^9 slices stay below 2^30 (no int32 wraps).
constexpr int kSlicesPerReduction = 512;

struct ResidueMaps {
  CUtensorMap a, b;  // Â's planes (m × k each), B̂ᵀ's (n × k each), or the guard's levels: boxes of 128 bytes × kBM or kShareRowsB rows
};

/// Each of the consumer thread's sums reduced mod kModulus[L]: into (−m, m) as the slices go on
/// (kFinal false), into [0, m) at the end (sum_residue: |sum| < 2^30 + m by kSlicesPerReduction).
template <int L, bool kFinal>
__device__ __forceinline__ void reduce_sums(int (&sum)[kSums]) {
  constexpr int m = static_cast<int>(kModulus[L]);
#pragma unroll
  for (int i = 0; i < kSums; ++i) {
    if constexpr (kFinal) sum[i] = static_cast<int>(sum_residue<L>(sum[i]));
    else sum[i] %= m;
  }
}

/// reduce_sums for the modulus l, a value known only at run time.
template <int N, bool kFinal>
__device__ __forceinline__ void reduce_sums_of(int l, int (&sum)[kSums]) {
  each_index<N>([&](auto L) {
    if (L == l) reduce_sums<L, kFinal>(sum);
  });
}

/// A barrier of one consumer warpgroup's 128 threads (named barriers 1 and 2; 0 is __syncthreads').
__device__ __forceinline__ void warpgroup_sync(int consumer) {
  if (consumer == 0) asm volatile("bar.sync 1, 128;" ::: "memory");
  else asm volatile("bar.sync 2, 128;" ::: "memory");
}

/// plane l of `out` (m × ld bytes, planes `plane` bytes apart) = (Âₗ·B̂ₗᵀ) mod mₗ, a 128 × 256 tile
/// a block: the layout of sgemm_ozaki.hpp's wgmma_products; with no modulus (N = 0), `out` the
/// codes of the guard's product (wgmma_guard_product).
template <int N>
__global__ void __launch_bounds__(kThreads, 1)
    int8_products(const __grid_constant__ ResidueMaps maps, int m, int n, int k, std::uint8_t* out, std::size_t ld, std::size_t plane,
                  sgemm_detail::DeviceGate gate) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  if (!gate.open()) return;  // (every block of a cluster alike: before any waits on another)
  __shared__ std::uint64_t full[kStages], empty[kStages];
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = reinterpret_cast<unsigned char*>(align_up(reinterpret_cast<std::uintptr_t>(smem_raw), kSwizzleAlign));
  auto tile_a = [&](int stage) { return smem + stage * kStageBytes; };
  auto tile_b = [&](int stage) { return smem + stage * kStageBytes + kTileBytesA; };

  const int tiles_m = (m + kBM * kCluster - 1) / (kBM * kCluster), tiles_n = (n + kBN - 1) / kBN;
  int tm, tn;
  sgemm_device::grouped_tile(static_cast<int>(blockIdx.x) / kCluster, tiles_m, tiles_n, tm, tn);
  const unsigned rank = blockIdx.x % kCluster;
  const int m0 = (tm * kCluster + static_cast<int>(rank)) * kBM, n0 = tn * kBN;
  constexpr bool kGuard = N == 0;
  constexpr int kPlanes = kGuard ? 1 : N;
  const int per_plane = (k + kBK - 1) / kBK, slices = kPlanes * per_plane;

  const int warpgroup = static_cast<int>(threadIdx.x) / 128;
  if (threadIdx.x == 0) init_ring(full, empty, kCluster * kConsumers * 4);  // each consumer warp's lane 0, of every block
  cluster_arrive(), cluster_wait();  // no block copies into another, or arrives on its barriers, before they exist

  if (warpgroup == 0) {  // the producer: one thread issues every copy
    if (threadIdx.x == 0) {
      for (int slice = 0; slice < slices; ++slice) {
        const int stage = slice % kStages, round = slice / kStages;
        if (round > 0) barrier_wait(&empty[stage], (round - 1) & 1);  // every block of the cluster done with it
        barrier_expect_bytes(&full[stage], kStageBytes);
        const int share = static_cast<int>(rank) * kShareRowsB;
        constexpr std::uint16_t kAll = (1u << kCluster) - 1;
        const int l = slice / per_plane, k0 = slice % per_plane * kBK;  // TMA reads zeros past k, m and n
        if constexpr (kGuard) {  // one plane: 2-D maps
          tma_load(maps.a, tile_a(stage), &full[stage], k0, m0);
          tma_load_multicast(maps.b, tile_b(stage) + share * kBK, &full[stage], k0, n0 + share, kAll);
        } else {
          tma_load(maps.a, tile_a(stage), &full[stage], k0, m0, l);
          tma_load_multicast(maps.b, tile_b(stage) + share * kBK, &full[stage], k0, n0 + share, l, kAll);
        }
      }
    }
    cluster_arrive(), cluster_wait();  // stay until the cluster is done with this block
    return;
  }

  const int consumer = warpgroup - 1, warp = static_cast<int>(threadIdx.x) / 32 % 4, lane = static_cast<int>(threadIdx.x) % 32;
  auto free_stage = [&](int stage) {  // in every block of the cluster (whose producers multicast into it)
    if (lane != 0) return;
#pragma unroll
    for (unsigned r = 0; r < kCluster; ++r) barrier_arrive_in(&empty[stage], r);
  };
  // The accumulator layout of m64n256k32: warp w holds rows 16w + lane/4 and 16w + lane/4 + 8; each
  // 8-column group j its columns 8j + 2·(lane % 4) and the next (sums 4j, 4j + 1 and 4j + 2, 4j + 3).
  unsigned char* staged = smem + kStages * kStageBytes + consumer * kStagedBytes;
  int sum[kSums];
  int slice = 0;
  for (int l = 0; l < kPlanes; ++l) {
    for (int q = 0; q < per_plane; ++q, ++slice) {
      if (!kGuard && q > 0 && q % kSlicesPerReduction == 0) {
        wgmma_wait_all();
        fence_registers(sum);
        reduce_sums_of<N, false>(l, sum);
      }
      const int stage = slice % kStages;
      barrier_wait(&full[stage], (slice / kStages) & 1);
      const std::uint64_t a = smem_descriptor(tile_a(stage) + consumer * 64 * kBK), b = smem_descriptor(tile_b(stage));
      wgmma_fence();
      // Each step of 32 along k is 32 bytes further into the swizzled rows (2 in the descriptor's
      // 16-byte units); a modulus's first step starts its sums afresh.
#pragma unroll
      for (int step = 0; step < kBK / 32; ++step) wgmma_m64n256k32_s8(sum, a + 2 * step, b + 2 * step, q > 0 || step > 0);
      wgmma_commit();
      // This slice's wgmma stay in flight while the stage before is freed and the next slice's are issued.
      wgmma_wait_one();
      fence_registers(sum);
      if (q > 0) free_stage((slice - 1) % kStages);
    }
    wgmma_wait_all();
    fence_registers(sum);
    free_stage((slice - 1) % kStages);
    // The residues of the tile's sums as bytes, staged so that each row goes out in 16-byte stores (two
    // bytes a row a thread, as the sums lie, made stores of 8 bytes a row a warp: a tenth of the
    // products' time at 8192³).
    warpgroup_sync(consumer);  // the last modulus's rows are out of the staging
    if constexpr (kGuard) {  // levels²·k < 2^31: never reduced
#pragma unroll
      for (int i = 0; i < kSums; ++i) sum[i] = static_cast<int>(encode_lower_bound(static_cast<std::uint32_t>(sum[i])));
    } else {
      reduce_sums_of<N, true>(l, sum);
    }
    unsigned char* staged_row = staged + (warp * 16 + lane / 4) * kStagedLd + 2 * (lane % 4);
#pragma unroll
    for (int s = 0; s < kSums; s += 2)
      *reinterpret_cast<std::uint16_t*>(staged_row + 8 * (s / 2 % 2) * kStagedLd + 8 * (s / 4)) =
          static_cast<std::uint16_t>(sum[s] | sum[s + 1] << 8);
    warpgroup_sync(consumer);
    // Past n up to ld too (zeros: B̂ᵀ's rows there are TMA's zero fill), so that the reconstruction's
    // 4-byte loads read written bytes; ld is a multiple of 16, so a chunk starting below it ends in it.
    // A thread a 16-byte chunk of every 8th row: row t/16 + 8q, bytes 16·(t % 16) on.
    const int t = static_cast<int>(threadIdx.x) % 128, first_row = m0 + consumer * 64 + t / 16, j = n0 + t % 16 * 16;
    const unsigned char* from = staged + t / 16 * kStagedLd + t % 16 * 16;
    std::uint8_t* to = out + static_cast<std::size_t>(l) * plane + static_cast<std::size_t>(first_row) * ld + j;
    if (static_cast<std::size_t>(j) < ld) {
#pragma unroll
      for (int q = 0; q < 8; ++q) {
        const uint2 low = *reinterpret_cast<const uint2*>(from + 8 * q * kStagedLd), high = *reinterpret_cast<const uint2*>(from + 8 * q * kStagedLd + 8);
        if (first_row + 8 * q < m) *reinterpret_cast<uint4*>(to + 8 * q * ld) = {low.x, low.y, high.x, high.y};
      }
    }
  }
  cluster_arrive(), cluster_wait();  // this block's arrivals on the others' barriers done before any exits
#else
  __trap();  // built without sm_90a: wgmma_supported() keeps this from being launched
#endif
}

/// N moduli's residue planes multiplied, or with N = 0 the guard's levels (one plane).
template <int N>
void launch_products(const std::int8_t* a, const std::int8_t* b, int m, int n, int k, std::size_t depth, std::uint8_t* out,
                     std::size_t ld, cudaStream_t stream, sgemm_detail::DeviceGate gate) {
  constexpr std::uint64_t kPlanes = N > 0 ? N : 1;  // one plane: 2-D maps
  const auto rows_a = static_cast<std::uint64_t>(m), rows_b = static_cast<std::uint64_t>(n), cols = static_cast<std::uint64_t>(k);
  const ResidueMaps maps{swizzled_tile_map(CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, a, cols, rows_a, depth, kBM, kPlanes, rows_a * depth),
                         swizzled_tile_map(CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, b, cols, rows_b, depth, kShareRowsB, kPlanes, rows_b * depth)};
  constexpr auto kernel = int8_products<N>;
  sgemm_detail::allow_smem<kernel>(kSmemBytes);
  const std::size_t blocks = sgemm_detail::tile_count(m, n, kBM * kCluster, kBN) * kCluster;
  LaunchShape shape{dim3(checked_grid(blocks, "sgemm ozaki products")), kThreads, kSmemBytes};
  shape.cluster = kCluster;
  launch(N > 0 ? "sgemm_ozaki_int8_wgmma" : "sgemm_ozaki_guard_wgmma", kernel, shape, stream, maps, m, n, k, out, ld,
         static_cast<std::size_t>(m) * ld, gate)
      .work([] {
        const std::string pipeline = ": TMA, " + std::to_string(kStages) +
                                     " stages of 128 (k); 2 warpgroups of 64x256, 4 wgmma m64n256k32 s8 a slice; clusters of 2 down M "
                                     "multicasting B's slices; ";
        if (N == 0) return "the guard's product (every 4th p) of a 128x256 tile" + pipeline + "its sums coded as bytes";
        return "a 128x256 tile of every modulus in turn" + pipeline + "the sums mod m stored as bytes";
      });
}

/// The checks and empty cases both entry points share: false where nothing is to be launched (m or n
/// zero, or k zero: `planes` planes of `out` set to 0 then).
bool products_to_launch(std::size_t depth, std::size_t ld, int m, int n, int k, std::uint8_t* out, int planes, cudaStream_t stream) {
  if (depth % 16 != 0 || ld % 16 != 0) throw Error("sgemm ozaki: the INT8 products' rows must be multiples of 16 bytes");
  if (m == 0 || n == 0) return false;
  if (k == 0) {  // every product is 0
    GPULAB_CUDA_CHECK(cudaMemsetAsync(out, 0, static_cast<std::size_t>(planes) * m * ld, stream));
    return false;
  }
  return true;
}

}  // namespace

void wgmma_products(int moduli, const std::int8_t* a, const std::int8_t* b, int m, int n, int k, std::size_t depth,
                    std::uint8_t* residues, std::size_t ld, cudaStream_t stream, sgemm_detail::DeviceGate gate) {
  if (!products_to_launch(depth, ld, m, n, k, residues, moduli, stream)) return;
  switch (moduli) {
    case 7: return launch_products<7>(a, b, m, n, k, depth, residues, ld, stream, gate);
    case 8: return launch_products<8>(a, b, m, n, k, depth, residues, ld, stream, gate);
    default: throw Error("sgemm ozaki: 7 or 8 moduli, not " + std::to_string(moduli));
  }
}

void wgmma_guard_product(const GuardOperands& guard, int m, int n, std::uint8_t* codes, std::size_t ld, cudaStream_t stream) {
  if (!products_to_launch(guard.depth, ld, m, n, guard.k, codes, 1, stream)) return;
  launch_products<0>(guard.a, guard.b, m, n, guard.k, guard.depth, codes, ld, stream, {});
}

}  // namespace gpulab::sgemm_ozaki
