// Device helpers shared by the histogram ladder (histogram_kernels.cuh) and the library's paths
// (histogram.cu).
#pragma once

#include <cstdint>

namespace gpulab::histogram_common {

/// Zeroes `slots` counters of a block's shared memory (all threads) and waits for it.
__device__ __forceinline__ void zero_shared(std::uint32_t* shared_counts, std::uint32_t slots) {
  for (std::uint32_t s = threadIdx.x; s < slots; s += blockDim.x) shared_counts[s] = 0;
  __syncthreads();
}

/// After the block has counted into sub[bin·replicas + r] (replicas a power of two ≤ 32): adds each
/// bin's replicas and the total to counts[bin], an atomic per non-empty bin. Thread b starts at
/// replica b, so that neighbouring threads read different banks.
__device__ __forceinline__ void merge_replicas(const std::uint32_t* sub, std::uint32_t m, unsigned replicas,
                                               std::uint32_t* counts) {
  __syncthreads();
  for (std::uint32_t b = threadIdx.x; b < m; b += blockDim.x) {
    std::uint32_t s = 0;
    for (unsigned r = 0; r < replicas; ++r) s += sub[b * replicas + ((r + b) & (replicas - 1))];
    if (s != 0) atomicAdd(&counts[b], s);
  }
}

}  // namespace gpulab::histogram_common
