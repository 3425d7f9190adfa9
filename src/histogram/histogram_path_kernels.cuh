// The kernels of the library's histogram paths (rungs 6–14 of the ladder), one section a path,
// each saying what it adds over the path before. Included by histogram_dispatch.cu alone.
//
// Shared by the first seven: a resident grid (as many blocks as fit on the device at once, fewer
// for small n), each thread streaming 16-byte vectors of four values with four loads in flight
// (lib/tile_stream.cuh, the access pattern of the read ceiling). Shared by all: the bin computed
// without a division (bin_rule.hpp). The last two, range_partitioned and range_ranked, need
// temporary storage; sample_kernel picks between one of them and hot_cached_global on the device.
#pragma once

#include "lib/arith.hpp"
#include "lib/async_copy.cuh"
#include "lib/launch.cuh"
#include "lib/tile_stream.cuh"
#include "lib/warp.cuh"
#include "histogram/bin_rule.hpp"
#include "histogram/histogram_common.cuh"
#include "histogram/histogram_paths.hpp"

#include <gpulab/error.hpp>

#include <cooperative_groups.h>
#include <cub/block/block_radix_rank.cuh>
#include <cub/block/block_scan.cuh>

#include <cstddef>
#include <type_traits>
#include <utility>

namespace gpulab {
namespace histogram_detail {
namespace {


namespace cg = cooperative_groups;

constexpr unsigned kBlock = 512;
constexpr unsigned kUnroll = 4;
constexpr std::uint32_t kPackedMaxBins = 8;
constexpr unsigned kPackedFlushVectors = 63;  // 1 + 63·4 + 1 ≤ 255 counts per 8-bit field
constexpr unsigned kPortableCluster = 8;      // blocks in a cluster any Hopper GPU can run
constexpr unsigned kLargeCluster = 16;        // the largest Hopper allows, where it fits (non-portable)
constexpr unsigned kReplicatedBlocksPerSm = 4;  // the shared-memory budget: a quarter of the SM's

/// Where a rule's tables go after `counter_words` 32-bit counters: 16-byte aligned.
__host__ __device__ constexpr std::size_t staged_offset(std::size_t counter_words) { return (counter_words * 4 + 15) / 16 * 16; }

/// Thread t of block b visits its share of values[0, n): on_vector(x, i) for each 16-byte vector x
/// of the aligned body (through for_each_vector_in_tiles), i its first value's index, and
/// on_value(v, i) for the values before the first 16-byte boundary and after the last whole vector
/// (one per thread, first threads first).
template <class V, class OnVector, class OnValue>
__device__ __forceinline__ void for_each_input(const V* __restrict__ values, std::size_t n, OnVector&& on_vector,
                                               OnValue&& on_value) {
  using Vector = Vec16<V>;
  constexpr std::size_t kPer = Vector::kCount;
  const std::size_t global_t = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  const std::size_t misalign = (reinterpret_cast<std::uintptr_t>(values) % 16) / sizeof(V);
  const std::size_t head = misalign == 0 ? 0 : min(n, kPer - misalign);
  if (global_t < head) on_value(values[global_t], global_t);
  const std::size_t vectors = (n - head) / kPer;
  for_each_vector_in_tiles<kUnroll>(reinterpret_cast<const Vector*>(values + head), vectors, blockIdx.x, gridDim.x,
                                    threadIdx.x, blockDim.x,
                                    [&](const Vector& x, std::size_t k) { on_vector(x, head + k * kPer); });
  const std::size_t tail = head + vectors * kPer;
  if (global_t < n - tail) on_value(values[tail + global_t], tail + global_t);
}

/// Calls on_value(v, i) for each of a vector's values.
template <class OnValue>
__device__ __forceinline__ auto each_value(OnValue& on_value) {
  return [&on_value](const auto& x, std::size_t first) {
#pragma unroll
    for (unsigned c = 0; c < std::remove_cvref_t<decltype(x)>::kCount; ++c) on_value(x.v[c], first + c);
  };
}

// ---- packed_registers (m ≤ 8) ---------------------------------------------------------------------
// Adds over replicated_resident: no shared-memory atomic per value. Each thread counts in one 64-bit
// register holding eight 8-bit counters (count bin k: add 1 << 8k, two instructions), unpacks
// into eight 32-bit totals every 63 vectors, before a byte can overflow; warps then add their
// totals with shuffles, one shared atomic per warp and bin. Contention does not exist, so every
// distribution runs at the same speed.
template <class Rule>
__global__ void __launch_bounds__(kBlock)
packed_registers_kernel(const typename Rule::Value* __restrict__ values, std::size_t n, Rule unstaged,
                        std::uint32_t* __restrict__ counts) {
  __shared__ std::uint32_t block_counts[kPackedMaxBins];
  extern __shared__ uint4 tables[];  // the rule's, if any
  const Rule rule = staged(unstaged, tables);
  if (threadIdx.x < kPackedMaxBins) block_counts[threadIdx.x] = 0;
  if constexpr (!std::is_same_v<Rule, BinRule>) __syncthreads();  // the tables staged

  std::uint64_t packed = 0;
  std::uint32_t totals[kPackedMaxBins] = {};
  unsigned vectors_since_flush = 0;
  auto flush = [&] {
#pragma unroll
    for (unsigned k = 0; k < kPackedMaxBins; ++k) totals[k] += static_cast<std::uint32_t>(packed >> (8 * k)) & 0xFFu;
    packed = 0;
  };
  auto count = [&](auto v, std::size_t i) { packed += std::uint64_t{1} << (8 * bin_of(rule, v, i)); };
  auto count_vector = each_value(count);
  for_each_input(values, n, [&](const auto& x, std::size_t first) {
    count_vector(x, first);
    if (++vectors_since_flush == kPackedFlushVectors) {
      flush();
      vectors_since_flush = 0;
    }
  }, count);
  flush();

  __syncthreads();  // block_counts is zeroed
#pragma unroll
  for (unsigned k = 0; k < kPackedMaxBins; ++k) {
    const std::uint32_t s = warp_sum(totals[k]);
    if (threadIdx.x % kWarp == 0 && s != 0) atomicAdd(&block_counts[k], s);
  }
  __syncthreads();
  if (threadIdx.x < rule.bins() && block_counts[threadIdx.x] != 0)
    atomicAdd(&counts[threadIdx.x], block_counts[threadIdx.x]);
}

// ---- replicated_resident ------------------------------------------------------------------------------
// Adds over rung 5 (the same sub-histograms, one value per thread): a resident grid of long-lived
// blocks, so that zeroing and merging the sub-histograms happens once per resident block instead of
// once per block-sized batch of values, and 16-byte loads, four in flight per thread.
// The sub-histograms: `replicas` copies of the m bins interleaved, sub[bin·replicas + lane %
// replicas]. With 32 replicas every lane of a warp owns its own bank: no conflict and no two lanes
// on one address, whatever the values (the degenerate input included).
// The counts are zeroed by zero_counts_kernel, launched before it: the kernel follows it as a
// dependent and waits for it only before it merges.

/// Zeroes counts[0, m) for replicated_resident_kernel or halfword_shared_kernel, launched after it as
/// a dependent (LaunchShape::follows), which counts its values meanwhile: the zeroing's launch and
/// run do not stand between the call and the first loads, as a cudaMemsetAsync before would.
__global__ void zero_counts_kernel(std::uint32_t* __restrict__ counts, std::uint32_t m) {
  allow_dependent_grid();
  for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < m; i += gridDim.x * blockDim.x) counts[i] = 0;
}

template <class Rule>
__global__ void __launch_bounds__(kBlock)
replicated_resident_kernel(const typename Rule::Value* __restrict__ values, std::size_t n, Rule unstaged,
                           unsigned replicas, std::uint32_t* __restrict__ counts) {
  extern __shared__ std::uint32_t sub[];  // then the rule's tables, if any
  const std::uint32_t m = unstaged.bins();
  const Rule rule = staged(unstaged, reinterpret_cast<std::byte*>(sub) + staged_offset(std::size_t{m} * replicas));
  histogram_common::zero_shared(sub, m * replicas);

  const unsigned mine = threadIdx.x & (replicas - 1);
  auto count = [&](auto v, std::size_t i) { atomicAdd(&sub[bin_of(rule, v, i) * replicas + mine], 1u); };
  for_each_input(values, n, each_value(count), count);
  wait_for_prior_grid();  // the counts zeroed (launched as a dependent of zero_counts_kernel)
  histogram_common::merge_replicas(sub, m, replicas, counts);
}

// ---- halfword_shared ---------------------------------------------------------------------------------
// Adds over replicated_resident: twice the bins in one block's shared memory. The counters are 16
// bits, two to a 32-bit word (bin 2k in the low half, 2k + 1 in the high half), so 65536 bins take
// 128 KiB and up to ~116 000 fit an H100 block; without this, m = 65536 would go to L2 atomics or
// to another SM. A thread adds runs of equal bins at once (up to kMaxRun), which keeps the 32 lanes
// of a warp off one word when the input is degenerate. A 16-bit counter must never carry into its
// neighbour:
// - the add that takes a counter from below kSpill to kSpill or above (one add per crossing: the
//   counter stays ≥ kSpill until that add's own subtraction) subtracts kSpill from it and adds
//   kSpill to the global count;
// - an add that finds the counter already at kSpill or above takes itself back and adds its run to
//   the global count.
// Each thread has at most one add outstanding, so a counter never exceeds kSpill + blockDim ·
// kMaxRun = 2^15 + 1024 · 16 < 2^16, whatever the scheduling.
// Blocks of 1024 threads: with 128 KiB of counters only one block fits an SM, and each add waits
// for its atomic's result before the next run can start, so the SM needs all the warps it can get.
constexpr std::uint32_t kSpill = 1u << 15;
constexpr std::uint32_t kMaxRun = 16;
constexpr unsigned kHalfwordBlock = 1024;
static_assert(kSpill + kHalfwordBlock * kMaxRun < (1u << 16));

template <class Rule>
__global__ void __launch_bounds__(kHalfwordBlock)
halfword_shared_kernel(const typename Rule::Value* __restrict__ values, std::size_t n, Rule unstaged,
                       std::uint32_t* __restrict__ counts) {
  extern __shared__ std::uint32_t pairs[];  // then the rule's tables, if any
  const std::uint32_t m = unstaged.bins();
  const Rule rule = staged(unstaged, reinterpret_cast<std::byte*>(pairs) + staged_offset((std::size_t{m} + 1) / 2));
  histogram_common::zero_shared(pairs, (m + 1) / 2);

  auto bin_runs = histogram_common::runs<kMaxRun>([&](std::uint32_t bin, std::uint32_t run) {
    const unsigned shift = (bin & 1u) * 16;
    std::uint32_t* word = &pairs[bin / 2];
    const std::uint32_t before = (atomicAdd(word, run << shift) >> shift) & 0xFFFFu;
    if (before + run < kSpill) return;
    const std::uint32_t to_global = before < kSpill ? kSpill : run;
    atomicSub(word, to_global << shift);
    wait_for_prior_grid();  // the counts zeroed (a dependent of zero_counts_kernel; at once after the first time)
    atomicAdd(&counts[bin], to_global);
  });
  auto count = [&](auto v, std::size_t i) { bin_runs.push(bin_of(rule, v, i)); };
  for_each_input(values, n, each_value(count), count);
  bin_runs.finish();
  wait_for_prior_grid();  // the counts zeroed
  __syncthreads();

  for (std::uint32_t b = threadIdx.x; b < m; b += blockDim.x) {
    const std::uint32_t c = (pairs[b / 2] >> ((b & 1u) * 16)) & 0xFFFFu;
    if (c != 0) atomicAdd(&counts[b], c);
  }
}

// ---- cluster_shared, cluster16_shared ----------------------------------------------------------------
// Adds over halfword_shared: m no longer has to fit in one block's shared memory. The bins of a
// pass are spread over the shared memory of a cluster of kRanks blocks (Hopper's distributed shared
// memory): bin lo + j lives in block j % kRanks, slot j / kRanks, and any block of the cluster adds
// to it with an atomic on the SM-to-SM network instead of one on L2. When m exceeds even the
// cluster (8 × 227 KiB ≈ 465 000 bins on an H100) the kernel makes passes over ranges of bins,
// reading the input once per pass. A run of equal bins in one thread is added once, which takes
// the contention out of the degenerate input.
// cluster16_shared adds over it: a cluster of 16 blocks (non-portable: where the GPU fits one),
// twice the bins a pass, so half the passes over the input.
template <unsigned kRanks>
__global__ void __launch_bounds__(kBlock)
cluster_shared_kernel(const std::int32_t* __restrict__ values, std::size_t n, BinRule rule,
                      std::uint32_t bins_per_pass, std::uint32_t* __restrict__ counts) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  __trap();  // clusters need compute capability 9.0: supports() keeps this path from older GPUs
#else
  extern __shared__ std::uint32_t slot_counts[];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  const std::uint32_t m = rule.bins();
  const std::uint32_t slots = bins_per_pass / kRanks;

