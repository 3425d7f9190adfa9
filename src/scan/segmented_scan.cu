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
#include "lib/launch.cuh"
#include "lib/memory_layout.hpp"
#include "scan/scan_lookback.cuh"

#include <gpulab/error.hpp>
#include <gpulab/scan.hpp>

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
/// carry, each addition the segmented operator's.
template <class A, unsigned kRounds, unsigned kItems>
struct SegmentedWarpSegment {
  A item[kRounds][kItems];   // loaded values; after scan(): the segmented prefix within the lane's run
  unsigned heads[kRounds];   // bit k: element k of the lane's run of round r starts a segment
  Pair<A> lane_base[kRounds];  // after scan(): what precedes the lane's run within the warp's segment
  Pair<A> total;               // after scan(): the warp segment's pair, in every lane

  /// Whether a head lies at or before element k of round r's run.
  __device__ __forceinline__ bool head_up_to(unsigned r, unsigned k) const { return (heads[r] & ((2u << k) - 1u)) != 0; }

  __device__ __forceinline__ void scan_run(unsigned r) {
#pragma unroll
    for (unsigned k = 1; k < kItems; ++k)
      if (!((heads[r] >> k) & 1u)) item[r][k] = item[r][k - 1] + item[r][k];
  }

  template <class LoadRound>
  __device__ __forceinline__ void scan(LoadRound&& load_round) {
    const unsigned lane = threadIdx.x % kWarp;
    Pair<A> carry{false, A(0)};
#pragma unroll
    for (unsigned r = 0; r < kRounds; ++r) {
      load_round(r);
      scan_run(r);
      // The runs' pairs scanned across the warp (Kogge–Stone, as warp_inclusive_scan).
      Pair<A> inclusive{heads[r] != 0, item[r][kItems - 1]};
#pragma unroll
      for (unsigned offset = 1; offset < kWarp; offset *= 2) {
        const A below_sum = __shfl_up_sync(kFullMask, inclusive.sum, offset);
        const bool below_head = __shfl_up_sync(kFullMask, static_cast<int>(inclusive.head), offset) != 0;
        if (lane >= offset) inclusive = combine(Pair<A>{below_head, below_sum}, inclusive);
      }
      const Pair<A> below{__shfl_up_sync(kFullMask, static_cast<int>(inclusive.head), 1) != 0,
                          __shfl_up_sync(kFullMask, inclusive.sum, 1)};
      const Pair<A> round_total{__shfl_sync(kFullMask, static_cast<int>(inclusive.head), kWarp - 1) != 0,
                                __shfl_sync(kFullMask, inclusive.sum, kWarp - 1)};
      if (r == 0) {
        lane_base[r] = lane == 0 ? Pair<A>{false, A(0)} : below;
        carry = round_total;
      } else {
        lane_base[r] = lane == 0 ? carry : combine(carry, below);
        carry = combine(carry, round_total);
      }
    }
    total = carry;
  }

  /// What precedes the lane's run of round r, resolved: `segment_offset` (what precedes the warp's
  /// segment) unless a head lies between the segment's start and the run.
  __device__ __forceinline__ A run_base(unsigned r, A segment_offset) const {
    return lane_base[r].head ? lane_base[r].sum : segment_offset + lane_base[r].sum;
  }

