// gpulab/multi/scan.hpp — gpulab::inclusive_scan and exclusive_scan over several GPUs.
// The contract every multi-GPU function shares is gpulab/multi_gpu.hpp's. The second form takes
// every rank at once, for one process driving several GPUs (communicators from ncclCommInitAll).
#pragma once

#include <gpulab/multi_gpu.hpp>
#include <gpulab/scan.hpp>

#include <cstddef>
#include <cstdint>
#include <span>

namespace gpulab::multi {

/// Bytes of temporary storage a scan needs on a rank with n local elements among `ranks`.
template <class In>
std::size_t scan_temp_bytes(std::size_t n, int ranks);

/// The prefix sums of the shards taken in rank order (rank 0's first), each rank holding its
/// share: out[i] = (every element of the ranks before) + the shard's own prefix (inclusive: up to
/// and including element i; exclusive: before it). In and the output type as gpulab::inclusive_scan.
/// Reduce, then scan: every rank but the last sums its shard and the totals are gathered; each rank
/// then scans its shard once, starting from the totals of the ranks before it, added in rank order
/// (floats: the same bits every run; k of element i: the one-GPU scan's for the shard, plus
/// reduce_sum_accumulation_depth of the largest shard, plus the number of ranks, plus two). Rank
/// 0's share is its own scan, bit for bit. A shard is read twice and written once.
template <class In>
void inclusive_scan(const In* shard, scan_result_t<In>* out, std::size_t n, void* temp, std::size_t temp_bytes,
                    ncclComm_t comm, cudaStream_t stream = nullptr);
template <class In>
void exclusive_scan(const In* shard, scan_result_t<In>* out, std::size_t n, void* temp, std::size_t temp_bytes,
                    ncclComm_t comm, cudaStream_t stream = nullptr);

/// Every rank at once, each with its device (one process driving several GPUs).
template <class In>
struct ScanRank {
  int device;
  const In* shard;
  std::size_t n;
  scan_result_t<In>* out;
  void* temp;
  std::size_t temp_bytes;
  ncclComm_t comm;
  cudaStream_t stream;
};
template <class In>
void inclusive_scan(std::span<const ScanRank<In>> ranks);
template <class In>
void exclusive_scan(std::span<const ScanRank<In>> ranks);

}  // namespace gpulab::multi
