// The multi-GPU engine: runs the phases each problem's form makes of a rank's work (its local part,
// its collectives as data, its combine; lib/multi_phases.cuh), in a row for one rank or phase by
// phase over every rank, the collectives through NCCL or the loopback's copies, or none where a
// rank's local part writes its results into the other ranks' memory itself (one process: sgemm's
// rows of C). Floats are gathered
// and added in rank order on every rank by the problems' combines (an all-reduce's order is NCCL's
// choice, so its bits could differ between runs, algorithms and ranks); integer counts go through
// an all-reduce (exact in any order). The problems' forms live in their folders (<problem>_multi.cu).
#include "lib/multi_phases.cuh"

#include "lib/launchers.hpp"
#include "lib/multi_loopback.hpp"
#include "lib/nccl_check.hpp"
#include "lib/per_device.hpp"
#include "lib/stream_scratch.hpp"

#include <gpulab/device_buffer.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <string_view>
#include <utility>

namespace gpulab::multi {
namespace detail {
namespace {

thread_local bool loopback_active = false;

Place place_of(ncclComm_t comm) {
  Place p;
  p.ranks = ranks_of(comm);
  check_nccl(ncclCommUserRank(comm, &p.rank), "ncclCommUserRank", comm);
  return p;
}

void enqueue(const Collective& c, ncclComm_t comm, cudaStream_t stream) {
  switch (c.kind) {
    case Collective::Kind::all_gather:
      return check_nccl(ncclAllGather(c.send, c.recv, c.count, c.type, comm, stream), "ncclAllGather", comm);
    case Collective::Kind::all_reduce_sum:
      return check_nccl(ncclAllReduce(c.send, c.recv, c.count, c.type, ncclSum, comm, stream), "ncclAllReduce", comm);
    case Collective::Kind::broadcast:
      return check_nccl(ncclBroadcast(c.send, c.recv, c.count, c.type, c.root, comm, stream), "ncclBroadcast", comm);
  }
}

/// A rank's collectives in one NCCL group: NCCL issues them together (sgemm's and conv's
/// broadcasts, one per rank, in one launch).
void enqueue_all(const std::vector<Collective>& collectives, ncclComm_t comm, cudaStream_t stream) {
  NcclGroup group;
  for (const Collective& c : collectives) enqueue(c, comm, stream);
  group.end();
}

std::size_t element_bytes(ncclDataType_t type) {
  switch (type) {
    case ncclInt8: case ncclUint8: return 1;
    case ncclInt32: case ncclUint32: case ncclFloat32: return 4;
    case ncclFloat64: return 8;
    default: throw Error("gpulab::multi: an NCCL type the loopback does not know");
  }
}

/// The ranks' collectives of one stage (`of[q]`: rank q's), checked to agree as NCCL requires of
/// them (where NCCL would hang, the copies below would write the wrong places).
void require_agreement(const std::vector<const std::vector<Collective>*>& of) {
  for (const auto* cs : of) require(cs->size() == of[0]->size(), "the ranks disagree on their collectives");
  for (std::size_t k = 0; k < of[0]->size(); ++k) {
    const Collective& c = (*of[0])[k];
    for (const auto* cs : of)
      require((*cs)[k].kind == c.kind && (*cs)[k].count == c.count && (*cs)[k].type == c.type && (*cs)[k].root == c.root,
              "the ranks disagree on their collectives");
  }
}

/// The copies by which collective k of a stage moves data, by NCCL's semantics, where it only moves
/// it (an all-gather, a broadcast): fn(from, to, dst, src, bytes) for each rank `from` whose data
/// lands in rank `to` (a rank's own block of an all-gather in place is there already).
template <class Fn>
void for_each_transfer(const std::vector<const std::vector<Collective>*>& of, std::size_t k, Fn&& fn) {
  const Collective& c = (*of[0])[k];
  require(c.kind != Collective::Kind::all_reduce_sum, "an all-reduce done by copies");
  require(c.kind != Collective::Kind::broadcast || (c.root >= 0 && static_cast<std::size_t>(c.root) < of.size()),
          "a broadcast from a rank outside");
  const std::size_t bytes = c.count * element_bytes(c.type);
  if (bytes == 0) return;
  for (std::size_t to = 0; to < of.size(); ++to)
    for (std::size_t from = 0; from < of.size(); ++from) {
      if (c.kind == Collective::Kind::broadcast && from != static_cast<std::size_t>(c.root)) continue;
      void* dst = static_cast<std::byte*>((*of[to])[k].recv) + (c.kind == Collective::Kind::all_gather ? from * bytes : 0);
      const void* src = (*of[from])[k].send;
      if (dst != src) fn(from, to, dst, src, bytes);
    }
}

/// The loopback's collectives of one stage over every rank (`of[q]`: rank q's), after every
/// rank's local part of it finished: copies with NCCL's semantics (see multi_loopback.hpp).
void loopback_collectives(std::span<const RankStream> ranks, const std::vector<const std::vector<Collective>*>& of) {
  for (const RankStream& r : ranks) {
    GPULAB_CUDA_CHECK(cudaSetDevice(r.device));
    GPULAB_CUDA_CHECK(cudaStreamSynchronize(r.stream));
  }
  require_agreement(of);
  auto copy = [](void* to, const void* from, std::size_t b) { GPULAB_CUDA_CHECK(cudaMemcpy(to, from, b, cudaMemcpyDefault)); };
  for (std::size_t k = 0; k < of[0]->size(); ++k) {
    const Collective& c = (*of[0])[k];
    if (c.kind != Collective::Kind::all_reduce_sum) {
      for_each_transfer(of, k, [&](std::size_t, std::size_t, void* dst, const void* src, std::size_t b) { copy(dst, src, b); });
      continue;
    }
    require(c.type == ncclUint32, "loopback: a sum all-reduce of a type other than uint32");
    const std::size_t bytes = c.count * element_bytes(c.type);
    std::vector<std::uint32_t> sum(c.count, 0), part(c.count);
    for (const auto* from : of) {
      copy(part.data(), (*from)[k].send, bytes);
      for (std::size_t i = 0; i < c.count; ++i) sum[i] += part[i];
    }
    for (const auto* to : of) copy((*to)[k].recv, sum.data(), bytes);
  }
}

/// A rank's collectives and combine, once its (first) local part is issued on `stream`. A
/// pipelined form's stages send on a stream of their own, each once its local part is done on
/// `stream`, while `stream` goes on to the next stage's; `stream` waits for the last send before
/// the combine. While `stream` is captured every stage runs in a row on it.
void collect_and_combine(const Phases& p, ncclComm_t comm, cudaStream_t stream) {
  if (p.later.empty() || stream_capturing(stream)) {
    enqueue_all(p.collectives, comm, stream);
    for (const Stage& s : p.later) {
      s.local();
      enqueue_all(s.collectives, comm, stream);
    }
    p.combine();
    return;
  }
  const Stream sending;
  const Event made, sent;
  auto send = [&](const std::vector<Collective>& collectives) {
    made.record(stream);
    GPULAB_CUDA_CHECK(cudaStreamWaitEvent(sending.get(), made.get()));
    enqueue_all(collectives, comm, sending.get());
  };
  send(p.collectives);
  for (const Stage& s : p.later) {
    s.local();
    send(s.collectives);
  }
  sent.record(sending.get());
  GPULAB_CUDA_CHECK(cudaStreamWaitEvent(stream, sent.get()));
  p.combine();
}

/// Whether a local part may write the other ranks' memory: not where GPULAB_MULTI_PEER_WRITES=0
/// (everything through NCCL, to compare the two or to step around a platform's peer access).
bool peer_writes_wanted() {
  const char* v = std::getenv("GPULAB_MULTI_PEER_WRITES");
  return v == nullptr || std::string_view(v) != "0";
}

/// Whether each of `devices` can write the others' memory, peer access enabled (once a pair, for
/// the process: cudaDeviceEnablePeerAccess). A pair that cannot (no P2P path, too many peers)
/// leaves every send to NCCL.
bool peers_reachable(std::span<const int> devices) {
  static std::mutex mutex;
  static std::map<std::pair<int, int>, bool> known;
  const std::lock_guard lock(mutex);
  const KeepCurrentDevice keep;
  for (int a : devices)
    for (int b : devices) {
      if (a == b) continue;
      auto [pair, fresh] = known.try_emplace({a, b}, false);
      if (fresh) {
        int can = 0;
        GPULAB_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, a, b));
        if (can != 0) {
          GPULAB_CUDA_CHECK(cudaSetDevice(a));
          const cudaError_t e = cudaDeviceEnablePeerAccess(b, 0);
          if (e != cudaSuccess) (void)cudaGetLastError();  // (already enabled, by NCCL or the caller: fine)
          pair->second = e == cudaSuccess || e == cudaErrorPeerAccessAlreadyEnabled;
        }
      }
      if (!pair->second) return false;
    }
  return true;
}

/// Whether any rank's stream is being captured into a graph (the captured calls stay with NCCL,
/// which a graph replays; the peer writes' cross-device events would join the captures).
bool any_capturing(std::span<const RankStream> ranks) {
  const KeepCurrentDevice keep;
  for (const RankStream& r : ranks) {
    GPULAB_CUDA_CHECK(cudaSetDevice(r.device));
    if (stream_capturing(r.stream)) return true;
  }
  return false;
}

/// A call whose local parts write the other ranks' memory (Phases::writes_peers), each rank's
/// stream at `here[i]` when its phases were made: each rank's local part starts once every rank's
/// stream has come that far (no rank's memory is written while its stream may still use it), and
/// each rank's combine once every rank's local part is done.
void run_writing_peers(std::span<const RankStream> ranks, std::span<const int> devices, const std::vector<Phases>& phases,
                       const std::vector<std::unique_ptr<Event>>& here) {
  const std::size_t n = ranks.size();
  std::vector<std::unique_ptr<Event>> made(n);
  gpulab::detail::on_launchers(devices, [&](std::size_t i) {
    for (std::size_t j = 0; j < n; ++j)
      if (j != i) GPULAB_CUDA_CHECK(cudaStreamWaitEvent(ranks[i].stream, here[j]->get()));
    phases[i].local();
    made[i] = std::make_unique<Event>();
    made[i]->record(ranks[i].stream);
  });
  gpulab::detail::on_launchers(devices, [&](std::size_t i) {
    for (std::size_t j = 0; j < n; ++j)
      if (j != i) GPULAB_CUDA_CHECK(cudaStreamWaitEvent(ranks[i].stream, made[j]->get()));
    phases[i].combine();
  });
}

}  // namespace

