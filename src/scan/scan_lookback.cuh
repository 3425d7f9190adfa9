// The one-pass scan's machinery shared by its forms (the plain scan in scan.cu, the segmented scan
// in segmented_scan.cu): the tile shape, the tiles' published status, the deterministic look-back
// (see scan.cu's head for the chain it reproduces), the drawing of tiles by ticket, and a thread's
// loads and stores of its tile.
#pragma once

#include "scan/scan_tile.cuh"

#include <gpulab/error.hpp>
#include <gpulab/scan.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

namespace gpulab::scan_detail {

constexpr unsigned kBlock = 256;
constexpr unsigned kWarps = kBlock / kWarp;
// Elements a thread: as many as registers allow while 3-5 blocks stay resident, because every
// tile pays a ticket, a barrier and a look-back round trip whatever its size. Measured on the H100
// at 2^28 (the journal: git show 539355e:docs/notes.md): 4-byte outputs 16 → 32 → 48 → 64 items took 0.995 → 0.845 → 0.81 →
// 0.82 ms; doubles 16 → 32 → 48: 1.78 → 1.63 → 1.80 ms (198 registers at 48).
template <class Out>
constexpr unsigned kItemsPerThread = sizeof(Out) == 8 ? 32 : 48;
constexpr std::size_t kHeaderBytes = 256;

/// The shape of a tile for input type In: each lane's run is one 16-byte vector of the output
/// (4 int32 or float, 2 double), loaded as one vector of as many inputs (4 to 16 bytes).
template <class In>
struct TileShape {
  static constexpr unsigned kItems = 16 / sizeof(scan_result_t<In>);  // elements per lane per round
  static constexpr unsigned kRounds = kItemsPerThread<scan_result_t<In>> / kItems;  // rounds per warp segment
  static constexpr unsigned kSegment = kRounds * kWarp * kItems;       // elements per warp
  static constexpr std::size_t kTile = std::size_t{kWarps} * kSegment;  // elements per block
};

/// kCount elements of T loaded or stored with one instruction.
template <class T, unsigned kCount>
struct alignas(sizeof(T) * kCount) Vec {
  T v[kCount];
};

enum : unsigned { kInvalid = 0, kAggregate = 1, kInclusive = 2 };

/// A tile's published state and value in one 16-byte word, written and read with single 16-byte
/// accesses (as CUB's tile status does for 8-byte values): a reader that sees the state has the
/// value in the same load, one L2 round trip. `tag` = (ticket << 2) | state.
struct alignas(16) StatusWord {
  unsigned long long tag;
  unsigned long long bits;  // the value's bytes, low end first
};

__device__ __forceinline__ void store_status(StatusWord* at, unsigned long long tag, unsigned long long bits) {
  asm volatile("st.global.cg.v2.u64 [%0], {%1, %2};" ::"l"(at), "l"(tag), "l"(bits) : "memory");
}
__device__ __forceinline__ StatusWord load_status(const StatusWord* at) {
  StatusWord w;
  asm volatile("ld.global.cg.v2.u64 {%0, %1}, [%2];" : "=l"(w.tag), "=l"(w.bits) : "l"(at) : "memory");
  return w;
}
template <class A>
__device__ __forceinline__ unsigned long long to_bits(A v) {
  unsigned long long bits = 0;
  memcpy(&bits, &v, sizeof(A));
  return bits;
}
template <class A>
__device__ __forceinline__ A from_bits(unsigned long long bits) {
  A v;
  memcpy(&v, &bits, sizeof(A));
  return v;
}

struct TileStatus {
  unsigned long long* counter;  // tickets handed out, over all calls
  unsigned long long* first;    // the ticket of this call's tile 0 (written by the call before)
  StatusWord* words;            // one a tile