  /// Output k of round r, given the resolved value before the lane's run (run_base).
  __device__ __forceinline__ A output(unsigned r, unsigned k, A run_base, bool inclusive) const {
    if (inclusive) return head_up_to(r, k) ? item[r][k] : run_base + item[r][k];
    if ((heads[r] >> k) & 1u) return A(0);
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

/// The thread's head bits of tile `tile`, beside its elements (load_tile, scan_lookback.cuh).
template <class In>
__device__ __forceinline__ void load_heads(const std::uint8_t* heads, std::size_t n, unsigned long long tile, bool full,
                                           SegmentedSegment<In>& seg) {
  constexpr unsigned kItems = TileShape<In>::kItems, kRounds = TileShape<In>::kRounds;
#pragma unroll
  for (unsigned r = 0; r < kRounds; ++r) {
    if (full) {
      seg.heads[r] = head_bits<kItems>(heads + run_begin<In>(tile, r));
      continue;
    }
    seg.heads[r] = 0;
#pragma unroll
    for (unsigned k = 0; k < kItems; ++k) {
      const std::size_t i = run_begin<In>(tile, r) + k;
      if (i < n && heads[i] != 0) seg.heads[r] |= 1u << k;
    }
  }
}

/// A block a tile, drawn by ticket as in scan.cu's scan_kernel; two barriers around the look-back.
template <class In, bool kVectors>
__global__ void __launch_bounds__(kBlock)
segmented_scan_kernel(const In* in, const std::uint8_t* heads, scan_result_t<In>* out, std::size_t n, bool inclusive,
                      TileStatus status) {
  using Out = scan_result_t<In>;
  using A = acc_t<Out>;
  using S = TileShape<In>;
  __shared__ unsigned long long drawn[2];
  __shared__ A warp_sums[kWarps];
  __shared__ bool warp_heads[kWarps];
  __shared__ A tile_prefix;
  __shared__ A kept[kMaxWindows * kWarp];
  auto is_full = [n](unsigned long long tile) { return kVectors && (tile + 1) * S::kTile <= n; };

  const unsigned long long guess = blockIdx.x;
  SegmentedSegment<In> seg;
  if (is_full(guess)) {
    load_tile<In>(in, n, guess, true, seg);
    load_heads<In>(heads, n, guess, true, seg);
  }
  if (threadIdx.x == 0) draw_tile(status, drawn);
  __syncthreads();
  const unsigned long long tile = drawn[0], first_ticket = drawn[1];
  const bool full = is_full(tile);
  if (tile != guess || !full) {
    load_tile<In>(in, n, tile, full, seg);
    load_heads<In>(heads, n, tile, full, seg);
  }
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
      const bool starts_with_head = (__shfl_sync(kFullMask, seg.heads[0], 0) & 1u) != 0;  // the tile's element 0
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

template <class In>
void segmented_scan(const char* name, const In* in, const std::uint8_t* heads, scan_result_t<In>* out, std::size_t n,
                    bool inclusive, void* temp, std::size_t temp_bytes, cudaStream_t stream) {
  if (n == 0) return;
  if (in == nullptr || heads == nullptr || out == nullptr || temp == nullptr)
    throw Error(std::string(name) + ": null device pointer");
  const std::size_t tiles = checked_tiles<In>(name, n, temp_bytes);
  if (overlap(rows_span(heads, 1, n, n), rows_span(out, 1, n * sizeof(scan_result_t<In>), 0)))
    throw Error(std::string(name) + ": the head flags overlap the output");
  const auto address = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p); };
  constexpr unsigned kItems = TileShape<In>::kItems;
  constexpr std::size_t kInVector = sizeof(In) * kItems;
  const bool aligned = address(in) % kInVector == 0 && address(out) % 16 == 0 && address(heads) % kItems == 0;
  const auto kernel = aligned ? segmented_scan_kernel<In, true> : segmented_scan_kernel<In, false>;
  launch(name, kernel, {static_cast<unsigned>(tiles), kBlock}, stream, in, heads, out, n, inclusive, TileStatus::in(temp))
      .work([&] {
        return count_of(TileShape<In>::kTile, "element") + " per tile, head flags beside" +
               (aligned ? ", vector loads and stores" : ", unaligned: element by element");
      });
}

}  // namespace

template <class In>
void inclusive_segmented_scan(const In* in, const std::uint8_t* heads, scan_result_t<In>* out, std::size_t n, void* temp,
                              std::size_t temp_bytes, cudaStream_t stream) {
  segmented_scan("inclusive_segmented_scan", in, heads, out, n, true, temp, temp_bytes, stream);
}

template <class In>
void exclusive_segmented_scan(const In* in, const std::uint8_t* heads, scan_result_t<In>* out, std::size_t n, void* temp,
                              std::size_t temp_bytes, cudaStream_t stream) {
  segmented_scan("exclusive_segmented_scan", in, heads, out, n, false, temp, temp_bytes, stream);
}

#define GPULAB_INSTANTIATE_SEGMENTED_SCAN(In)                                                                 \
  template void inclusive_segmented_scan<In>(const In*, const std::uint8_t*, scan_result_t<In>*, std::size_t, \
                                             void*, std::size_t, cudaStream_t);                               \
  template void exclusive_segmented_scan<In>(const In*, const std::uint8_t*, scan_result_t<In>*, std::size_t, \
                                             void*, std::size_t, cudaStream_t);
GPULAB_INSTANTIATE_SEGMENTED_SCAN(std::int8_t)
GPULAB_INSTANTIATE_SEGMENTED_SCAN(std::int16_t)
GPULAB_INSTANTIATE_SEGMENTED_SCAN(std::int32_t)
GPULAB_INSTANTIATE_SEGMENTED_SCAN(float)
GPULAB_INSTANTIATE_SEGMENTED_SCAN(double)
#undef GPULAB_INSTANTIATE_SEGMENTED_SCAN

}  // namespace gpulab
