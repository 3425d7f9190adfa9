// Segmented scans (include/gpulab/scan.hpp): the library scan's one pass with decoupled look-back
// (scan.cu), each addition replaced by the segmented operator on (head, sum) pairs,
//   (h1, s1) ⊕ (h2, s2) = (h1 or h2, h2 ? s2 : s1 + s2),
// which is associative. So the plain scan's fixed association carries over unchanged: the same
// tiles, lane runs, warp scans, warp totals in order and chain of tiles. Where no element but the
// first is a head, every addition is the plain scan's, and so are the bits.
//
// A tile holding a head publishes its aggregate as its inclusive prefix at once: nothing before
// the head reaches past it. The look-back then stops at such a tile, and the status words and the
// look-back are scan.cu's, with no flag in them. The tile still looks back for its own elements
// before its first head (none when its first element is one).
//
// The heads come from one-byte flags (FlagHeads) or from where a key differs from the one before
// (KeyHeads); offsets become flags in a launch of their own (segment_heads_from_offsets).
#include "lib/launch.cuh"
#include "lib/memory_layout.hpp"
#include "scan/scan_lookback.cuh"
#include "scan/scan_paths.hpp"

#include <gpulab/error.hpp>
#include <gpulab/scan.hpp>

#include <algorithm>
#include <string>

namespace gpulab {
namespace {

using namespace scan_detail;

/// A (head, sum) pair: `head` says a segment starts within the elements the sum covers.
template <class A>
struct Pair {
  bool head;
  A sum;
};

template <class A>
__device__ __forceinline__ Pair<A> combine(Pair<A> before, Pair<A> after) {
  return {before.head || after.head, after.head ? after.sum : before.sum + after.sum};
}

/// WarpSegment (scan_tile.cuh) with a head bit per element: the same rounds, runs, warp scan and
/// carry, each addition the segmented operator's. The head flags travel as bits: the lane's as one
/// word, the warp's as a ballot a round. Registers decide the speed here (a block a tile, so the
/// blocks an SM are the loads in flight): see kLibraryMinBlocks.
template <class A, unsigned kRounds, unsigned kItems>
struct SegmentedWarpSegment {
  static_assert(kRounds * kItems <= 64, "a lane's head flags fit one 64-bit word");
  A item[kRounds][kItems];     // loaded values; after scan(): the segmented prefix within the lane's run
  unsigned long long heads;    // bit r·kItems + k: element k of the lane's run of round r starts a segment
  A lane_base[kRounds];        // after scan(): what precedes the lane's run within the warp's segment,
  unsigned base_heads;         //   summed from the nearest head before the run where bit r is set
  Pair<A> total;               // after scan(): the warp segment's pair, in every lane

  __device__ __forceinline__ unsigned run_heads(unsigned r) const {
    return static_cast<unsigned>(heads >> (r * kItems)) & ((1u << kItems) - 1u);
  }
  /// Whether a head lies at or before element k of round r's run.
  __device__ __forceinline__ bool head_up_to(unsigned r, unsigned k) const { return (run_heads(r) & ((2u << k) - 1u)) != 0; }

  __device__ __forceinline__ void scan_run(unsigned r) {
#pragma unroll
    for (unsigned k = 1; k < kItems; ++k)
      if (!((run_heads(r) >> k) & 1u)) item[r][k] = item[r][k - 1] + item[r][k];
  }

