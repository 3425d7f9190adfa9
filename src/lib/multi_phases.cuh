// How a problem's multi-GPU form is written (its own <problem>_multi.cu): each rank's work as three
// phases — its local part (the one-GPU function on its shard), its collectives as data (what it
// sends where), the combining step — and the engine (lib/multi_gpu.cu) runs them: in a row for one
// rank (the per-rank function), or over every rank at once from a launching thread per GPU (the
// all-ranks function: every local part, then each rank's collectives and combine), or through the
// loopback's copies in tests
// (lib/multi_loopback.hpp). The engine knows no problem.
#pragma once

#include <gpulab/error.hpp>
#include <gpulab/multi_gpu.hpp>

#include "lib/arith.hpp"

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace gpulab::multi::detail {

/// Where each part of a rank's temporary storage starts.
constexpr std::size_t kAlign = 256;

/// Throws gpulab::Error("gpulab::multi::" + what) unless ok.
void require(bool ok, const std::string& what);

template <class T>
ncclDataType_t nccl_type() {
  if constexpr (std::is_same_v<T, std::int32_t>) return ncclInt32;
  else if constexpr (std::is_same_v<T, std::uint32_t>) return ncclUint32;
  else if constexpr (std::is_same_v<T, float>) return ncclFloat32;
  else if constexpr (std::is_same_v<T, double>) return ncclFloat64;
  else static_assert(sizeof(T) == 0, "no NCCL type for T");
}

/// Where a rank stands: rank `rank` of `ranks`, and whether its local part may write its results
/// into the other ranks' memory itself (Phases::writes_peers): one process whose GPUs can each
/// write every other's memory, not being captured.
struct Place {
  int rank = 0, ranks = 1;
  bool peer_writes = false;
};

/// One collective of a rank, as data: what it sends and where it receives. Run through NCCL, or by
/// the loopback's copies in tests.
struct Collective {
  enum class Kind { all_gather, all_reduce_sum, broadcast } kind;
  const void* send;
  void* recv;
  std::size_t count;  // elements per rank (all-gather), or in all
  ncclDataType_t type;
  int root = 0;  // broadcast
};

inline Collective all_gather(const void* send, void* recv, std::size_t count, ncclDataType_t type) {
  return {Collective::Kind::all_gather, send, recv, count, type};
}
inline Collective all_reduce_sum(const void* send, void* recv, std::size_t count, ncclDataType_t type) {
  return {Collective::Kind::all_reduce_sum, send, recv, count, type};
}
inline Collective broadcast(void* data, std::size_t count, ncclDataType_t type, int root) {
  return {Collective::Kind::broadcast, data, data, count, type, root};
}

/// Every rank's block of rows (rows_of) sent from it into `full` (rows `row_elements` of `type`
/// apart, packed) on every rank: the collectives of a function whose ranks compute rows. One
/// all-gather in place where every block has the same rows (NCCL's ring: each GPU receives what it
/// lacks once), a broadcast from each rank with rows otherwise. With `pieces` > 1, piece `piece` of
/// each block (rows_of of the block's rows), a broadcast each: the collectives of one stage of a
/// pipelined form.
std::vector<Collective> row_block_gather(void* full, std::size_t rows, std::size_t row_elements, ncclDataType_t type, Place place,
                                         std::size_t piece = 0, std::size_t pieces = 1);

/// A later stage of a pipelined form: its share of the local work, and the collectives that send
/// what that share made. Its local part must not fail where the first stage's did not (sgemm's:
/// the same arguments, other rows): by then the ranks are in each other's collectives.
struct Stage {
  std::function<void()> local;
  std::vector<Collective> collectives;
};

/// One rank's three phases: its local part, its collectives (in the order every rank issues
/// them), the combining step. Each runs on the rank's device, made current by the engine.
/// Where `later` holds stages, the local part and collectives are the first of several: stage
/// j's collectives then run on a stream of their own while stage j + 1's local part runs (sgemm's
/// rows of C sent while the next rows are computed), unless the rank's stream is being captured.
struct Phases {
  std::function<void()> local;
  std::vector<Collective> collectives;
  std::function<void()> combine = [] {};
  std::vector<Stage> later = {};
  /// The local part writes into the other ranks' memory (only where Place::peer_writes; then every
  /// rank's does, and there are no collectives): it starts once every rank's stream has come this
  /// far, and each rank's combine waits for every rank's local part.
  bool writes_peers = false;
};

/// A rank's temporary storage: the one-GPU function's, its partial result, every rank's gathered.
struct TempLayout {
  std::size_t local = 0, partial = 0, gathered = 0, total = 0;
  TempLayout(std::size_t local_bytes, std::size_t partial_bytes, int ranks)
      : local(align_up(local_bytes, kAlign)),
        partial(align_up(partial_bytes, kAlign)),
        gathered(align_up(partial_bytes * static_cast<std::size_t>(ranks), kAlign)),
        total(local + partial + gathered) {}
  template <class T>
  T* partial_in(void* temp) const {
    return reinterpret_cast<T*>(static_cast<std::byte*>(temp) + local);
  }
  template <class T>
  T* gathered_in(void* temp) const {
    return reinterpret_cast<T*>(static_cast<std::byte*>(temp) + local + partial);
  }
};

/// a + b, integers wrapping modulo 2^32 like the one-GPU functions.
template <class T>
__device__ T add_wrapping(T a, T b) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
  else return a + b;
}

/// *out = parts[0] + … + parts[count − 1] in that order (count ≥ 1): how floats gathered from the
/// ranks are combined, the same bits on every rank and every run.
template <class T>
__global__ void add_in_rank_order(const T* parts, int count, T* out) {
  T s = parts[0];
  for (int r = 1; r < count; ++r) s = add_wrapping(s, parts[r]);
  *out = s;
}

/// The per-rank form: the rank's phases, made for its place in `comm`, in a row on `stream`.
void run_one(ncclComm_t comm, cudaStream_t stream, const std::function<Phases(Place)>& make_phases);

/// What the all-ranks form needs of each rank besides its problem's arguments.
struct RankStream {
  int device;
  ncclComm_t comm;
  cudaStream_t stream;
};

/// The all-ranks form: on each rank's launcher (lib/launchers.hpp) at once, its phases made on its
/// device (make_phases(i, place); temporary sizes depend on the device) and its local part; once
/// every local part is issued, each rank's collectives (one NCCL group per rank) and combine. The
/// caller's current device is left as it was.
void run_all(std::span<const RankStream> ranks, const std::function<Phases(std::size_t, Place)>& make_phases);

/// run_all over a problem's rank structs (each with device, comm and stream fields).
template <class Rank, class MakePhases>
void run_ranks(std::span<const Rank> ranks, MakePhases make_phases) {
  std::vector<RankStream> streams;
  for (const Rank& r : ranks) streams.push_back({r.device, r.comm, r.stream});
  run_all(streams, [&](std::size_t i, Place place) { return make_phases(ranks[i], place); });
}

}  // namespace gpulab::multi::detail
