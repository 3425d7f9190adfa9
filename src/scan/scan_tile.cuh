// Device building blocks of the scan rungs that work on tiles (rung 4 and the library): the
// arithmetic type, and the scan of one warp's segment of a tile.
#pragma once

#include "lib/arith.hpp"
#include "lib/warp.cuh"

#include <cstdint>
#include <type_traits>

namespace gpulab::scan_detail {

/// Arithmetic of a scan whose output is Out (lib/arith.hpp: int32 in uint32, wrapping).
template <class Out>
using acc_t = accum_t<Out>;

/// An input element as the arithmetic sees it: int8 and int16 sign-extended to int32 first.
template <class Out, class In>
__device__ __forceinline__ acc_t<Out> to_acc(In x) {
  return static_cast<acc_t<Out>>(static_cast<Out>(x));
}

/// One warp's segment of a tile: kRounds rounds, in each of which the 32 lanes hold kItems
/// consecutive elements apiece (lane l the l-th run of the round), rounds one after the other.
/// Loads of one round by the warp are contiguous (coalesced), and with kItems·sizeof(In) = 16
/// each lane's run is one 16-byte vector.
template <class A, unsigned kRounds, unsigned kItems>
struct WarpSegment {
  A item[kRounds][kItems];  // loaded values; after scan(): the inclusive prefix within the lane's run
  A lane_base[kRounds];     // after scan(): the sum of the segment before the lane's run
  A total;                  // after scan(): the segment's sum, in every lane

  /// The serial run of round r: item[r][k] becomes the prefix of the lane's run up to k.
  __device__ __forceinline__ void scan_run(unsigned r) {
#pragma unroll
    for (unsigned k = 1; k < kItems; ++k) item[r][k] = item[r][k - 1] + item[r][k];
  }

  /// The fixed association (deterministic): a serial run per lane, a Kogge–Stone warp scan of the
  /// run totals per round, a serial carry across rounds. `load_round(r)` fills item[r] first where
  /// the values are not loaded yet (one round at a time keeps fewer registers live).
  template <class LoadRound>
  __device__ __forceinline__ void scan(LoadRound&& load_round) {
    const unsigned lane = threadIdx.x % kWarp;
    A carry = 0;
#pragma unroll
    for (unsigned r = 0; r < kRounds; ++r) {
      load_round(r);
      scan_run(r);
      const A inclusive = warp_inclusive_scan(item[r][kItems - 1]);
      const A below = __shfl_up_sync(kFullMask, inclusive, 1);
      const A round_total = __shfl_sync(kFullMask, inclusive, kWarp - 1);
      if (r == 0) {
        lane_base[r] = lane == 0 ? A(0) : below;
        carry = round_total;
      } else {
        lane_base[r] = lane == 0 ? carry : carry + below;
        carry = carry + round_total;
      }
    }
    total = carry;
  }
  __device__ __forceinline__ void scan() {
    scan([](unsigned) {});
  }

  /// What precedes the lane's run of round r, given what precedes the warp's segment.
  __device__ __forceinline__ A run_base(unsigned r, A segment_offset) const { return segment_offset + lane_base[r]; }

  /// Output k of round r, given what precedes the lane's run (the segment's offset plus lane_base).
  __device__ __forceinline__ A output(unsigned r, unsigned k, A run_base, bool inclusive) const {
    if (inclusive) return run_base + item[r][k];
    return k == 0 ? run_base : run_base + item[r][k - 1];
  }

  /// The longest chain behind any lane_base or total: the run, the warp scan, the carry, one add.
  static constexpr std::size_t depth() { return kItems + 5 + kRounds + 1; }
};

}  // namespace gpulab::scan_detail