  template <class LoadRound>
  __device__ __forceinline__ void scan(LoadRound&& load_round) {
    const unsigned lane = threadIdx.x % kWarp;
    Pair<A> carry{false, A(0)};
    base_heads = 0;
#pragma unroll
    for (unsigned r = 0; r < kRounds; ++r) {
      load_round(r);
      scan_run(r);
      // The runs' pairs scanned across the warp (Kogge–Stone, as warp_inclusive_scan), the heads
      // from one ballot: lane l adds lane l − offset's sum while no head lies in between, i.e.
      // while l − offset is at or past the nearest lane with a head at or below l. The same
      // additions in the same order as combining (head, sum) pairs, with half the shuffles.
      const unsigned with_heads = __ballot_sync(kFullMask, run_heads(r) != 0);
      const unsigned up_to_lane = with_heads & (~0u >> (kWarp - 1 - lane));
      const unsigned nearest = up_to_lane != 0 ? kWarp - 1 - __clz(up_to_lane) : 0;
      A inclusive = item[r][kItems - 1];
#pragma unroll
      for (unsigned offset = 1; offset < kWarp; offset *= 2) {
        const A below = __shfl_up_sync(kFullMask, inclusive, offset);
        if (lane >= offset && lane - offset >= nearest) inclusive = below + inclusive;
      }
      const Pair<A> below{(with_heads & ((1u << lane) - 1u)) != 0, __shfl_up_sync(kFullMask, inclusive, 1)};
      const Pair<A> round_total{with_heads != 0, __shfl_sync(kFullMask, inclusive, kWarp - 1)};
      Pair<A> base;
      if (r == 0) {
        base = lane == 0 ? Pair<A>{false, A(0)} : below;
        carry = round_total;
      } else {
        base = lane == 0 ? carry : combine(carry, below);
        carry = combine(carry, round_total);
      }
      lane_base[r] = base.sum;
      base_heads |= static_cast<unsigned>(base.head) << r;
    }
    total = carry;
  }

  /// What precedes the lane's run of round r, resolved: `segment_offset` (what precedes the warp's
  /// segment) unless a head lies between the segment's start and the run.
  __device__ __forceinline__ A run_base(unsigned r, A segment_offset) const {
    return (base_heads >> r) & 1u ? lane_base[r] : segment_offset + lane_base[r];
  }

  /// Output k of round r, given the resolved value before the lane's run (run_base).
  __device__ __forceinline__ A output(unsigned r, unsigned k, A run_base, bool inclusive) const {
    if (inclusive) return head_up_to(r, k) ? item[r][k] : run_base + item[r][k];
    if ((run_heads(r) >> k) & 1u) return A(0);
    if (k == 0) return run_base;
    return head_up_to(r, k - 1) ? item[r][k - 1] : run_base + item[r][k - 1];
  }
};

template <class In>
using SegmentedSegment = SegmentedWarpSegment<acc_t<scan_result_t<In>>, TileShape<In>::kRounds, TileShape<In>::kItems>;

/// kCount head flags as bits (nonzero byte → 1), from one aligned load of kCount bytes.
template <unsigned kCount>
__device__ __forceinline__ unsigned head_bits(const std::uint8_t* at) {
  static_assert(kCount == 2 || kCount == 4);
  unsigned bytes;
  if constexpr (kCount == 4) bytes = *reinterpret_cast<const unsigned*>(at);
  else bytes = *reinterpret_cast<const unsigned short*>(at);
  unsigned bits = 0;
#pragma unroll
  for (unsigned k = 0; k < kCount; ++k) bits |= ((bytes >> (8 * k)) & 0xffu) != 0 ? 1u << k : 0u;
  return bits;
}

/// Segments as head flags: one starts at every i with flags[i] ≠ 0.
struct FlagHeads {
  const std::uint8_t* flags;
  struct Carry {};  // nothing passes from one round to the next

