// gpulab/multi/histogram.hpp — gpulab::histogram over several GPUs.
// The contract every multi-GPU function shares is gpulab/multi_gpu.hpp's. The second form takes
// every rank at once, for one process driving several GPUs (communicators from ncclCommInitAll).
#pragma once

#include <gpulab/multi_gpu.hpp>

#include <cstddef>
#include <cstdint>
#include <span>

namespace gpulab::multi {

/// counts[b] = the number of values of all shards in bin b, on every rank (bins as
/// gpulab::histogram: ((v % m) + m) % m). Counts add modulo 2^32.
void histogram(const std::int32_t* shard, std::size_t n, std::uint32_t m, std::uint32_t* counts, ncclComm_t comm,
               cudaStream_t stream = nullptr);

/// Every rank at once, each with its device (one process driving several GPUs).
struct HistogramRank {
  int device;
  const std::int32_t* shard;
  std::size_t n;
  std::uint32_t* counts;
  ncclComm_t comm;
  cudaStream_t stream;
};
void histogram(std::span<const HistogramRank> ranks, std::uint32_t m);

}  // namespace gpulab::multi
