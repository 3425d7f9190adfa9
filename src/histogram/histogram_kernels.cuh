// Rungs 1–5 of the histogram ladder: the seed's four kernels and its sumHistogram, then the first
// step beyond it. One value per thread and a grid covering the input, as in the seed, but correct
// for every n and m (the seed needed n to be a multiple of the block and an even block count),
// and with the bin of a negative value in [0, m) (the seed's v % m was negative there).
// Rungs 6 and up are the library's paths (histogram_path_kernels.cuh).
#pragma once

#include "histogram/bin_rule.hpp"
#include "histogram/histogram_common.cuh"

#include <cstddef>
#include <cstdint>

namespace gpulab::histogram_ladder {

using histogram_common::zero_shared;

__device__ __forceinline__ std::size_t global_thread() {
  return std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
}

/// Adds a block's shared histogram to the global one: an atomic per non-empty bin.
__device__ __forceinline__ void merge_shared(const std::uint32_t* block_counts, std::uint32_t m,
                                             std::uint32_t* counts) {
  histogram_common::merge_replicas(block_counts, m, 1, counts);
}

// Rung 1, the seed's `histogram`: one atomicAdd on the global histogram per value. Every thread
// of the GPU contends for m addresses in L2.
__global__ void histogram_global_atomics(const std::int32_t* __restrict__ values, std::size_t n,
                                         BinRule rule, std::uint32_t* __restrict__ counts) {
  const std::size_t i = global_thread();
  if (i < n) atomicAdd(&counts[rule(values[i])], 1u);
}

// Rung 2, the seed's `histogramShared`: the block counts in shared memory, then adds its counts
// to the global histogram: one global atomic per block and bin instead of one per value.
__global__ void histogram_shared_atomics(const std::int32_t* __restrict__ values, std::size_t n,
                                         BinRule rule, std::uint32_t* __restrict__ counts) {
  extern __shared__ std::uint32_t block_counts[];
  zero_shared(block_counts, rule.bins());
  const std::size_t i = global_thread();
  if (i < n) atomicAdd(&block_counts[rule(values[i])], 1u);
  merge_shared(block_counts, rule.bins(), counts);
}

// Rung 3, the seed's `histogramByBlock`: each block owns a histogram in global memory (row
// blockIdx.x of `block_counts`), so atomics contend only within a block; sum_histograms adds the
// rows. The grid is capped so the rows fit (then each thread takes several values, grid-strided).
__global__ void histogram_by_block(const std::int32_t* __restrict__ values, std::size_t n, BinRule rule,
                                   std::uint32_t* __restrict__ block_counts) {
  std::uint32_t* mine = block_counts + std::size_t{blockIdx.x} * rule.bins();
  for (std::size_t i = global_thread(); i < n; i += std::size_t{gridDim.x} * blockDim.x)
    atomicAdd(&mine[rule(values[i])], 1u);
}

// Rung 4, the seed's `histogramByBlockShared`: rung 3 with the block's histogram built in shared
// memory, then stored to its row (plain stores: the row is the block's alone).
__global__ void histogram_by_block_shared(const std::int32_t* __restrict__ values, std::size_t n,
                                          BinRule rule, std::uint32_t* __restrict__ block_counts) {
  extern __shared__ std::uint32_t shared_counts[];
  const std::uint32_t m = rule.bins();
  zero_shared(shared_counts, m);
  for (std::size_t i = global_thread(); i < n; i += std::size_t{gridDim.x} * blockDim.x)
    atomicAdd(&shared_counts[rule(values[i])], 1u);
  __syncthreads();
  std::uint32_t* mine = block_counts + std::size_t{blockIdx.x} * m;
  for (std::uint32_t b = threadIdx.x; b < m; b += blockDim.x) mine[b] = shared_counts[b];
}

// The seed's `sumHistogram` for rungs 3 and 4: counts[b] += Σ over rows of block_counts[row][b].
// Blocks of 32 × 8 threads: 32 neighbouring bins (coalesced) × 8 rows at a time, rows strided by
// the grid's y size, the 8 partial sums added in shared memory, then one atomic per bin and block.
// One launch instead of the seed's halving tree of launches.
constexpr unsigned kSumBins = 32, kSumRows = 8;
__global__ void sum_histograms(const std::uint32_t* __restrict__ block_counts, std::size_t rows,
                               std::uint32_t m, std::uint32_t* __restrict__ counts) {
  __shared__ std::uint32_t partial[kSumRows][kSumBins + 1];
  const std::uint32_t b = blockIdx.x * kSumBins + threadIdx.x;
  std::uint32_t s = 0;
  if (b < m)
    for (std::size_t r = std::size_t{blockIdx.y} * kSumRows + threadIdx.y; r < rows; r += std::size_t{gridDim.y} * kSumRows)
      s += block_counts[r * m + b];
  partial[threadIdx.y][threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.y == 0 && b < m) {
    for (unsigned k = 1; k < kSumRows; ++k) s += partial[k][threadIdx.x];
    if (s != 0) atomicAdd(&counts[b], s);
  }
}

// Rung 5: rung 2 with the shared histogram replicated per lane (replicas copies interleaved,
// sub[bin·replicas + lane % replicas]): lanes of a warp that hit one bin no longer hit one address,
// and with 32 replicas each lane has its own bank. Against contention, the degenerate input's
// worst case above all.
__global__ void histogram_replicated(const std::int32_t* __restrict__ values, std::size_t n, BinRule rule,
                                     unsigned replicas, std::uint32_t* __restrict__ counts) {
  extern __shared__ std::uint32_t sub[];
  const std::uint32_t m = rule.bins();
  zero_shared(sub, m * replicas);
  const std::size_t i = global_thread();
  if (i < n) atomicAdd(&sub[rule(values[i]) * replicas + (threadIdx.x & (replicas - 1))], 1u);
  histogram_common::merge_replicas(sub, m, replicas, counts);
}

}  // namespace gpulab::histogram_ladder