  static std::size_t bytes(std::size_t tiles) { return kHeaderBytes + tiles * sizeof(StatusWord); }
  static TileStatus in(void* temp) {
    auto* base = static_cast<unsigned char*>(temp);
    return {reinterpret_cast<unsigned long long*>(base), reinterpret_cast<unsigned long long*>(base + 8),
            reinterpret_cast<StatusWord*>(base + kHeaderBytes)};
  }
};

template <class A>
__device__ __forceinline__ void publish(const TileStatus& status, unsigned long long tile, unsigned long long ticket,
                                        unsigned state, A value) {
  store_status(&status.words[tile], (ticket << 2) | state, to_bits(value));
}

constexpr unsigned kMaxWindows = 8;  // windows of 32 predecessors a look-back keeps before it waits

/// Warp 0 of tile t > 0: the inclusive prefix of tile t − 1, as the chain of tiles defines it
/// (see the top of the file). The warp reads 32 predecessors at once, newest in lane 0; once all
/// have published, it keeps their values and, if none of them has an inclusive prefix yet, moves
/// to the 32 before (CUB's look-back), up to kMaxWindows windows, after which it waits for the
/// oldest one kept to become inclusive. Then lane 0 adds the kept aggregates to the nearest
/// inclusive prefix one at a time, oldest first: exactly the chain, whatever the timing.
/// `kept`: shared memory for 32·kMaxWindows values.
template <class A>
__device__ __forceinline__ A look_back(const TileStatus& status, unsigned long long first_ticket,
                                       unsigned long long t, A* kept) {
  const unsigned lane = threadIdx.x % kWarp;
  auto read = [&](long long tile, unsigned& state, A& value) {
    const StatusWord w = load_status(&status.words[tile]);
    state = (w.tag >> 2) == first_ticket + static_cast<unsigned long long>(tile) ? static_cast<unsigned>(w.tag & 3) : kInvalid;
    value = from_bits<A>(w.bits);
  };
  int start = -1;  // index into `kept` of the inclusive prefix the chain starts from
  for (unsigned w = 0; w < kMaxWindows && start < 0; ++w) {
    const long long watched = static_cast<long long>(t) - 1 - static_cast<long long>(w * kWarp + lane);
    unsigned state = kInclusive;  // lanes past tile 0 watch nothing
    A value = 0;
    if (watched >= 0) read(watched, state, value);
    while (__any_sync(kFullMask, state == kInvalid))
      if (state == kInvalid) read(watched, state, value);
    kept[w * kWarp + lane] = value;
    // Tile 0 only ever publishes an inclusive prefix: the chain starts there at the latest.
    const unsigned inclusive_lanes = __ballot_sync(kFullMask, state == kInclusive && watched >= 0);
    if (inclusive_lanes != 0) start = static_cast<int>(w * kWarp) + __ffs(inclusive_lanes) - 1;
  }
  __syncwarp();  // every lane's kept values visible to lane 0
  A prefix = 0;
  if (lane == 0) {
    if (start < 0) {
      // Every kept predecessor is an aggregate: wait for the inclusive prefix of the one before them.
      const long long oldest = static_cast<long long>(t) - 1 - static_cast<long long>(kMaxWindows * kWarp);
      unsigned state = kInvalid;
      for (read(oldest, state, prefix); state != kInclusive; read(oldest, state, prefix)) __nanosleep(64);
      start = static_cast<int>(kMaxWindows * kWarp);
    } else {
      prefix = kept[start];
    }
    // The chain, oldest first. Eight loads ahead of the additions: the adds wait on each other,
    // the loads need not, so a step costs one addition's latency rather than a shared load's.
    int i = start - 1;
    for (; i >= 7; i -= 8) {
      A v[8];
#pragma unroll
      for (int k = 0; k < 8; ++k) v[k] = kept[i - k];
#pragma unroll
      for (int k = 0; k < 8; ++k) prefix = prefix + v[k];
    }
    for (; i >= 0; --i) prefix = prefix + kept[i];
  }
  return __shfl_sync(kFullMask, prefix, 0);
}

/// Thread 0 of a block of a grid of a block a tile: draws the block's tile into drawn[0] and the
/// call's first ticket into drawn[1]. The block that draws the call's last ticket moves `first` on.
/// Both accesses are relaxed and need no fence: `first` moves from F to F + gridDim.x once in a
/// call, when its last ticket is drawn, so a read of it sees F or F + gridDim.x, and the ticket (F ≤
/// ticket < F + gridDim.x) tells which. (An ordering fence would wait for the tile's loads that the
/// thread has just issued, and the block would wait for the fence.) PTX's global forms, because
/// cuda::atomic_ref on a generic pointer adds a test of the address space and a branch.
__device__ __forceinline__ void draw_tile(const TileStatus& status, unsigned long long* drawn) {
  unsigned long long ticket, first;
  asm volatile("atom.relaxed.gpu.global.add.u64 %0, [%1], 1;" : "=l"(ticket) : "l"(status.counter) : "memory");
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(first) : "l"(status.first) : "memory");
  if (ticket - first >= gridDim.x) first -= gridDim.x;  // read after the last draw moved it on
  const unsigned long long tile = ticket - first;
  if (tile == gridDim.x - 1)
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(status.first), "l"(first + gridDim.x) : "memory");
  drawn[0] = tile;
  drawn[1] = first;
}