  bool aligned(unsigned items) const { return reinterpret_cast<std::uintptr_t>(flags) % items == 0; }
  template <class In>
  __device__ __forceinline__ void prefetch(std::size_t n, unsigned long long tile) const {
    prefetch_to_l2(flags, n, tile * TileShape<In>::kTile, TileShape<In>::kTile);
  }
  /// The head bits of the lane's run of round r in tile `tile` (full: a whole tile, vector loads).
  template <class In>
  __device__ __forceinline__ unsigned run_bits(std::size_t n, unsigned long long tile, unsigned r, bool full, Carry&) const {
    constexpr unsigned kItems = TileShape<In>::kItems;
    const std::size_t begin = run_begin<In>(tile, r);
    if (full) return head_bits<kItems>(flags + begin);
    unsigned bits = 0;
#pragma unroll
    for (unsigned k = 0; k < kItems; ++k)
      if (begin + k < n && flags[begin + k] != 0) bits |= 1u << k;
    return bits;
  }
};

/// Segments as keys: one starts at element 0 and at every i with keys[i] ≠ keys[i − 1] (runs of
/// equal keys, as CUB's scan by key and cuDF's group-by scans take them).
template <class Key>
struct KeyHeads {
  const Key* keys;
  struct Carry {
    Key last;  // the round before's last key of the lane's run: lane 31's precedes the next round
  };

