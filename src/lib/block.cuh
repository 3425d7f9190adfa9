// Block-level building blocks shared by the ladders and the library: reductions and scans over a
// block built from the warp-level ones (lib/warp.cuh).
#pragma once

#include "lib/warp.cuh"

namespace gpulab {

/// op over the block, valid in thread 0: each warp's by warp_op (valid in its lane 0 at least),
/// then warp 0's over those; `none` is op's identity (for lanes past the warps). Any block size that
/// is a multiple of 32. Ends with the shared scratch free for reuse only after the caller's next
/// __syncthreads().
template <class A, class WarpOp>
__device__ __forceinline__ A block_reduce(A v, WarpOp warp_op, A none) {
  __shared__ A warp_totals[kWarp];
  const unsigned lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  v = warp_op(v);
  if (lane == 0) warp_totals[warp] = v;
  __syncthreads();
  if (warp == 0) v = warp_op(lane < blockDim.x / kWarp ? warp_totals[lane] : none);
  return v;
}

/// Sum over the block, valid in thread 0: warp sums, then warp 0 sums the per-warp results.
/// log2(blockDim.x) levels for a power-of-two block.
template <class A>
__device__ __forceinline__ A block_sum(A v) {
  return block_reduce(v, [](A x) { return warp_sum(x); }, A(0));
}

/// Largest unsigned over the block, valid in thread 0 (block_reduce).
__device__ __forceinline__ unsigned block_max_unsigned(unsigned v) {
  return block_reduce(v, [](unsigned x) { return warp_max_unsigned(x); }, 0u);
}

/// Inclusive prefix sum over the threads of a block, one value each (any multiple of 32 threads):
/// warp scans, then warp 0 scans the warp totals. Also gives the thread's exclusive prefix and the
/// block's total. The shared scratch is free again when it returns.
template <class A>
__device__ __forceinline__ A block_inclusive_scan(A v, A& exclusive, A& total) {
  __shared__ A warp_prefix[kWarp];
  const unsigned lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp, warps = blockDim.x / kWarp;
  const A in_warp = warp_inclusive_scan(v);
  const A below = __shfl_up_sync(kFullMask, in_warp, 1);  // the lane before's inclusive prefix
  if (lane == kWarp - 1) warp_prefix[warp] = in_warp;
  __syncthreads();
  if (warp == 0) {
    const A t = lane < warps ? warp_prefix[lane] : A(0);
    warp_prefix[lane] = warp_inclusive_scan(t);
  }
  __syncthreads();
  total = warp_prefix[warps - 1];
  A inclusive = in_warp;
  exclusive = lane == 0 ? A(0) : below;
  if (warp > 0) {
    const A before = warp_prefix[warp - 1];
    inclusive = before + in_warp;
    exclusive = lane == 0 ? before : before + below;
  }
  __syncthreads();
  return inclusive;
}

}  // namespace gpulab