/// Where the thread's run of round r starts in tile `tile`.
template <class In>
__device__ __forceinline__ std::size_t run_begin(unsigned long long tile, unsigned r) {
  using S = TileShape<In>;
  const unsigned lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  return tile * S::kTile + std::size_t{warp} * S::kSegment + (std::size_t{r} * kWarp + lane) * S::kItems;
}

template <class In>
std::size_t tiles_for(std::size_t n) {
  return (n + TileShape<In>::kTile - 1) / TileShape<In>::kTile;
}

/// The tiles of a call of n elements, after the checks every form makes: the grid's size, and the
/// temporary storage (`name` speaks in the messages).
template <class In>
std::size_t checked_tiles(const char* name, std::size_t n, std::size_t temp_bytes) {
  const std::size_t tiles = tiles_for<In>(n);
  if (tiles > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw Error(std::string(name) + ": " + std::to_string(n) + " elements need more than 2^31 - 1 tiles");
  const std::size_t needed = TileStatus::bytes(tiles);
  if (temp_bytes < needed)
    throw Error(std::string(name) + ": temporary storage of " + std::to_string(temp_bytes) +
                " bytes is too small; scan_temp_bytes() says " + std::to_string(needed));
  return tiles;
}

/// The thread's elements of tile `tile` into `seg.item` (a WarpSegment's layout). `full`: a whole
/// tile, through vectors (the caller checked the alignment); otherwise element by element, bounds
/// checked.
template <class In, class Seg>
__device__ __forceinline__ void load_tile(const In* in, std::size_t n, unsigned long long tile, bool full, Seg& seg) {
  using Out = scan_result_t<In>;
  using A = acc_t<Out>;
  constexpr unsigned kItems = TileShape<In>::kItems, kRounds = TileShape<In>::kRounds;
  if (full) {
    using V = Vec<In, kItems>;
    V v[kRounds];
#pragma unroll
    for (unsigned r = 0; r < kRounds; ++r) v[r] = *reinterpret_cast<const V*>(in + run_begin<In>(tile, r));
#pragma unroll
    for (unsigned r = 0; r < kRounds; ++r)
#pragma unroll
      for (unsigned k = 0; k < kItems; ++k) seg.item[r][k] = to_acc<Out>(v[r].v[k]);
  } else {
#pragma unroll
    for (unsigned r = 0; r < kRounds; ++r)
#pragma unroll
      for (unsigned k = 0; k < kItems; ++k) {
        const std::size_t i = run_begin<In>(tile, r) + k;
        seg.item[r][k] = i < n ? to_acc<Out>(in[i]) : A(0);
      }
  }
}

/// How a block comes by its tile's data. Its ticket's round trip takes 1.3-3.7 us under load (a
/// timeline of every tile, docs/scan.md), so meanwhile it acts on a guess, tile blockIdx.x:
/// - load_guess (rungs 5-7): loads the guess, and loads again where the ticket names another tile;
/// - prefetch_guess (rung 8): asks the L2 for the guess, then loads the tile it drew, once. Blocks
///   draw their tickets out of index order (SMs reach the counter at different times): ncu finds
///   load_guess reading nearly every tile twice, through the L1 and the L2 (int32 2^28 on the H200:
///   65.5 M L2 read sectors, 34.6 M with the guess prefetched; the input is 33.5 M). A wrong guess
///   is a nearby block's tile: the prefetch serves that block instead (loading after the ticket
///   with no prefetch is 4% slower).
enum class TileStart { load_guess, prefetch_guess };

/// Elements [begin, begin + count) of `base`, clipped to n, asked into the L2 (prefetch.global.L2: a
/// 128-byte line a thread in turn), without waiting for them.
template <class T>
__device__ __forceinline__ void prefetch_to_l2(const T* base, std::size_t n, std::size_t begin, std::size_t count) {
  constexpr std::size_t kLine = 128;
  if (begin >= n) return;
  const auto* first = reinterpret_cast<const unsigned char*>(base + begin);
  const std::size_t bytes = std::min(n - begin, count) * sizeof(T);
  for (std::size_t at = std::size_t{threadIdx.x} * kLine; at < bytes; at += std::size_t{blockDim.x} * kLine)
    asm volatile("prefetch.global.L2 [%0];" ::"l"(first + at));
}

/// The block's tile and the call's first ticket (draw_tile), the tile's data loaded by `kStart`;
/// one barrier. `load(tile)` loads a tile's data, `prefetch(tile)` asks the L2 for it.
template <TileStart kStart, class IsFull, class Load, class Prefetch>
__device__ __forceinline__ void start_tile(const TileStatus& status, unsigned long long* drawn, IsFull is_full, Load load,
                                           Prefetch prefetch) {
  const unsigned long long guess = blockIdx.x;
  if constexpr (kStart == TileStart::load_guess) {
    if (is_full(guess)) load(guess);
  } else {
    prefetch(guess);
  }
  if (threadIdx.x == 0) draw_tile(status, drawn);
  __syncthreads();
  const unsigned long long tile = drawn[0];
  if (kStart != TileStart::load_guess || tile != guess || !is_full(tile)) load(tile);
}

/// One 16-byte store of `w` to a 16-byte-aligned `at`; `evict_first`: marked for the L2 to evict
/// first (st.global.cs, "streaming": written once, not read again soon).
template <class W>
__device__ __forceinline__ void store_vector(W* at, const W& w, bool evict_first) {
  static_assert(sizeof(W) == 16);
  if (!evict_first) {
    *at = w;
    return;
  }
  int4 bits;
  memcpy(&bits, &w, sizeof(bits));
  __stcs(reinterpret_cast<int4*>(at), bits);
}

/// The thread's outputs of tile `tile`, from `seg` (scanned within the lanes' runs) and what
/// precedes its warp segment (`seg.run_base` joins them). `full`: 16-byte vector stores (`evict_first`: see store_vector);
/// otherwise element by element. `rescan_round(r)`, where the scanned runs were not kept, redoes
/// round r's run first.
template <class In, class Seg, class RescanRound>
__device__ __forceinline__ void store_tile(scan_result_t<In>* out, std::size_t n, bool inclusive, unsigned long long tile,
                                           bool full, Seg& seg, acc_t<scan_result_t<In>> segment_offset,
                                           RescanRound&& rescan_round, bool evict_first = false) {
  using Out = scan_result_t<In>;
  using A = acc_t<Out>;
  constexpr unsigned kItems = TileShape<In>::kItems, kRounds = TileShape<In>::kRounds;
  if (full) {
    using W = Vec<Out, kItems>;  // 16 bytes
#pragma unroll
    for (unsigned r = 0; r < kRounds; ++r) {
      rescan_round(r);
      const A run_base = seg.run_base(r, segment_offset);
      W w;
#pragma unroll
      for (unsigned k = 0; k < kItems; ++k) w.v[k] = static_cast<Out>(seg.output(r, k, run_base, inclusive));
      store_vector(reinterpret_cast<W*>(out + run_begin<In>(tile, r)), w, evict_first);
    }
  } else {
#pragma unroll
    for (unsigned r = 0; r < kRounds; ++r) {
      rescan_round(r);
      const A run_base = seg.run_base(r, segment_offset);
#pragma unroll
      for (unsigned k = 0; k < kItems; ++k) {
        const std::size_t i = run_begin<In>(tile, r) + k;
        if (i < n) out[i] = static_cast<Out>(seg.output(r, k, run_base, inclusive));
      }
    }
  }
}

}  // namespace gpulab::scan_detail
