// gpulab/multi_gpu.hpp — what every function over several GPUs through NCCL shares: its contract,
// the split of rows among ranks and the rank count of a communicator. Each problem's functions are
// in gpulab/multi/<problem>.hpp (reduce, histogram, atax, scan, sgemm, conv): each rank passes its
// shard, its communicator and a stream, and every rank gets the global result (scan: its share).
//
//   #include <gpulab/multi/reduce.hpp>
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
//   overload that takes every rank at once. It issues each rank's work from a thread of its GPU's
//   (gpulab keeps one per GPU, asleep when idle), all at once as processes would: the local parts
//   first, then each rank's collectives and combining step, and returns once all is enqueued.
//   Where every pair of its GPUs can reach the other's memory, the first such call enables peer
//   access between them (cudaDeviceEnablePeerAccess, for the whole process), and multi::sgemm's
//   ranks write their rows of C into every rank's C as they make them, with nothing to send after;
//   GPULAB_MULTI_PEER_WRITES=0 sends everything through NCCL. Such a call's ranks wait for each
//   other's streams at its start and end (cross-device events).
//   Per-rank calls for each GPU in turn from one thread are not a way: NCCL may block a call
//   until the other ranks arrive, and inside one NCCL group the combining kernel would be enqueued
//   before the deferred collective.
// - Throws gpulab::Error on a bad argument, too little temporary storage, or a CUDA or NCCL error
//   (with NCCL's message).
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstddef>

namespace gpulab::multi {

/// The rows [begin, end) of an m-row matrix or image that rank `rank` of `ranks` holds: the first
/// m % ranks ranks one row more. sgemm and conv3x3 split by it.
struct Rows {
  std::size_t begin = 0, end = 0;
};
Rows rows_of(std::size_t m, int rank, int ranks);

/// What a function whose ranks compute rows leaves on each rank.
enum class Gather {
  all,   // the whole result on every rank: each rank's rows broadcast from it
  none,  // each rank only the rows it computed: no communication, for a next stage on the same rows
};

/// The number of ranks of `comm` (throws on a bad communicator).
int ranks_of(ncclComm_t comm);

}  // namespace gpulab::multi