void require(bool ok, const std::string& what) {
  if (!ok) throw Error("gpulab::multi::" + what);
}

std::vector<Collective> row_block_gather(void* full, std::size_t rows, std::size_t row_elements, ncclDataType_t type, Place place,
                                         std::size_t piece, std::size_t pieces) {
  // At 4096³ over four H100s sgemm's four broadcasts of 16 MB took 0.23 ms (8cc802d, 0758d97).
  const auto ranks = static_cast<std::size_t>(place.ranks);
  const std::size_t row_bytes = row_elements * element_bytes(type);
  if (pieces == 1 && rows % ranks == 0 && rows > 0 && row_bytes > 0) {
    const std::size_t block = rows / ranks;  // in place: this rank's block is where the gather puts it
    return {all_gather(static_cast<std::byte*>(full) + static_cast<std::size_t>(place.rank) * block * row_bytes, full,
                       block * row_elements, type)};
  }
  std::vector<Collective> out;
  for (int q = 0; q < place.ranks; ++q) {
    const Rows block = rows_of(rows, q, place.ranks);
    const Rows part = rows_of(block.end - block.begin, static_cast<int>(piece), static_cast<int>(pieces));
    if (part.end == part.begin || row_elements == 0) continue;
    void* at = static_cast<std::byte*>(full) + (block.begin + part.begin) * row_bytes;
    out.push_back(broadcast(at, (part.end - part.begin) * row_elements, type, q));
  }
  return out;
}