  bool aligned(unsigned items) const { return reinterpret_cast<std::uintptr_t>(keys) % (items * sizeof(Key)) == 0; }
  template <class In>
  __device__ __forceinline__ void prefetch(std::size_t n, unsigned long long tile) const {
    prefetch_to_l2(keys, n, tile * TileShape<In>::kTile, TileShape<In>::kTile);
  }
  template <class In>
  __device__ __forceinline__ unsigned run_bits(std::size_t n, unsigned long long tile, unsigned r, bool full, Carry& carry) const {
    constexpr unsigned kItems = TileShape<In>::kItems;
    const std::size_t begin = run_begin<In>(tile, r);
    Key k_run[kItems];
    if (full) {
      const auto v = *reinterpret_cast<const Vec<Key, kItems>*>(keys + begin);
#pragma unroll
      for (unsigned k = 0; k < kItems; ++k) k_run[k] = v.v[k];
    } else {
#pragma unroll
      for (unsigned k = 0; k < kItems; ++k) k_run[k] = begin + k < n ? keys[begin + k] : Key(0);
    }
    // The key before the run: the lane below's last, for lane 0 the last of the round before (lane
    // 31's), and in round 0 one load (the tile's or warp's first element looks back across).
    Key before = __shfl_up_sync(kFullMask, k_run[kItems - 1], 1);
    const Key round_before = __shfl_sync(kFullMask, carry.last, kWarp - 1);
    if (threadIdx.x % kWarp == 0) {
      if (r > 0) before = round_before;
      else if (begin > 0 && begin < n) before = keys[begin - 1];
    }
    carry.last = k_run[kItems - 1];
    unsigned bits = begin == 0 || (begin < n && k_run[0] != before) ? 1u : 0u;
#pragma unroll
    for (unsigned k = 1; k < kItems; ++k)
      if (begin + k < n && k_run[k] != k_run[k - 1]) bits |= 1u << k;
    return bits;
  }
};

/// The thread's head bits of tile `tile`, beside its elements (load_tile, scan_lookback.cuh).
template <class In, class Heads>
__device__ __forceinline__ void load_heads(const Heads& source, std::size_t n, unsigned long long tile, bool full,
                                           SegmentedSegment<In>& seg) {
  constexpr unsigned kItems = TileShape<In>::kItems, kRounds = TileShape<In>::kRounds;
  typename Heads::Carry carry{};
  seg.heads = 0;
#pragma unroll
  for (unsigned r = 0; r < kRounds; ++r)
    seg.heads |= static_cast<unsigned long long>(source.template run_bits<In>(n, tile, r, full, carry)) << (r * kItems);
}

/// A block a tile, drawn by ticket and started by kStart as in scan.cu's scan_kernel (start_tile);
/// two barriers around the look-back.
/// kMinBlocks: the blocks an SM the registers must allow (__launch_bounds__), 1 to leave them to the
/// compiler.
template <class In, class Heads, bool kVectors, unsigned kMinBlocks, TileStart kStart>
__global__ void __launch_bounds__(kBlock, kMinBlocks)
segmented_scan_kernel(const In* in, Heads heads, scan_result_t<In>* out, std::size_t n, bool inclusive, TileStatus status) {
  using Out = scan_result_t<In>;
  using A = acc_t<Out>;
  using S = TileShape<In>;
  __shared__ unsigned long long drawn[2];
  __shared__ A warp_sums[kWarps];
  __shared__ bool warp_heads[kWarps];
  __shared__ A tile_prefix;
  __shared__ A kept[kMaxWindows * kWarp];
  auto is_full = [n](unsigned long long tile) { return kVectors && (tile + 1) * S::kTile <= n; };

  SegmentedSegment<In> seg;
  start_tile<kStart>(
      status, drawn, is_full,
      [&](unsigned long long tile) {
        load_tile<In>(in, n, tile, is_full(tile), seg);
        load_heads<In>(heads, n, tile, is_full(tile), seg);
      },
      [&](unsigned long long tile) {
        prefetch_to_l2(in, n, tile * S::kTile, S::kTile);
        heads.template prefetch<In>(n, tile);
      });
  const unsigned long long tile = drawn[0], first_ticket = drawn[1];
  const bool full = is_full(tile);
  seg.scan([](unsigned) {});

  const unsigned lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  if (lane == 0) warp_sums[warp] = seg.total.sum, warp_heads[warp] = seg.total.head;
  __syncthreads();
  // The tile's aggregate and this warp's offset within the tile: the warp totals combined in order.
  Pair<A> aggregate{warp_heads[0], warp_sums[0]}, warp_offset{false, A(0)};
#pragma unroll
  for (unsigned w = 1; w < kWarps; ++w) {
    if (w == warp) warp_offset = aggregate;
    aggregate = combine(aggregate, Pair<A>{warp_heads[w], warp_sums[w]});
  }
  if (warp == 0) {
    const unsigned long long ticket = first_ticket + tile;
    A prefix = 0;
    if (tile == 0) {
      if (lane == 0) publish(status, tile, ticket, kInclusive, aggregate.sum);
    } else {
      // A tile with a head is its own inclusive prefix; one without adds to its predecessor's.
      if (lane == 0) publish(status, tile, ticket, aggregate.head ? kInclusive : kAggregate, aggregate.sum);
      const bool starts_with_head = (__shfl_sync(kFullMask, seg.run_heads(0), 0) & 1u) != 0;  // the tile's element 0
      if (!starts_with_head) prefix = look_back(status, first_ticket, tile, kept);
      if (lane == 0 && !aggregate.head) publish(status, tile, ticket, kInclusive, prefix + aggregate.sum);
    }
    if (lane == 0) tile_prefix = prefix;
  }
  __syncthreads();
  // What precedes the warp's segment, resolved: the tile's prefix, unless a head of the tile lies before.
  const A segment_offset = warp_offset.head ? warp_offset.sum : tile_prefix + warp_offset.sum;

  store_tile<In>(out, n, inclusive, tile, full, seg, segment_offset, [](unsigned) {});
}

/// The blocks an SM the library holds its kernel's registers to (≤ 128 a thread). Measured on the
/// H100 at 2^28 (docs/scan.md): where the compiler's choice leaves one block an SM (int32 at 134
/// registers, doubles at 174) two are 1.03-1.31× faster; three (80 registers) spill and lose to
/// two for float32 by 10%.
constexpr unsigned kLibraryMinBlocks = 2;

/// The checks, then one launch: `segments` and `segment_bytes` say where the flags or keys lie.
template <class In, unsigned kMinBlocks, TileStart kStart, class Heads>
void segmented_scan(const char* name, const In* in, Heads heads, const void* segments, std::size_t segment_bytes,
                    scan_result_t<In>* out, std::size_t n, bool inclusive, void* temp, std::size_t temp_bytes,
                    cudaStream_t stream) {
  if (n == 0) return;
  if (in == nullptr || segments == nullptr || out == nullptr || temp == nullptr)
    throw Error(std::string(name) + ": null device pointer");
  const std::size_t tiles = checked_tiles<In>(name, n, temp_bytes);
  if (overlap(rows_span(segments, 1, n * segment_bytes, n * segment_bytes), rows_span(out, 1, n * sizeof(scan_result_t<In>), 0)))
    throw Error(std::string(name) + ": the segments' " + (segment_bytes == 1 ? "head flags" : "keys") + " overlap the output");
  const auto address = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p); };
  constexpr unsigned kItems = TileShape<In>::kItems;
  const bool aligned = address(in) % (sizeof(In) * kItems) == 0 && address(out) % 16 == 0 && heads.aligned(kItems);
  const auto kernel = aligned ? segmented_scan_kernel<In, Heads, true, kMinBlocks, kStart>
                              : segmented_scan_kernel<In, Heads, false, kMinBlocks, kStart>;
  launch(name, kernel, {static_cast<unsigned>(tiles), kBlock}, stream, in, heads, out, n, inclusive, TileStatus::in(temp))
      .work([&] {
        return count_of(TileShape<In>::kTile, "element") + " per tile, " + (segment_bytes == 1 ? "head flags" : "keys") +
               " beside" + (aligned ? ", vector loads and stores" : ", unaligned: element by element");
      });
}

}  // namespace

