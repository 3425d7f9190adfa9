// Device helpers shared by the histogram ladder (histogram_kernels.cuh), the library's paths
// (histogram_path_kernels.cuh) and the forms that count in chunks (histogram_wide.cu,
// histogram_float.cu).
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpulab::histogram_common {

/// Sets `slots` words of a block's shared memory to `value` (all threads) and waits for it.
__device__ __forceinline__ void fill_shared(std::uint32_t* shared_words, std::uint32_t slots, std::uint32_t value) {
  for (std::uint32_t s = threadIdx.x; s < slots; s += blockDim.x) shared_words[s] = value;
  __syncthreads();
}

/// Zeroes `slots` counters of a block's shared memory (all threads) and waits for it.
__device__ __forceinline__ void zero_shared(std::uint32_t* shared_counts, std::uint32_t slots) {
  fill_shared(shared_counts, slots, 0);
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

/// One thread's runs of equal bins: push(bin) for each value in order; `add(bin, length)` is called
/// once per run of equal consecutive bins (at most kMaxRun long), and by finish() for the last.
/// Adding a run at once keeps a warp's lanes off one counter when the input is degenerate.
constexpr std::uint32_t kUnboundedRun = ~0u;

template <std::uint32_t kMaxRun, class Add>
struct Runs {
  Add add;
  std::uint32_t bin = 0, length = 0;
  __device__ __forceinline__ void push(std::uint32_t b) {
    // Unbounded runs compare the bin only: on a degenerate input this is the whole inner loop.
    if (b == bin && (kMaxRun == kUnboundedRun || length < kMaxRun)) {
      ++length;
      return;
    }
    finish();
    bin = b;
    length = 1;
  }
  __device__ __forceinline__ void finish() const {
    if (length != 0) add(bin, length);
  }
};

/// Runs of unbounded length (a run cannot outgrow n < 2^32) or of at most kMaxRun.
template <std::uint32_t kMaxRun = kUnboundedRun, class Add>
__device__ __forceinline__ Runs<kMaxRun, Add> runs(Add add) {
  return {add};
}

/// total[b] = chunk[b], or total[b] + chunk[b] where `add`, for b < count: a chunk's counts into
/// the running ones (Total uint32 or, widening them, uint64). Grid-stride.
template <class Total>
__global__ void add_chunk_counts(const std::uint32_t* chunk, std::size_t count, bool add, Total* total) {
  for (std::size_t b = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; b < count; b += std::size_t{gridDim.x} * blockDim.x)
    total[b] = (add ? total[b] : Total{0}) + chunk[b];
}

}  // namespace gpulab::histogram_common