  for (std::uint64_t lo = 0; lo < m; lo += bins_per_pass) {
    histogram_common::zero_shared(slot_counts, slots);
    cluster.sync();  // every block's slots are zero before any block adds

    // Runs of `local` = bin − lo; local ≥ bins_per_pass (wrapped too): not this pass.
    auto local_runs = histogram_common::runs([&](std::uint32_t local, std::uint32_t run) {
      if (local < bins_per_pass)
        atomicAdd(cluster.map_shared_rank(slot_counts, local % kRanks) + local / kRanks, run);
    });
    auto count = [&](std::int32_t v, std::size_t) { local_runs.push(rule(v) - static_cast<std::uint32_t>(lo)); };
    for_each_input(values, n, each_value(count), count);
    local_runs.finish();
    cluster.sync();  // every add into this block's slots is done

    for (std::uint32_t s = threadIdx.x; s < slots; s += blockDim.x) {
      const std::uint64_t bin = lo + std::uint64_t{s} * kRanks + rank;
      if (bin < m && slot_counts[s] != 0) atomicAdd(&counts[bin], slot_counts[s]);
    }
    __syncthreads();  // the slots are read before the next pass zeroes them
  }
#endif
}

// ---- global_runs ------------------------------------------------------------------------------------
// The fallback for any m on any device: atomics straight to the histogram in global memory (it
// is cached in L2; 2^20 bins take 4 MiB), with runs of equal bins added once.
__global__ void __launch_bounds__(kBlock)
global_runs_kernel(const std::int32_t* __restrict__ values, std::size_t n, BinRule rule,
                   std::uint32_t* __restrict__ counts) {
  auto bin_runs = histogram_common::runs([&](std::uint32_t bin, std::uint32_t run) { atomicAdd(&counts[bin], run); });
  auto count = [&](std::int32_t v, std::size_t) { bin_runs.push(rule(v)); };
  for_each_input(values, n, each_value(count), count);
  bin_runs.finish();
}

/// The library's choice between hot_cached_global and range_partitioned, made on the device
/// (sample_kernel): each path's kernels are launched, and those of the path not picked return at
/// once. The ladder's rungs pass none and always run.
enum PathPick : std::uint32_t { kPickHotCached = 0, kPickPartitioned = 1 };
struct PickedIf {
  const std::uint32_t* pick = nullptr;  // written by sample_kernel earlier on the stream
  std::uint32_t path = 0;               // the PathPick this launch belongs to
  __device__ bool skipped() const { return pick != nullptr && *pick != path; }  // every thread reads it: one L2 line
};

// ---- hot_cached_global --------------------------------------------------------------------------------
// Adds over global_runs: the hot bins counted in shared memory. Global atomics are fast while the
// bins a moment's values hit are many and spread (uniform: the L2 serves them in parallel) and
// slow when many values hit few bins in no particular order (256 hot bins among 2^20: every
// atomic queues behind others on its address; runs do not help). Each block first samples 1024
// values of the part of the input it reads first and claims a shared slot for each sampled bin
// (a hashed slot or its neighbour, the first to come keeps it); then each run of equal bins goes to
// its bin's slot if the bin holds one (a bin the sample missed claims its slot on first sight while
// the slot is free), to global memory otherwise; at the end the block adds its slots to the global
// counts. A hot bin is almost surely sampled (a bin that takes a fraction f of the input is missed
// by a block's 1024 samples with probability (1 − f)^1024: e^−4 at f = 1/256), and claims its slot
// anyway if not; a cold one costs a lookup in shared memory and the same global atomic as before.
// The input's distribution need not be known.
constexpr unsigned kHotSlotBits = 12;
constexpr unsigned kHotSlots = 1u << kHotSlotBits;  // 4096 tags and 4096 counts: 32 KiB a block
constexpr unsigned kHotSamples = 2;                   // values a thread samples before counting
constexpr std::uint32_t kNoBin = ~0u;

/// A bin's kBits-bit hash (Fibonacci hashing: the top bits of the product spread nearby bins).
template <unsigned kBits>
__device__ __forceinline__ unsigned fibonacci_hash(std::uint32_t bin) { return (bin * 2654435761u) >> (32 - kBits); }
/// The slot a bin hashes to.
__device__ __forceinline__ unsigned hot_slot(std::uint32_t bin) { return fibonacci_hash<kHotSlotBits>(bin); }

__global__ void __launch_bounds__(kBlock)
hot_cached_kernel(const std::int32_t* __restrict__ values, std::size_t n, BinRule rule,
                  std::uint32_t* __restrict__ counts, PickedIf picked) {
  if (picked.skipped()) return;
  __shared__ std::uint32_t tags[kHotSlots];
  __shared__ std::uint32_t hot[kHotSlots];
  histogram_common::fill_shared(tags, kHotSlots, kNoBin);
  histogram_common::zero_shared(hot, kHotSlots);
  // The samples: every 8th value of the block's first tile, which the count then reads again from
  // L2 (sampling the whole input instead cost a sector of DRAM traffic a sample: 9% at n = 2^24).
  const std::size_t tile_values = std::size_t{blockDim.x} * kUnroll * 4;
  const std::size_t sample_step = tile_values / (std::size_t{blockDim.x} * kHotSamples);
#pragma unroll
  for (unsigned k = 0; k < kHotSamples; ++k) {
    const std::size_t i = blockIdx.x * tile_values + (threadIdx.x * kHotSamples + k) * sample_step;
    if (i >= n) break;
    const std::uint32_t bin = rule(values[i]);
    if (!first_of_its_key(bin, __activemask())) continue;  // one lane a bin: equal bins do not queue on a tag
    const unsigned slot = hot_slot(bin);
    const std::uint32_t was = atomicCAS(&tags[slot], kNoBin, bin);
    if (was != kNoBin && was != bin) atomicCAS(&tags[slot ^ 1u], kNoBin, bin);
  }
  __syncthreads();

  // A bin the sample missed takes its slot on first sight while the slot is free (first come keeps
  // it): 1024 samples miss each of 256 equally hot bins with probability e^-4, and the values of
  // the missed ones went to global atomics, which queue in L2 where the bins share cache lines
  // (256 consecutive bins: 0.5683 ms at n = 2^26 against 0.1276 for 256 bins 4096 apart, H100).
  auto bin_runs = histogram_common::runs([&](std::uint32_t bin, std::uint32_t run) {
    const unsigned slot = hot_slot(bin);
    std::uint32_t tag = tags[slot];
    if (tag == kNoBin) {
      tag = atomicCAS(&tags[slot], kNoBin, bin);
      if (tag == kNoBin) tag = bin;  // claimed here
    }
    if (tag == bin)
      atomicAdd(&hot[slot], run);
    else if (tags[slot ^ 1u] == bin)
      atomicAdd(&hot[slot ^ 1u], run);
    else
      atomicAdd(&counts[bin], run);
  });
  auto count = [&](std::int32_t v, std::size_t) { bin_runs.push(rule(v)); };
  for_each_input(values, n, each_value(count), count);
  bin_runs.finish();
  __syncthreads();
  for (unsigned s = threadIdx.x; s < kHotSlots; s += blockDim.x)
    if (hot[s] != 0) atomicAdd(&counts[tags[s]], hot[s]);
}

// ---- range_partitioned --------------------------------------------------------------------------------
// Adds over hot_cached_global: every value counted in an SM's own shared memory, whatever m and the
// distribution. Uniform values over 2^20 bins are all cold, so rung 12 pays one L2 atomic for each
// (~8.5·10^10 a second); here the bins are cut into ranges of kRangeBins, and two kernels (with a
// scan between them) make each range's values meet in one block:
// 1. partition_kernel: each block takes a tile of kTile values, counts its values per range, sorts
//    the values' places in their range (16-bit: the bin minus the range's first) by range in shared
//    memory and writes them back as one coalesced 16 KiB piece; a table holds, per (range, tile),
//    where the range's segment starts in the tile's piece and how long it is.
// 2. an exclusive scan of the segments' lengths, in (range, tile) order, gives each segment its
//    place in the sequence of all values ordered by range;
// 3. count_kernel: block g of G takes the g-th G-th of that sequence (an even share of the values
//    whatever the distribution), walks its segments range by range, counts them in kRangeBins
//    32-bit counters in shared memory, and adds each range's counters to the global counts (one
//    coalesced atomic per bin and block) before it moves to the next range.
// The input is read once; the 16-bit places are written once and read once (half the input's bytes
// each way).
constexpr unsigned kRangeBits = 15;
constexpr std::uint32_t kRangeBins = 1u << kRangeBits;  // 32-bit counters: 128 KiB of a block's shared memory
constexpr unsigned kMaxRangeBits = 11;
constexpr std::uint32_t kMaxRanges = 1u << kMaxRangeBits;  // a tile's range counters: 8 KiB
constexpr unsigned kPartitionBlock = 512;
constexpr unsigned kPartitionPerThread = 16;
constexpr unsigned kTile = kPartitionBlock * kPartitionPerThread;  // 8192 values
constexpr unsigned kCountBlock = 1024;
constexpr unsigned kCountUnroll = 8;  // loads a lane has in flight in count_kernel
// A segment's start (< kTile) in its low 16 bits and its length (≤ kTile) in its high 16.
static_assert(kTile < (1u << 16));
constexpr std::uint32_t segment_entry(std::uint32_t start, std::uint32_t length) { return start | length << 16; }
/// Segment e's length as the scan reads it; 0 for every e where the partition was not picked (its
/// table then holds nothing written, and is not read).
struct SegmentLength {
  const std::uint32_t* segments;
  PickedIf picked;
  __device__ std::uint32_t operator()(std::uint32_t e) const { return picked.skipped() ? 0 : segments[e] >> 16; }
};

using PartitionScan = cub::BlockScan<std::uint32_t, kPartitionBlock>;

/// How partition_tile finds each value's place among its tile's values of the same range.
enum class Ranking {
  ballots,          // range_partitioned: one ballot per bit of the range, one shared atomic per group of equal lanes
  thread_counters,  // range_ranked: CUB's BlockRadixRank, a private 16-bit counter per range and thread
};
/// BlockRadixRank keeps 2^(bits − 1) + 1 words a thread: 34 KiB at 5 bits (32 ranges, m ≤ 2^20),
/// 66 KiB at 6; from 7 bits a block of kPartitionBlock threads would leave the SM a single block.
constexpr unsigned kMaxCounterBits = 6;
template <unsigned kBits>
using ThreadCounterRank = cub::BlockRadixRank<kPartitionBlock, kBits, false, false>;  // not memoized: fewer registers
struct RangeOfBin {
  __device__ std::uint32_t Digit(std::uint32_t bin) const { return bin >> kRangeBits; }
};

/// Bytes of partition_tile's working storage after its sorted piece: the ranks (ballots) or
/// BlockRadixRank's counters, whichever the tiles of a kernel need, 16-byte aligned.
template <unsigned kBits, Ranking kRanking>
constexpr std::size_t rank_storage_bytes() {
  std::size_t bytes = kTile * sizeof(std::uint16_t);  // the ballots' ranks (also the last tile's)
  if constexpr (kRanking == Ranking::thread_counters) bytes = std::max(bytes, sizeof(typename ThreadCounterRank<kBits>::TempStorage));
  return align_up(bytes, 16);
}
/// Where partition_kernel keeps its tiles in dynamic shared memory, each part 16-byte aligned: the
/// next tile's values while they arrive (thread counters only), the sorted piece, the rank storage,
/// and one word per possible range and one past them.
extern __shared__ uint4 partition_shared[];
template <unsigned kBits, Ranking kRanking>
struct PartitionSmem {
  static constexpr std::size_t sorted_at = kRanking == Ranking::thread_counters ? kTile * sizeof(std::int32_t) : 0;
  static constexpr std::size_t rank_at = sorted_at + kTile * sizeof(std::uint16_t);
  static constexpr std::size_t count_at = rank_at + rank_storage_bytes<kBits, kRanking>();
  static constexpr std::size_t bytes = count_at + ((std::size_t{1} << kBits) + 1) * sizeof(std::uint32_t);
};

/// values[first + k·kPartitionBlock + threadIdx.x] for k < kPartitionPerThread, all loads in flight
/// before the first is used; 0 past `length` unless kFull.
template <bool kFull>
__device__ __forceinline__ void load_tile(const std::int32_t* __restrict__ values, std::size_t first, unsigned length,
                                          std::int32_t (&value)[kPartitionPerThread]) {
#pragma unroll
  for (unsigned k = 0; k < kPartitionPerThread; ++k) {
    const unsigned i = k * kPartitionBlock + threadIdx.x;
    value[k] = kFull || i < length ? values[first + i] : 0;
  }
}

/// One tile of partition_kernel: kBits, the bits of a range number (0 … 11, ranges ≤ 2^kBits), is
/// a constant so that the ballots per bit unroll; kFull, whether the tile holds kTile values (every
/// tile but the last), spares the checks of each value against the tile's end. The last tile, if
/// short, always ranks with ballots (thread counters would rank its missing values too).
template <unsigned kBits, bool kFull, Ranking kRanking>
__device__ __forceinline__ void partition_tile(const std::int32_t (&value)[kPartitionPerThread], std::uint32_t tile,
                                               std::size_t first, unsigned length, BinRule rule, std::uint32_t ranges,
                                               std::uint32_t tiles, std::uint16_t* __restrict__ places,
                                               std::uint32_t* __restrict__ segments, PartitionScan::TempStorage& scan_storage) {
  using Smem = PartitionSmem<kBits, kRanking>;
  auto* sorted = reinterpret_cast<std::uint16_t*>(reinterpret_cast<std::byte*>(partition_shared) + Smem::sorted_at);  // [kTile]
  std::byte* rank_storage = reinterpret_cast<std::byte*>(partition_shared) + Smem::rank_at;
  // [2^kBits + 1]: counts, then starts
  auto* range_count = reinterpret_cast<std::uint32_t*>(reinterpret_cast<std::byte*>(partition_shared) + Smem::count_at);

  std::uint32_t bin[kPartitionPerThread];
#pragma unroll
  for (unsigned k = 0; k < kPartitionPerThread; ++k) bin[k] = rule(value[k]);

  if constexpr (kFull && kRanking == Ranking::thread_counters) {
    // Adds over the ballots: each thread counts its own values per range in private 16-bit counters,
    // a scan over all threads' counters gives each value its position and each range its start
    // (CUB's BlockRadixRank, one pass of kBits bits): no ballot, no atomic per value.
    using Rank = ThreadCounterRank<kBits>;
    int rank[kPartitionPerThread];
    int range_start[Rank::BINS_TRACKED_PER_THREAD];
    Rank(*reinterpret_cast<typename Rank::TempStorage*>(rank_storage)).RankKeys(bin, rank, RangeOfBin{}, range_start);
#pragma unroll
    for (unsigned k = 0; k < kPartitionPerThread; ++k) sorted[rank[k]] = static_cast<std::uint16_t>(bin[k] & (kRangeBins - 1));
#pragma unroll
    for (unsigned j = 0; j < Rank::BINS_TRACKED_PER_THREAD; ++j) {
      const unsigned r = threadIdx.x * Rank::BINS_TRACKED_PER_THREAD + j;
      if (r < (1u << kBits)) range_count[r] = static_cast<std::uint32_t>(range_start[j]);
    }
    if (threadIdx.x == 0) range_count[1u << kBits] = kTile;
    __syncthreads();
    for (std::uint32_t r = threadIdx.x; r < ranges; r += kPartitionBlock)
      segments[std::size_t{r} * tiles + tile] = segment_entry(range_count[r], range_count[r + 1] - range_count[r]);
  } else {
    auto* rank = reinterpret_cast<std::uint16_t*>(rank_storage);  // [kTile]: a value's rank in its range
    for (std::uint32_t r = threadIdx.x; r < ranges; r += kPartitionBlock) range_count[r] = 0;
    __syncthreads();

    // Each value's rank among the tile's values of its range. The lanes of a warp with equal ranges
    // find each other with one ballot per bit of the range (match.any costs a pass per distinct value:
    // 0.98 ms for this kernel at 32 ranges, uniform, on an H100) and take one atomic between them,
    // their leader's, whatever the distribution.
    const unsigned lane = threadIdx.x % kWarp;
#pragma unroll
    for (unsigned k = 0; k < kPartitionPerThread; ++k) {
      const unsigned slot = k * kPartitionBlock + threadIdx.x;
      const std::uint32_t range = bin[k] >> kRangeBits;
      unsigned peers = kFull ? kFullMask : __ballot_sync(kFullMask, slot < length);
#pragma unroll
      for (unsigned b = kBits; b-- > 0;) {
        const bool one = (range >> b) & 1u;
        const unsigned ones = __ballot_sync(kFullMask, one);
        peers &= one ? ones : ~ones;
      }
      const bool valid = kFull || slot < length;
      const unsigned leader = valid ? __ffs(peers) - 1 : lane;
      std::uint32_t before = 0;
      if (valid && lane == leader) before = atomicAdd(&range_count[range], __popc(peers));
      before = __shfl_sync(kFullMask, before, leader);
      if (valid) rank[slot] = static_cast<std::uint16_t>(before + __popc(peers & ((1u << lane) - 1)));
    }
    __syncthreads();

    // Where each range starts in the tile's sorted piece (thread t scans ranges [t·per, (t + 1)·per)),
    // written to the table and kept in place of the counts.
    const std::uint32_t per_thread = (ranges + kPartitionBlock - 1) / kPartitionBlock;
    const std::uint32_t mine = threadIdx.x * per_thread;
    std::uint32_t sum = 0;
    for (std::uint32_t j = 0; j < per_thread && mine + j < ranges; ++j) sum += range_count[mine + j];
    std::uint32_t start = 0;
    PartitionScan(scan_storage).ExclusiveSum(sum, start);
    for (std::uint32_t j = 0; j < per_thread && mine + j < ranges; ++j) {
      const std::uint32_t r = mine + j, count = range_count[r];
      segments[std::size_t{r} * tiles + tile] = segment_entry(start, count);
      range_count[r] = start;
      start += count;
    }
    __syncthreads();
#pragma unroll
    for (unsigned k = 0; k < kPartitionPerThread; ++k) {
      const unsigned slot = k * kPartitionBlock + threadIdx.x;
      if (kFull || slot < length)
        sorted[range_count[bin[k] >> kRangeBits] + rank[slot]] = static_cast<std::uint16_t>(bin[k] & (kRangeBins - 1));
    }
  }
  __syncthreads();

  // The sorted piece to the tile's place in `places` (16 KiB apart: 16-byte vectors, then the tail).
  std::uint16_t* piece = places + first;
  const unsigned vectors = length / 8;
  for (unsigned v = threadIdx.x; v < vectors; v += kPartitionBlock)
    reinterpret_cast<uint4*>(piece)[v] = reinterpret_cast<const uint4*>(sorted)[v];
  if (!kFull)
    for (unsigned i = vectors * 8 + threadIdx.x; i < length; i += kPartitionBlock) piece[i] = sorted[i];
}

/// Blocks of partition_kernel an SM should hold: thread counters need fewer registers than the
/// ballots, and a second block loads its tile while the first ranks.
template <Ranking kRanking>
constexpr unsigned kPartitionBlocksPerSm = kRanking == Ranking::thread_counters ? 2 : 0;

template <unsigned kBits, Ranking kRanking>
__global__ void __launch_bounds__(kPartitionBlock, kPartitionBlocksPerSm<kRanking>)
partition_kernel(const std::int32_t* __restrict__ values, std::size_t n, BinRule rule, std::uint32_t ranges,
                 std::uint32_t tiles, std::uint16_t* __restrict__ places, std::uint32_t* __restrict__ segments,
                 PickedIf picked) {
  __shared__ PartitionScan::TempStorage scan_storage;
  if (picked.skipped()) return;
  const auto length_of = [&](std::uint32_t tile) {
    return static_cast<unsigned>(std::min<std::size_t>(kTile, n - std::size_t{tile} * kTile));
  };
  const auto partition = [&](std::uint32_t tile, const std::int32_t (&value)[kPartitionPerThread]) {
    const std::size_t first = std::size_t{tile} * kTile;
    const unsigned length = length_of(tile);
    if (length == kTile)
      partition_tile<kBits, true, kRanking>(value, tile, first, kTile, rule, ranges, tiles, places, segments, scan_storage);
    else
      partition_tile<kBits, false, kRanking>(value, tile, first, length, rule, ranges, tiles, places, segments, scan_storage);
  };
  // A resident grid walks the tiles: a launch whose pick is the other path then costs one wave of
  // blocks that return, not a block a tile (32768 at n = 2^28: 0.05 ms).
  if constexpr (kRanking == Ranking::ballots) {
    for (std::uint32_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
      std::int32_t value[kPartitionPerThread];
      if (length_of(tile) == kTile)
        load_tile<true>(values, std::size_t{tile} * kTile, kTile, value);
      else
        load_tile<false>(values, std::size_t{tile} * kTile, length_of(tile), value);
      partition(tile, value);
      __syncthreads();  // the next tile reuses the shared arrays
    }
  } else {
    // Adds over loading each tile when its turn comes: the next tile's values are copied into shared
    // memory (cp.async) while this one is ranked and written, so the loads of a block never wait for
    // its own ranking.
    auto* staged = reinterpret_cast<std::int32_t*>(partition_shared);  // [kTile]
    const bool vectors = reinterpret_cast<std::uintptr_t>(values) % 16 == 0;
    const auto stage = [&](std::uint32_t tile) {
      const std::int32_t* from = values + std::size_t{tile} * kTile;
      const unsigned length = length_of(tile);
      if (vectors && length == kTile) {
#pragma unroll
        for (unsigned k = 0; k < kPartitionPerThread / 4; ++k) {
          const unsigned v = 4 * (k * kPartitionBlock + threadIdx.x);
          cp_async16(staged + v, from + v, 16);
        }
      } else {
        for (unsigned k = 0; k < kPartitionPerThread; ++k) {
          const unsigned i = k * kPartitionBlock + threadIdx.x;
          cp_async4(staged + i, from + (i < length ? i : 0), i < length);
        }
      }
      cp_async_commit();
    };
    if (blockIdx.x < tiles) stage(blockIdx.x);
    for (std::uint32_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
      cp_async_wait<0>();
      __syncthreads();  // every thread's copies have landed
      std::int32_t value[kPartitionPerThread];
#pragma unroll
      for (unsigned k = 0; k < kPartitionPerThread; ++k) value[k] = staged[k * kPartitionBlock + threadIdx.x];
      __syncthreads();  // every thread has its values: the next tile may come in
      if (tile + gridDim.x < tiles) stage(tile + gridDim.x);
      partition(tile, value);
      __syncthreads();  // the next tile reuses the shared arrays
    }
  }
}

/// The last segment e in [0, entries) whose place `starts[e]` is at most `at` (starts[0] = 0 ≤ at):
/// for `at` below the total, the segment that holds place `at`, past any empty ones. Called by a
/// whole warp; each step, 32 probes cut the span 32-fold.
__device__ std::uint32_t last_segment_at_or_before(const std::uint32_t* __restrict__ starts, std::uint32_t entries,
                                                   std::uint32_t at) {
  const unsigned lane = threadIdx.x % kWarp;
  std::uint32_t lo = 0, hi = entries;  // the answer is in [lo, hi)
  while (hi - lo > 1) {
    const std::uint32_t step = (hi - lo + kWarp - 1) / kWarp;
    const std::uint32_t probe = lo + lane * step;
    const unsigned below = __ballot_sync(kFullMask, probe < hi && starts[probe] <= at);  // lanes 0 … j
    const std::uint32_t last = lo + (31 - __clz(below)) * step;
    hi = min(hi, last + step);
    lo = last;
  }
  return lo;
}

/// Up to kWarp · kCountUnroll places of one segment, loaded by a whole warp (kCountUnroll a lane)
/// ahead of their atomics.
struct CountBatch {
  std::uint16_t place[kCountUnroll];
  std::uint32_t length = 0;  // places in the batch (0: none)

