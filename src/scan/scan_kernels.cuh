// The scan ladder's kernels, rungs 1–4, read top to bottom; rung 5 is the library (scan.cu).
// Every kernel takes In (int8, int16, int32, float, double), writes Out = scan_result_t<In> and
// adds in acc_t<Out> (uint32 for integers: wrapping). `inclusive` picks what is written.
#pragma once

#include "lib/block.cuh"
#include "scan/scan_tile.cuh"

#include <gpulab/scan.hpp>

#include <cstddef>

namespace gpulab::scan_ladder {

using scan_detail::acc_t;
using scan_detail::to_acc;

// ---- rungs 1 and 2: the manual's kernel (seed 001 §3.5) ------------------------------------------
//
// A block of B threads scans 2B elements in shared memory: the up-sweep builds a tree of sums, the
// root is cleared, and the down-sweep turns the tree into the exclusive prefix of every element
// (Blelloch). The manual loads the two halves of the tile but writes even/odd pairs; here both
// halves are loaded and stored the same way (coalesced). Its block total goes to `block_sums`,
// which the host scans and adds back (the three-phase composition). No __restrict__ on in and out:
// the host scans the block sums in place, and every block reads its tile before writing it.
//
// Rung 1 (kPadded = false) is the manual's indexing: at the deepest levels the active threads
// touch addresses 2^d apart, all in the same bank: up to 16-way (32-way on today's 32 banks)
// conflicts. Rung 2 pads the array with one word every 32 (index + index / 32), so that
// addresses 2^d apart land in different banks: the manual's exercise.

template <bool kPadded>
__device__ __forceinline__ unsigned blelloch_index(unsigned i) {
  return kPadded ? i + i / kWarp : i;
}

template <class In, bool kPadded>
__global__ void scan_blelloch(const In* in, scan_result_t<In>* out, std::size_t n,
                              scan_result_t<In>* __restrict__ block_sums, bool inclusive) {
  using Out = scan_result_t<In>;
  using A = acc_t<Out>;
  extern __shared__ unsigned char shared_bytes[];
  A* temp = reinterpret_cast<A*>(shared_bytes);
  const unsigned tid = threadIdx.x, half = blockDim.x, m = 2 * half;
  const std::size_t base = blockIdx.x * std::size_t{m};
  const auto idx = [](unsigned i) { return blelloch_index<kPadded>(i); };

  const A x0 = base + tid < n ? to_acc<Out>(in[base + tid]) : A(0);
  const A x1 = base + tid + half < n ? to_acc<Out>(in[base + tid + half]) : A(0);
  temp[idx(tid)] = x0;
  temp[idx(tid + half)] = x1;

  unsigned offset = 1;
  for (unsigned d = m >> 1; d > 0; d >>= 1) {  // up-sweep: the tree of sums
    __syncthreads();
    if (tid < d) {
      const unsigned ai = offset * (2 * tid + 1) - 1, bi = offset * (2 * tid + 2) - 1;
      temp[idx(bi)] += temp[idx(ai)];
    }
    offset <<= 1;
  }
  if (tid == 0) {
    if (block_sums != nullptr) block_sums[blockIdx.x] = static_cast<Out>(temp[idx(m - 1)]);
    temp[idx(m - 1)] = 0;
  }
  for (unsigned d = 1; d < m; d <<= 1) {  // down-sweep: the prefixes from the tree
    offset >>= 1;
    __syncthreads();
    if (tid < d) {
      const unsigned ai = offset * (2 * tid + 1) - 1, bi = offset * (2 * tid + 2) - 1;
      const A t = temp[idx(ai)];
      temp[idx(ai)] = temp[idx(bi)];
      temp[idx(bi)] += t;
    }
  }
  __syncthreads();

  if (base + tid < n) out[base + tid] = static_cast<Out>(inclusive ? temp[idx(tid)] + x0 : temp[idx(tid)]);
  if (base + tid + half < n)
    out[base + tid + half] = static_cast<Out>(inclusive ? temp[idx(tid + half)] + x1 : temp[idx(tid + half)]);
}

// ---- rung 3: warp shuffles instead of the shared tree --------------------------------------------
//
// The same tile of 2B elements and the same three phases, but each half is scanned with
// warp-shuffle scans (five levels in registers) and one scan of the warp totals: two barriers a
// half instead of 2·log2(2B), and no shared-memory tree, so no bank conflicts to remove.

template <class In>
__global__ void scan_warp_shuffle(const In* in, scan_result_t<In>* out, std::size_t n,
                                  scan_result_t<In>* __restrict__ block_sums, bool inclusive) {
  using Out = scan_result_t<In>;
  using A = acc_t<Out>;
  const unsigned tid = threadIdx.x, half = blockDim.x;
  const std::size_t base = blockIdx.x * std::size_t{2 * half};
  const A x0 = base + tid < n ? to_acc<Out>(in[base + tid]) : A(0);
  const A x1 = base + tid + half < n ? to_acc<Out>(in[base + tid + half]) : A(0);

  A exclusive0, total0, exclusive1, total1;
  const A inclusive0 = block_inclusive_scan(x0, exclusive0, total0);
  const A inclusive1 = block_inclusive_scan(x1, exclusive1, total1);
  if (tid == 0 && block_sums != nullptr) block_sums[blockIdx.x] = static_cast<Out>(total0 + total1);
  if (base + tid < n) out[base + tid] = static_cast<Out>(inclusive ? inclusive0 : exclusive0);
  if (base + tid + half < n)
    out[base + tid + half] = static_cast<Out>(total0 + (inclusive ? inclusive1 : exclusive1));
}

/// Phase 3 of rungs 1–3: every element of block b gets the scanned sum of the blocks before it.
template <class Out>
__global__ void add_block_offsets(Out* __restrict__ out, std::size_t n, const Out* __restrict__ offsets,
                                  std::size_t per_block) {
  using A = acc_t<Out>;
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i < n) out[i] = static_cast<Out>(static_cast<A>(offsets[i / per_block]) + static_cast<A>(out[i]));
}

