// Hopper's asynchronous machinery from PTX: mbarriers, clusters and the tensor memory accelerator
// (TMA), and the host side of TMA, the tensor maps. For the files built for sm_90a alone, beside
// lib/wgmma.cuh: the SGEMM's tensor-core rungs and the Ozaki scheme's INT8 products.
#pragma once

#include "lib/async_copy.cuh"

#include <gpulab/error.hpp>

#include <cuda.h>
#include <cudaTypedefs.h>

#include <cstdint>
#include <string>

namespace gpulab {

__device__ __forceinline__ void barrier_init(std::uint64_t* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(bar)), "r"(count) : "memory");
}
__device__ __forceinline__ void barrier_arrive(std::uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(shared_address(bar)) : "memory");
}
/// Arrives and tells the barrier to wait for `bytes` more from the copy engine.
__device__ __forceinline__ void barrier_expect_bytes(std::uint64_t* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(bar)), "r"(bytes) : "memory");
}
/// Waits until the barrier's phase of this parity has completed.
__device__ __forceinline__ void barrier_wait(std::uint64_t* bar, unsigned parity) {
  unsigned done = 0;
  while (!done) {
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(shared_address(bar)), "r"(parity)
        : "memory");
  }
}
/// Arrives on the barrier at the same place in block `rank` of the cluster (this block's too). With
/// the arrival's default semantics (release at the block's scope): a release at the cluster's
/// scope costs a fence of the whole GPU (MEMBAR.ALL.GPU) an arrival, and 2.2x the time of 128 x 128
/// tiles in clusters, where what it would order (the wgmma's reads of the stage, waited for) is done.
__device__ __forceinline__ void barrier_arrive_in(std::uint64_t* bar, unsigned rank) {
  asm volatile(
      "{\n .reg .b32 remote;\n mapa.shared::cluster.u32 remote, %0, %1;\n"
      " mbarrier.arrive.shared::cluster.b64 _, [remote];\n}\n" ::"r"(shared_address(bar)),
      "r"(rank)
      : "memory");
}
/// A ring of stages' barriers, made by one thread: full[s] completes on the producer's arrival and
/// its copies' bytes, empty[s] on `frees` arrivals (the consumers', of every block that reads the
/// stage); the fence makes them visible to the cluster.
template <int kStages>
__device__ __forceinline__ void init_ring(std::uint64_t (&full)[kStages], std::uint64_t (&empty)[kStages], unsigned frees) {
  for (int s = 0; s < kStages; ++s) {
    barrier_init(&full[s], 1);
    barrier_init(&empty[s], frees);
  }
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
/// Every thread of every block of the cluster: arrive (after this thread's earlier accesses), then
/// wait for all the others. Split so that work can run between the two.
__device__ __forceinline__ void cluster_arrive() { asm volatile("barrier.cluster.arrive.release;" ::: "memory"); }
__device__ __forceinline__ void cluster_wait() { asm volatile("barrier.cluster.wait.acquire;" ::: "memory"); }

/// The TMA copy of one box at (x, y) = (column, row) of a 2-D tensor into shared memory; its bytes
/// count against `bar`.
__device__ __forceinline__ void tma_load(const CUtensorMap& map, void* dst, std::uint64_t* bar, int x, int y) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];" ::"r"(
          shared_address(dst)),
      "l"(reinterpret_cast<std::uint64_t>(&map)), "r"(shared_address(bar)), "r"(x), "r"(y)
      : "memory");
}
/// tma_load into the same place of every block of the cluster in `blocks` (a bit a rank), each
/// block's bytes counted against its own barrier at `bar`'s place.
__device__ __forceinline__ void tma_load_multicast(const CUtensorMap& map, void* dst, std::uint64_t* bar, int x, int y,
                                                   std::uint16_t blocks) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;" ::"r"(
          shared_address(dst)),
      "l"(reinterpret_cast<std::uint64_t>(&map)), "r"(shared_address(bar)), "r"(x), "r"(y), "h"(blocks)
      : "memory");
}

/// tma_load of the box at (x, y, z) = (column, row, plane) of a 3-D tensor.
__device__ __forceinline__ void tma_load(const CUtensorMap& map, void* dst, std::uint64_t* bar, int x, int y, int z) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5}], [%2];" ::"r"(
          shared_address(dst)),
      "l"(reinterpret_cast<std::uint64_t>(&map)), "r"(shared_address(bar)), "r"(x), "r"(y), "r"(z)
      : "memory");
}
/// tma_load_multicast of the box at (x, y, z) of a 3-D tensor.
__device__ __forceinline__ void tma_load_multicast(const CUtensorMap& map, void* dst, std::uint64_t* bar, int x, int y, int z,
                                                   std::uint16_t blocks) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%3, %4, %5}], [%2], %6;" ::"r"(
          shared_address(dst)),
      "l"(reinterpret_cast<std::uint64_t>(&map)), "r"(shared_address(bar)), "r"(x), "r"(y), "r"(z), "h"(blocks)
      : "memory");
}


// ---- host: tensor maps ---------------------------------------------------------------------------

/// cuTensorMapEncodeTiled from the driver, found through the runtime (gpulab does not link libcuda).
inline PFN_cuTensorMapEncodeTiled_v12000 encode_tiled() {
  static const auto fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult found{};
    GPULAB_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || p == nullptr) throw Error("TMA: the driver has no cuTensorMapEncodeTiled");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }();
  return fn;
}

/// The tensor map of `planes` matrices of rows × cols elements of `type` (element_bytes each), rows
/// row_bytes apart and planes plane_bytes apart (both multiples of 16), read in boxes of box_rows
/// rows × 128 bytes in the 128-byte swizzle wgmma reads (one plane a box); reads past the edges give
/// zeros. Two dimensions for one plane, three for more.
inline CUtensorMap swizzled_tile_map(CUtensorMapDataType type, int element_bytes, const void* data, std::uint64_t cols,
                                     std::uint64_t rows, std::uint64_t row_bytes, int box_rows, std::uint64_t planes = 1,
                                     std::uint64_t plane_bytes = 0) {
  CUtensorMap map{};
  const cuuint32_t rank = planes > 1 ? 3 : 2;
  const cuuint64_t dims[3] = {cols, rows, planes};
  const cuuint64_t strides[2] = {row_bytes, plane_bytes};
  const cuuint32_t box[3] = {static_cast<cuuint32_t>(128 / element_bytes), static_cast<cuuint32_t>(box_rows), 1};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  const CUresult r = encode_tiled()(&map, type, rank, const_cast<void*>(data), dims, strides, box, element_strides,
                                    CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                    CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) throw Error("TMA: cuTensorMapEncodeTiled failed (" + std::to_string(static_cast<int>(r)) + ")");
  return map;
}

}  // namespace gpulab
