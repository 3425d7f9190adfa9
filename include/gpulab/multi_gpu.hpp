// gpulab/multi_gpu.hpp — reduce, histogram, atax, scan, sgemm and conv3x3 over several GPUs through
// NCCL: each rank passes its shard, its communicator and a stream, and every rank gets the global
// result (scan: its share of it).
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

#include <gpulab/conv.hpp>
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

/// The rows [begin, end) of an m-row matrix or image that rank `rank` of `ranks` holds: the first
/// m % ranks ranks one row more. sgemm and conv3x3 split by it.
struct Rows {
  std::size_t begin = 0, end = 0;
};
Rows rows_of(std::size_t m, int rank, int ranks);

/// C = alpha·A·B + beta·C with A split by rows: this rank passes its rows of A (rows_of(m, …), lda
/// apart), the whole B, and C whole and packed (m × n, ldc = n) on every rank. Each rank computes
/// its rows of C (gpulab::sgemm's contract; beta ≠ 0 reads only its own rows), then each rank's rows
/// are broadcast from it: every rank ends with the whole C, the same bits as one GPU computing those
/// rows (each element is one rank's, nothing is added across ranks).
void sgemm(std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a_rows, std::size_t lda,
           const float* b, std::size_t ldb, float beta, float* c, ncclComm_t comm, cudaStream_t stream = nullptr);

/// What a function whose ranks compute rows leaves on each rank.
enum class Gather {
  all,   // the whole result on every rank: each rank's rows broadcast from it
  none,  // each rank only the rows it computed: no communication, for a next stage on the same rows
};

/// gpulab::conv3x3 with the image split by rows: this rank passes its rows rows_of(height, …) with
/// one row more above and below where the image has them (`band`: rows lo = max(begin, 1) − 1 up
/// to hi = min(end + 1, height), in_pitch apart). Each rank filters its band (the extra rows give
/// its edge rows their true neighbours; the border rule applies at the image's edges only).
/// Gather::all: `out` is the whole output image packed (3·width bytes a row) on every rank, and each
/// rank's rows are broadcast from it: every rank ends with the whole image, byte for byte the
/// one-GPU result. Gather::none: `out` is shaped like the band (rows lo … hi − 1, packed); its rows
/// begin … end − 1 are the result's, the neighbours' rows around them are left unspecified (ghost
/// rows), and nothing is communicated.
void conv3x3(const std::uint8_t* band, std::size_t in_pitch, std::uint8_t* out, std::size_t width, std::size_t height,
             const Filter3x3& filter, Border border, ncclComm_t comm, cudaStream_t stream = nullptr,
             Gather gather = Gather::all);

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

struct SgemmRank {
  int device;
  const float* a_rows;
  const float* b;
  float* c;
  ncclComm_t comm;
  cudaStream_t stream;
};
void sgemm(std::span<const SgemmRank> ranks, std::size_t m, std::size_t n, std::size_t k, float alpha, std::size_t lda,
           std::size_t ldb, float beta);

struct ConvRank {
  int device;
  const std::uint8_t* band;
  std::size_t in_pitch;
  std::uint8_t* out;
  ncclComm_t comm;
  cudaStream_t stream;
};
void conv3x3(std::span<const ConvRank> ranks, std::size_t width, std::size_t height, const Filter3x3& filter,
             Border border, Gather gather = Gather::all);

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
