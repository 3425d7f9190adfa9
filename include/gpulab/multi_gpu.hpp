// gpulab/multi_gpu.hpp — reduce, histogram, atax and scan over several GPUs through NCCL: each rank
// passes its shard, its communicator and a stream, and every rank gets the global result (scan:
// its share of it).
//
//   ncclComm_t comm = …;   // one per GPU: ncclCommInitRank (one process per GPU, e.g. under MPI)
//                          // or ncclCommInitAll (one process over the GPUs of a host)
//   std::size_t bytes = gpulab::multi::reduce_sum_temp_bytes<float>(n_local, ranks);
//   gpulab::DeviceBuffer<std::byte> temp(bytes);  cudaMemset(temp.data(), 0, bytes);   // once
//   gpulab::multi::reduce_sum(d_shard, n_local, d_sum, temp.data(), bytes, comm, stream);
//
// Contract (each function; the single-GPU function's contract holds for the local part)
// - Every rank of `comm` calls the function, on the device its communicator was made for, with
//   the same `m` (histogram) or `cols` (atax); shards may differ in length (0 included). A
//   mismatch of m or cols across ranks is not detected here (it would cost a collective per call):
//   `gpulab bench --gpus` checks the shapes once before it starts.
// - Deterministic where the one-GPU function is, and the same bits on every rank: floats are
//   never combined by an all-reduce (its ring or tree picks the order of the additions). The
//   ranks' partial results are gathered (ncclAllGather) and every rank adds them in rank order,
//   0, 1, …, ranks − 1. Integer counts are combined by ncclAllReduce (exact in any order).
// - Everything is asynchronous on `stream`; NCCL's calls are enqueued there.
// - Two ways to call: one process (or thread) per GPU calls the per-rank function with its
//   communicator; one process driving several GPUs (communicators from ncclCommInitAll) calls the
//   overload that takes every rank at once, which runs the local parts, then the collectives of
//   all ranks in one NCCL group, then the combining step (a per-rank call inside a group of the
//   caller's would enqueue the combining kernel before the deferred collective).
// - Throws gpulab::Error on a bad argument, too little temporary storage, or a CUDA or NCCL error
//   (with NCCL's message).
#pragma once

#include <gpulab/scan.hpp>

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstddef>
#include <cstdint>
#include <span>

namespace gpulab::multi {

/// Bytes of temporary storage reduce_sum<T> needs on a rank with n local elements among `ranks`.
template <class T>
std::size_t reduce_sum_temp_bytes(std::size_t n, int ranks);

/// *out = the sum of every rank's shard, on every rank. T is std::int32_t (wraps modulo 2^32),
/// float or double (within k·ε·Σ|x| with k = reduce_sum_accumulation_depth<T>(largest shard) +
/// ranks). The temporary storage is zero-filled before its first use and left so.
template <class T>
void reduce_sum(const T* shard, std::size_t n, T* out, void* temp, std::size_t temp_bytes, ncclComm_t comm,
                cudaStream_t stream = nullptr);

/// counts[b] = the number of values of all shards in bin b, on every rank (bins as
/// gpulab::histogram: ((v % m) + m) % m). Counts add modulo 2^32.
void histogram(const std::int32_t* shard, std::size_t n, std::uint32_t m, std::uint32_t* counts, ncclComm_t comm,
               cudaStream_t stream = nullptr);

/// Bytes of temporary storage atax needs on a rank holding `rows` rows of `cols` among `ranks`.
std::size_t atax_temp_bytes(std::uint32_t rows, std::uint32_t cols, int ranks);

/// y = Σ_r A_rᵀ(A_r·x) with A split by rows (this rank's `rows` rows, row-major, and the whole x),
/// on every rank. rows may be 0.
void atax(const float* a_rows, const float* x, std::uint32_t rows, std::uint32_t cols, float* y, void* temp,
          std::size_t temp_bytes, ncclComm_t comm, cudaStream_t stream = nullptr);

/// Bytes of temporary storage a scan needs on a rank with n local elements among `ranks`.
template <class In>
std::size_t scan_temp_bytes(std::size_t n, int ranks);

/// The prefix sums of the shards taken in rank order (rank 0's first), each rank holding its
/// share: out[i] = (every element of the ranks before) + the shard's own prefix (inclusive: up to
/// and including element i; exclusive: before it). In and the output type as gpulab::inclusive_scan.
/// Each rank's shard total is gathered and the offset added in rank order (floats: the same bits
/// every run; k grows by the number of ranks before plus two). Rank 0's share is its own scan.
template <class In>
void inclusive_scan(const In* shard, scan_result_t<In>* out, std::size_t n, void* temp, std::size_t temp_bytes,
                    ncclComm_t comm, cudaStream_t stream = nullptr);
template <class In>
void exclusive_scan(const In* shard, scan_result_t<In>* out, std::size_t n, void* temp, std::size_t temp_bytes,
                    ncclComm_t comm, cudaStream_t stream = nullptr);

/// The number of ranks of `comm` (throws on a bad communicator).
int ranks_of(ncclComm_t comm);

// ---- one process driving every rank: each rank's arguments with its device ----------------------

template <class T>
struct ReduceRank {
  int device;
  const T* shard;
  std::size_t n;
  T* out;
  void* temp;
  std::size_t temp_bytes;
  ncclComm_t comm;
  cudaStream_t stream;
};
template <class T>
void reduce_sum(std::span<const ReduceRank<T>> ranks);

struct HistogramRank {
  int device;
  const std::int32_t* shard;
  std::size_t n;
  std::uint32_t* counts;
  ncclComm_t comm;
  cudaStream_t stream;
};
void histogram(std::span<const HistogramRank> ranks, std::uint32_t m);

struct AtaxRank {
  int device;
  const float* a_rows;
  const float* x;
  std::uint32_t rows;
  float* y;
  void* temp;
  std::size_t temp_bytes;
  ncclComm_t comm;
  cudaStream_t stream;
};
void atax(std::span<const AtaxRank> ranks, std::uint32_t cols);

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