namespace scan_detail {

template <class In>
void segmented_scan_by_path(SegmentedScanPath path, const In* in, const std::uint8_t* heads, scan_result_t<In>* out,
                            std::size_t n, bool inclusive, void* temp, std::size_t temp_bytes, cudaStream_t stream) {
  const char* name = inclusive ? "inclusive_segmented_scan" : "exclusive_segmented_scan";
  if (path == SegmentedScanPath::compiler_registers)
    segmented_scan<In, 1, TileStart::load_guess>(name, in, FlagHeads{heads}, heads, 1, out, n, inclusive, temp, temp_bytes, stream);
  else if (path == SegmentedScanPath::two_blocks)
    segmented_scan<In, kLibraryMinBlocks, TileStart::load_guess>(name, in, FlagHeads{heads}, heads, 1, out, n, inclusive, temp,
                                                                 temp_bytes, stream);
  else
    segmented_scan<In, kLibraryMinBlocks, TileStart::prefetch_guess>(name, in, FlagHeads{heads}, heads, 1, out, n, inclusive,
                                                                     temp, temp_bytes, stream);
}

}  // namespace scan_detail

template <class In>
void inclusive_segmented_scan(const In* in, const std::uint8_t* heads, scan_result_t<In>* out, std::size_t n, void* temp,
                              std::size_t temp_bytes, cudaStream_t stream) {
  scan_detail::segmented_scan_by_path(scan_detail::SegmentedScanPath::prefetched_guess, in, heads, out, n, true, temp, temp_bytes, stream);
}

template <class In>
void exclusive_segmented_scan(const In* in, const std::uint8_t* heads, scan_result_t<In>* out, std::size_t n, void* temp,
                              std::size_t temp_bytes, cudaStream_t stream) {
  scan_detail::segmented_scan_by_path(scan_detail::SegmentedScanPath::prefetched_guess, in, heads, out, n, false, temp, temp_bytes, stream);
}

template <class In, class Key>
void inclusive_segmented_scan_by_key(const In* in, const Key* keys, scan_result_t<In>* out, std::size_t n, void* temp,
                                     std::size_t temp_bytes, cudaStream_t stream) {
  using namespace scan_detail;
  segmented_scan<In, kLibraryMinBlocks, TileStart::prefetch_guess>("inclusive_segmented_scan_by_key", in, KeyHeads<Key>{keys}, keys,
                                                                   sizeof(Key), out, n, true, temp, temp_bytes, stream);
}

template <class In, class Key>
void exclusive_segmented_scan_by_key(const In* in, const Key* keys, scan_result_t<In>* out, std::size_t n, void* temp,
                                     std::size_t temp_bytes, cudaStream_t stream) {
  using namespace scan_detail;
  segmented_scan<In, kLibraryMinBlocks, TileStart::prefetch_guess>("exclusive_segmented_scan_by_key", in, KeyHeads<Key>{keys}, keys,
                                                                   sizeof(Key), out, n, false, temp, temp_bytes, stream);
}