  /// kWhole: count is kWarp · kCountUnroll, so no place needs a check against it.
  template <bool kWhole>
  __device__ __forceinline__ void load(const std::uint16_t* __restrict__ from, std::uint32_t count) {
    const unsigned lane = threadIdx.x % kWarp;
    length = count;
#pragma unroll
    for (unsigned u = 0; u < kCountUnroll; ++u) place[u] = kWhole || u * kWarp + lane < count ? from[u * kWarp + lane] : 0;
  }
  /// Adds the batch to a block's range counters. A batch whose places are all one bin (a degenerate
  /// input, a long run) takes one atomic, not 256 on one word.
  template <bool kWhole>
  __device__ __forceinline__ void add_to(std::uint32_t* range_counts) const {
    if (!kWhole && length == 0) return;
    const unsigned lane = threadIdx.x % kWarp;
    const std::uint32_t first = __shfl_sync(kFullMask, place[0], 0);  // lane 0's first is in the batch
    bool same = true;
#pragma unroll
    for (unsigned u = 0; u < kCountUnroll; ++u) same &= (!kWhole && u * kWarp + lane >= length) || place[u] == first;
    if (__all_sync(kFullMask, same)) {
      if (lane == 0) atomicAdd(&range_counts[first], length);
    } else {
#pragma unroll
      for (unsigned u = 0; u < kCountUnroll; ++u)
        if (kWhole || u * kWarp + lane < length) atomicAdd(&range_counts[place[u]], 1u);
    }
  }
};

/// count_kernel's warps walk kStreams segments side by side, the loads of each one's next batch in
/// flight together before the atomics of any. Where segments are short (more than kOneStreamRanges
/// ranges: 128 values a segment on average, or fewer) one segment at a time left a warp waiting on
/// its loads; where they are long, the shared atomics bound the kernel and a second stream only adds
/// instructions (ncu and both forms timed on the H100, 2026-11-25, docs/histogram.md).
constexpr std::uint32_t kOneStreamRanges = 32;

template <unsigned kCountStreams>
__global__ void __launch_bounds__(kCountBlock)
count_kernel(const std::uint16_t* __restrict__ places, const std::uint32_t* __restrict__ segments,
             const std::uint32_t* __restrict__ starts, std::uint32_t entries, std::uint32_t tiles, std::uint32_t n,
             std::uint32_t* __restrict__ counts, PickedIf picked) {
  static_assert(kWarp % kCountStreams == 0);
  if (picked.skipped()) return;
  extern __shared__ std::uint32_t range_counts[];  // [kRangeBins]
  __shared__ std::uint32_t next_entry;
  const std::uint32_t lo = static_cast<std::uint32_t>(std::uint64_t{n} * blockIdx.x / gridDim.x);
  const std::uint32_t hi = static_cast<std::uint32_t>(std::uint64_t{n} * (blockIdx.x + 1) / gridDim.x);
  if (lo == hi) return;
  const unsigned warp = threadIdx.x / kWarp, lane = threadIdx.x % kWarp, warps = blockDim.x / kWarp;
  if (warp == 0) {
    const std::uint32_t e = last_segment_at_or_before(starts, entries, lo);
    if (lane == 0) next_entry = e;
  }
  histogram_common::zero_shared(range_counts, kRangeBins);  // waits for next_entry too

  for (std::uint32_t e = next_entry; starts[e] < hi;) {
    const std::uint32_t range = e / tiles;
    const std::uint32_t range_end = (range + 1) * tiles;
    // A warp a segment (warp w: e + w, e + w + warps, …), kCountStreams at once, in batches of
    // kWarp · kCountUnroll values. Where its next kWarp segments start and how long they are come in
    // one load a lane, so the loads of a segment's values wait for no other load.
    constexpr std::uint32_t kBatch = kWarp * kCountUnroll;
    bool past_share = false;
    for (std::uint32_t base = e + warp; base < range_end && !past_share; base += warps * kWarp) {
      const std::uint32_t mine = base + lane * warps;
      const std::uint32_t my_at = mine < range_end ? starts[mine] : hi;  // hi: none of the share
      const std::uint32_t my_entry = mine < range_end ? segments[mine] : 0;
#pragma unroll 1
      for (unsigned j = 0; j < kWarp && !past_share; j += kCountStreams) {
        const std::uint16_t* next[kCountStreams];
        std::uint32_t left[kCountStreams];
#pragma unroll
        for (unsigned t = 0; t < kCountStreams; ++t) {
          const std::uint32_t at = __shfl_sync(kFullMask, my_at, j + t);
          const std::uint32_t entry = __shfl_sync(kFullMask, my_entry, j + t);
          past_share |= at >= hi;  // starts ascend: the segments after are past the share too
          const std::uint32_t from = lo > at ? lo - at : 0;
          const std::uint32_t to = past_share ? 0 : min(entry >> 16, hi - at);
          left[t] = to > from ? to - from : 0;
          const std::uint32_t f = base + (j + t) * warps;
          next[t] = places + std::size_t{f - range * tiles} * kTile + (entry & 0xFFFFu) + from;
        }
        if constexpr (kCountStreams == 1) {
          CountBatch batch;
          for (; left[0] >= kBatch; left[0] -= kBatch, next[0] += kBatch) {
            batch.load<true>(next[0], kBatch);
            batch.add_to<true>(range_counts);
          }
          batch.load<false>(next[0], left[0]);
          batch.add_to<false>(range_counts);
        } else {
          for (bool more = true; more;) {
            CountBatch batch[kCountStreams];
            more = false;
#pragma unroll
            for (unsigned t = 0; t < kCountStreams; ++t) {
              const std::uint32_t count = min(left[t], kBatch);
              batch[t].load<false>(next[t], count);
              next[t] += count;
              left[t] -= count;
              more |= left[t] > 0;
            }
#pragma unroll
            for (unsigned t = 0; t < kCountStreams; ++t) batch[t].add_to<false>(range_counts);
          }
        }
      }
    }
    __syncthreads();
    const std::uint32_t first_bin = range * kRangeBins;
    for (std::uint32_t s = threadIdx.x; s < kRangeBins; s += blockDim.x) {
      const std::uint32_t c = range_counts[s];
      if (c != 0) {
        atomicAdd(&counts[first_bin + s], c);
        range_counts[s] = 0;
      }
    }
    // The next range that holds a value of this block's share, past empty ones (the narrow input's
    // values sit in the first and the last range).
    if (range_end >= entries) break;
    if (warp == 0) {
      const std::uint32_t next = last_segment_at_or_before(starts, entries, starts[range_end]);
      if (lane == 0) next_entry = next;
    }
    __syncthreads();
    e = next_entry;
  }
}

// ---- the library's choice between the two, on the device ---------------------------------------------
// hot_cached_global counts the bins its blocks find in shared memory and every other value with an
// L2 atomic; the partition costs about the same whatever the values. So the partition pays where
// the values spread over more bins than the hot slots hold well: on the H100 at n = 2^24 and 2^26
// (inputs drawn from k random values, docs/histogram.md) hot_cached_global was 1.1–2× faster up to
// k = 1024 and 1.1–1.3× slower at k = 2048, 1.3–2.9× from k = 4096. One block samples kSamples
// values in 256 runs of 8 (a 32-byte sector each) spread evenly over the input, and counts the
// distinct bins among them (for values drawn independently from k, about k(1 − e^(−2048/k)): 885 at
// k = 1024, 1295 at k = 2048, 2046 for uniform values) as the bits they set in a 2^16-bit map of
// their hashes in shared memory (two of 2048 distinct bins share a bit about 32 times: the count
// errs low by ~1.6% there, by 0.8% at the bound). More than kPartitionFromDistinct: the partition;
// otherwise hot_cached_global. (Sorting 2048 values spread one by one took 13.9 µs at n = 2^24 on an
// H100; a hash set filled by atomicCAS 9 µs on uniform values.)
constexpr unsigned kSampleBlock = 1024, kSamplesPerThread = 2, kSamples = kSampleBlock * kSamplesPerThread;
constexpr unsigned kSampleRun = 8, kSampleMapBits = 16;
constexpr std::size_t kPickBytes = 256;  // the pick's word, ahead of the partition's storage
constexpr unsigned kPartitionFromDistinct = kSamples / 2;  // k ≈ 1400: between the two measured

/// Block 0 samples; the other blocks zero `counts[0, m)` meanwhile (a cudaMemsetAsync would run
/// before the sample, one launch after the other).
__global__ void __launch_bounds__(kSampleBlock)
sample_kernel(const std::int32_t* __restrict__ values, std::size_t n, BinRule rule, std::uint32_t* pick,
              std::uint32_t* __restrict__ counts, std::uint32_t m) {
  if (blockIdx.x > 0) {
    const std::size_t stride = std::size_t{gridDim.x - 1} * blockDim.x;
    for (std::size_t i = std::size_t{blockIdx.x - 1} * blockDim.x + threadIdx.x; i < m; i += stride) counts[i] = 0;
    return;
  }
  constexpr unsigned kWords = (1u << kSampleMapBits) / 32;
  __shared__ std::uint32_t seen[kWords];
  __shared__ unsigned distinct;
  const std::size_t run_stride = n / (kSamples / kSampleRun);
  std::uint32_t bin[kSamplesPerThread];
#pragma unroll
  for (unsigned k = 0; k < kSamplesPerThread; ++k) {
    const unsigned s = threadIdx.x + k * kSampleBlock;  // consecutive lanes, consecutive values of a run
    bin[k] = rule(values[std::min(s / kSampleRun * run_stride + s % kSampleRun, n - 1)]);
  }
  histogram_common::zero_shared(seen, kWords);
  if (threadIdx.x == 0) distinct = 0;
  __syncthreads();
  unsigned mine = 0;  // the bits this thread set first
#pragma unroll
  for (unsigned k = 0; k < kSamplesPerThread; ++k) {
    if (!first_of_its_key(bin[k], kFullMask)) continue;  // one lane a bin: equal bins do not queue on one word
    const unsigned hash = fibonacci_hash<kSampleMapBits>(bin[k]);
    const std::uint32_t bit = 1u << (hash % 32);
    mine += (atomicOr(&seen[hash / 32], bit) & bit) == 0;
  }
  mine = warp_sum_unsigned(mine);
  if (threadIdx.x % kWarp == 0) atomicAdd(&distinct, mine);
  __syncthreads();
  if (threadIdx.x == 0) *pick = distinct > kPartitionFromDistinct ? kPickPartitioned : kPickHotCached;
}

/// partition_kernel for ranges of `range_bits` bits ranked by kRanking, and its dynamic shared memory.
struct PartitionKernel {
  void (*kernel)(const std::int32_t*, std::size_t, BinRule, std::uint32_t, std::uint32_t, std::uint16_t*, std::uint32_t*, PickedIf);
  std::size_t smem;
};
template <Ranking kRanking>
PartitionKernel partition_kernel_for(std::size_t range_bits) {
  constexpr unsigned kBitsMax = kRanking == Ranking::thread_counters ? kMaxCounterBits : kMaxRangeBits;
  return [&]<std::size_t... kBits>(std::index_sequence<kBits...>) {
    constexpr PartitionKernel kernels[] = {{&partition_kernel<kBits, kRanking>, PartitionSmem<kBits, kRanking>::bytes}...};
    return kernels[range_bits];
  }(std::make_index_sequence<kBitsMax + 1>{});
}

}  // namespace
}  // namespace histogram_detail
}  // namespace gpulab