void run_one(ncclComm_t comm, cudaStream_t stream, const std::function<Phases(Place)>& make_phases) {
  const Phases p = make_phases(place_of(comm));
  p.local();
  collect_and_combine(p, comm, stream);
}

void run_all(std::span<const RankStream> ranks, const std::function<Phases(std::size_t, Place)>& make_phases) {
  if (ranks.empty()) return;
  std::vector<Phases> phases(ranks.size());
  if (loopback_active) {  // every rank on one GPU, in turn: the collectives are copies once all locals are done
    const KeepCurrentDevice keep;  // also when a rank's step throws
    auto each = [&](auto&& step) {
      for (std::size_t i = 0; i < ranks.size(); ++i) {
        GPULAB_CUDA_CHECK(cudaSetDevice(ranks[i].device));
        step(i);
      }
    };
    each([&](std::size_t i) { phases[i] = make_phases(i, Place{static_cast<int>(i), static_cast<int>(ranks.size())}); });
    auto stage_collectives = [&](auto&& of_rank) {
      std::vector<const std::vector<Collective>*> of;
      for (const Phases& p : phases) of.push_back(&of_rank(p));
      loopback_collectives(ranks, of);
    };
    each([&](std::size_t i) { phases[i].local(); });
    stage_collectives([](const Phases& p) -> const std::vector<Collective>& { return p.collectives; });
    for (const Phases& p : phases) require(p.later.size() == phases[0].later.size(), "loopback: the ranks disagree on their stages");
    for (std::size_t j = 0; j < phases[0].later.size(); ++j) {
      each([&](std::size_t i) { phases[i].later[j].local(); });
      stage_collectives([&](const Phases& p) -> const std::vector<Collective>& { return p.later[j].collectives; });
    }
    each([&](std::size_t i) { phases[i].combine(); });
    return;
  }
  // Each rank's work issued by its GPU's launcher, all at once, as a process per GPU would (one
  // thread issuing every GPU's in turn made a small call over four GPUs 2–4 times one GPU's time).
  // The local parts first, everywhere: a rank whose part fails then leaves no other rank waiting
  // in a collective that it will never join.
  // Where every GPU can write every other's memory, a local part may write its results into the
  // other ranks' memory as it makes them (not while captured); it first waits for every rank's
  // stream (run_writing_peers).
  std::vector<int> devices;
  for (const RankStream& r : ranks) devices.push_back(r.device);
  const bool peer_writes = ranks.size() > 1 && peer_writes_wanted() && !any_capturing(ranks) && peers_reachable(devices);
  std::vector<std::unique_ptr<Event>> here(ranks.size());
  gpulab::detail::on_launchers(devices, [&](std::size_t i) {
    Place place = place_of(ranks[i].comm);
    place.peer_writes = peer_writes;
    phases[i] = make_phases(i, place);
    if (!phases[i].writes_peers) return phases[i].local();
    here[i] = std::make_unique<Event>();
    here[i]->record(ranks[i].stream);
  });
  if (phases[0].writes_peers) {
    for (const Phases& p : phases) require(p.writes_peers && p.collectives.empty() && p.later.empty(), "the ranks disagree on their phases");
    return run_writing_peers(ranks, devices, phases, here);
  }
  gpulab::detail::on_launchers(devices, [&](std::size_t i) { collect_and_combine(phases[i], ranks[i].comm, ranks[i].stream); });
}

LoopbackRanks::LoopbackRanks() : previous_(loopback_active) { loopback_active = true; }
LoopbackRanks::~LoopbackRanks() { loopback_active = previous_; }

}  // namespace detail

Rows rows_of(std::size_t m, int rank, int ranks) {
  detail::require(ranks > 0 && rank >= 0 && rank < ranks, "rows_of: a rank outside 0 … ranks − 1");
  const auto r = static_cast<std::size_t>(rank), count = static_cast<std::size_t>(ranks);
  const std::size_t base = m / count, extra = m % count;
  const std::size_t begin = r * base + std::min(r, extra);
  return {begin, begin + base + (r < extra ? 1 : 0)};
}

int ranks_of(ncclComm_t comm) {
  detail::require(comm != nullptr, "a null communicator");
  int ranks = 0;
  check_nccl(ncclCommCount(comm, &ranks), "ncclCommCount", comm);
  return ranks;
}

}  // namespace gpulab::multi