// ---- rung 4: reduce, then scan --------------------------------------------------------------------
//
// Tiles of many elements (kRounds4 per thread, each warp a contiguous segment): pass 1 sums every
// tile, pass 2 scans the tile sums in one block, pass 3 scans every tile again from its offset.
// Blocks of pass 3 need nothing from each other, and the tile sums are the only intermediate, so
// the output is written once (rungs 1–3 write it twice); but the input is read twice.

constexpr unsigned kRounds4 = 16;  // elements per thread in rung 4

template <class In>
__global__ void reduce_tiles(const In* __restrict__ in, std::size_t n, scan_result_t<In>* __restrict__ tile_sums) {
  using Out = scan_result_t<In>;
  using A = acc_t<Out>;
  const unsigned lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp, warps = blockDim.x / kWarp;
  const std::size_t segment = std::size_t{kRounds4} * kWarp;
  const std::size_t begin = (blockIdx.x * std::size_t{warps} + warp) * segment + lane;
  A v = 0;
#pragma unroll
  for (unsigned r = 0; r < kRounds4; ++r) {
    const std::size_t i = begin + r * kWarp;
    if (i < n) v += to_acc<Out>(in[i]);
  }
  v = block_sum(v);
  if (threadIdx.x == 0) tile_sums[blockIdx.x] = static_cast<Out>(v);
}

/// Pass 2, one block: the exclusive scan of `count` tile sums, in place. Each thread adds a
/// contiguous run of ceil(count / blockDim) sums, the block scans the run totals, and each thread
/// writes its run's prefixes.
template <class Out>
__global__ void scan_tile_sums(Out* __restrict__ sums, std::size_t count) {
  using A = acc_t<Out>;
  const std::size_t per_thread = (count + blockDim.x - 1) / blockDim.x;
  const std::size_t begin = threadIdx.x * per_thread;
  const std::size_t end = begin + per_thread < count ? begin + per_thread : count;
  A run = 0;
  for (std::size_t i = begin; i < end; ++i) run += static_cast<A>(sums[i]);
  A before, total;
  block_inclusive_scan(run, before, total);
  for (std::size_t i = begin; i < end; ++i) {
    const A s = static_cast<A>(sums[i]);
    sums[i] = static_cast<Out>(before);
    before += s;
  }
}

template <class In>
__global__ void scan_tiles_from_offsets(const In* __restrict__ in, scan_result_t<In>* __restrict__ out, std::size_t n,
                                        const scan_result_t<In>* __restrict__ tile_offsets, bool inclusive) {
  using Out = scan_result_t<In>;
  using A = acc_t<Out>;
  __shared__ A warp_totals[kWarp];
  const unsigned lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp, warps = blockDim.x / kWarp;
  const std::size_t begin = (blockIdx.x * std::size_t{warps} + warp) * (std::size_t{kRounds4} * kWarp) + lane;

  scan_detail::WarpSegment<A, kRounds4, 1> seg;
#pragma unroll
  for (unsigned r = 0; r < kRounds4; ++r) {  // all loads in flight before the first addition
    const std::size_t i = begin + r * kWarp;
    seg.item[r][0] = i < n ? to_acc<Out>(in[i]) : A(0);
  }
  seg.scan();
  if (lane == 0) warp_totals[warp] = seg.total;
  __syncthreads();
  A offset = static_cast<A>(tile_offsets[blockIdx.x]);
  for (unsigned w = 0; w < warp; ++w) offset = offset + warp_totals[w];
#pragma unroll
  for (unsigned r = 0; r < kRounds4; ++r) {
    const std::size_t i = begin + r * kWarp;
    if (i < n) out[i] = static_cast<Out>(seg.output(r, 0, offset + seg.lane_base[r], inclusive));
  }
}

}  // namespace gpulab::scan_ladder