namespace {

/// A thread an offset: raises its element's head flag. Writes of the same flag race benignly (each
/// stores 1).
template <class Offset>
__global__ void raise_heads_kernel(const Offset* offsets, std::size_t count, std::size_t n, std::uint8_t* heads) {
  for (std::size_t j = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; j < count; j += std::size_t{gridDim.x} * blockDim.x) {
    const Offset at = offsets[j];
    if (at >= 0 && static_cast<std::size_t>(at) < n) heads[at] = 1;
  }
}

}  // namespace

template <class Offset>
void segment_heads_from_offsets(const Offset* offsets, std::size_t count, std::size_t n, std::uint8_t* heads,
                                cudaStream_t stream) {
  if (n == 0) return;
  if (heads == nullptr || (count != 0 && offsets == nullptr)) throw Error("segment_heads_from_offsets: null device pointer");
  GPULAB_CUDA_CHECK(cudaMemsetAsync(heads, 0, n, stream));
  if (count == 0) return;
  constexpr unsigned kThreads = 256;
  launch("segment_heads_from_offsets", raise_heads_kernel<Offset>, {grid_stride_blocks(count, kThreads), kThreads}, stream, offsets, count, n, heads)
      .work([] { return std::string("an offset a thread"); });
}

template void segment_heads_from_offsets<std::int32_t>(const std::int32_t*, std::size_t, std::size_t, std::uint8_t*, cudaStream_t);
template void segment_heads_from_offsets<std::int64_t>(const std::int64_t*, std::size_t, std::size_t, std::uint8_t*, cudaStream_t);

#define GPULAB_INSTANTIATE_SEGMENTED_SCAN(In)                                                                         \
  template void inclusive_segmented_scan<In>(const In*, const std::uint8_t*, scan_result_t<In>*, std::size_t, void*,  \
                                             std::size_t, cudaStream_t);                                              \
  template void exclusive_segmented_scan<In>(const In*, const std::uint8_t*, scan_result_t<In>*, std::size_t, void*,  \
                                             std::size_t, cudaStream_t);                                              \
  template void scan_detail::segmented_scan_by_path<In>(scan_detail::SegmentedScanPath, const In*, const std::uint8_t*, \
                                                        scan_result_t<In>*, std::size_t, bool, void*, std::size_t,      \
                                                        cudaStream_t);                                                  \
  GPULAB_INSTANTIATE_SEGMENTED_SCAN_BY_KEY(In, std::int32_t)                                                            \
  GPULAB_INSTANTIATE_SEGMENTED_SCAN_BY_KEY(In, std::int64_t)
#define GPULAB_INSTANTIATE_SEGMENTED_SCAN_BY_KEY(In, Key)                                                                  \
  template void inclusive_segmented_scan_by_key<In, Key>(const In*, const Key*, scan_result_t<In>*, std::size_t, void*, \
                                                         std::size_t, cudaStream_t);                                   \
  template void exclusive_segmented_scan_by_key<In, Key>(const In*, const Key*, scan_result_t<In>*, std::size_t, void*, \
                                                         std::size_t, cudaStream_t);
GPULAB_INSTANTIATE_SEGMENTED_SCAN(std::int8_t)
GPULAB_INSTANTIATE_SEGMENTED_SCAN(std::int16_t)
GPULAB_INSTANTIATE_SEGMENTED_SCAN(std::int32_t)
GPULAB_INSTANTIATE_SEGMENTED_SCAN(float)
GPULAB_INSTANTIATE_SEGMENTED_SCAN(double)
#undef GPULAB_INSTANTIATE_SEGMENTED_SCAN
#undef GPULAB_INSTANTIATE_SEGMENTED_SCAN_BY_KEY

}  // namespace gpulab
