// The library's histogram paths, each callable on its own so that the ladder can time every one
// (rungs 6–14) and the library's histogram() (the top rung) picks among them by m, n and device.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace gpulab::histogram_detail {

enum class Path {
  packed_registers,   // m ≤ 8: eight 8-bit counters packed in one 64-bit register per thread
  replicated_resident,  // sub-histograms in shared memory, replicated per lane, resident grid
  halfword_shared,    // 16-bit counters in shared memory, spilling to global ones: twice the bins
  cluster_shared,     // bins spread over a thread-block cluster's shared memory, passes over ranges
  cluster16_shared,   // the same over a cluster of 16 blocks where it fits: half the passes
  global_runs,        // global atomics, runs of equal bins combined in registers first
  hot_cached_global,  // global_runs with the bins a sample finds counted in shared memory
  range_partitioned,  // values partitioned by range of bins first, each range counted in one block
  range_ranked,       // the same with each value's place in its tile from thread-private counters (m ≤ 2^21)
};

/// Whether `path` can run m bins on the current device.
bool supports(Path path, std::uint32_t m);

/// Bytes of temporary device storage `path` needs for n values into m bins (0: none). The storage
/// needs no initialisation.
std::size_t temp_bytes(Path path, std::size_t n, std::uint32_t m);

/// counts[0, m) = the histogram of values[0, n), asynchronously on `stream`, with `temp_capacity`
/// bytes of device storage at `temp` (at least temp_bytes(path, n, m)). Throws gpulab::Error, before
/// anything is enqueued, when the path does not support m here (see supports()) or the storage is
/// too small.
void run(Path path, const std::int32_t* values, std::size_t n, std::uint32_t m, std::uint32_t* counts, void* temp,
         std::size_t temp_capacity, cudaStream_t stream);

/// The path histogram() takes for n values into m bins, where it needs no look at the values.
/// Past shared memory and from 2^24 values histogram() samples them on the device first and takes
/// partition_path(m) or hot_cached_global (see sampled_pick()).
Path choose(std::size_t n, std::uint32_t m);

/// The partition histogram() takes for m bins where its sample finds the values spread: range_ranked
/// where it supports m, range_partitioned beyond.
Path partition_path(std::uint32_t m);

/// Throws gpulab::Error on arguments no path takes: null pointers (values with n > 0), m = 0, n of
/// 2^32 or more (the counts are 32-bit).
void check_arguments(const std::int32_t* values, std::size_t n, std::uint32_t m, const std::uint32_t* counts);

/// Whether histogram() samples the values first: past shared memory, from 2^24 values, where the
/// partition can run m bins.
bool takes_sample(std::size_t n, std::uint32_t m);

/// histogram()'s run where takes_sample(): a sample of the values picks, on the device, between
/// hot_cached_global and partition_path(m); both paths' kernels launch, the one not picked returns
/// at once (hot_cached_global alone where gpulab's pool has no storage for the partition).
void run_sampled(const std::int32_t* values, std::size_t n, std::uint32_t m, std::uint32_t* counts, cudaStream_t stream);

/// What histogram()'s sample of values[0, n) picks (synchronises `stream`; for tests and tools).
Path sampled_pick(const std::int32_t* values, std::size_t n, std::uint32_t m, cudaStream_t stream);

/// counts[0, rule.bins()) = how many of values[0, n) fall in each of the rule's bins, each value's bin
/// made where it is read, by the shared-memory path histogram() would take for that many bins
/// (packed_registers, replicated_resident, halfword_shared) with the rule's tables beside the
/// counters; false, with nothing enqueued, where none fits (the float forms then make the bins in
/// memory and count them with histogram()). Rules: bin_of_float.hpp's WholeInput and PerRow of
/// RangeRule and EdgeRule, float and double.
template <class Rule>
bool run_in_shared(const typename Rule::Value* values, std::size_t n, const Rule& rule, std::uint32_t* counts, cudaStream_t stream);

/// The most bins run_in_shared takes on the current device for a rule with `table_bytes` of tables
/// (halfword_shared's counters beside them in one block's shared memory; 0: not even one).
std::uint32_t shared_bins_limit(std::size_t table_bytes);

/// The float forms with every value's bin made in memory a chunk at a time, then counted by
/// histogram(), whatever m: what histogram_range / histogram_edges do past shared memory (the float
/// ladder's rung 2).
template <class T>
void histogram_range_mapped(const T* values, std::size_t n, std::uint32_t m, T lo, T hi, std::uint32_t* counts, cudaStream_t stream);
template <class T>
void histogram_edges_mapped(const T* values, std::size_t n, const T* edges, std::uint32_t m, std::uint32_t* counts,
                            cudaStream_t stream);

/// histogram_weighted's shared-memory path with each bin's lanes found by __match_any_sync whatever
/// m, where the library takes ballots of the bin's bits up to 256 bins (the weighted ladder's rung
/// 2): m ≤ histogram_weighted_max_bins(), the same storage, the same bits.
template <class W>
void histogram_weighted_by_match(const std::int32_t* values, const W* weights, std::size_t n, std::uint32_t m, W* sums, void* temp,
                                 std::size_t temp_bytes, cudaStream_t stream);
/// The library's path past the digits, whatever m: ballots up to 256 bins,
/// then as above, then sorted; for tests, which compare its groups with __match_any_sync's.
template <class W>
void histogram_weighted_by_ballots(const std::int32_t* values, const W* weights, std::size_t n, std::uint32_t m, W* sums, void* temp,
                                   std::size_t temp_bytes, cudaStream_t stream);

/// Weights summed exactly as carry-save digits, W float or double, m ≤
/// histogram_weighted_digits_max_bins<W>(): float32 up to six passes (the library's float32 path),
/// float64 up to two, each over the bins a block's shared memory holds (the weighted ladder's rung
/// 5): sums[b] the exact sum rounded once to W; Inf and NaN as IEEE addition gives them. `temp`:
/// histogram_weighted_digits_temp_bytes<W>(m) bytes, any content. `tiles_per_flush` (0: the most
/// that keeps the block's 32-bit counters exact) is there for tests, which make the flushes frequent.
template <class W>
void histogram_weighted_digits(const std::int32_t* values, const W* weights, std::size_t n, std::uint32_t m, W* sums, void* temp,
                               std::size_t temp_bytes, cudaStream_t stream, unsigned tiles_per_flush = 0);
template <class W>
std::uint32_t histogram_weighted_digits_max_bins();
/// The bins up to which the library takes the digits: float32 all six passes, float64 one.
template <class W>
std::uint32_t histogram_weighted_digits_library_bins();
template <class W>
std::size_t histogram_weighted_digits_temp_bytes(std::uint32_t m);

/// Weights summed exactly as carry-save digits by ranges of bins, any m (the weighted ladder's rung
/// 6): each element's bin, the (bin, weight) pairs sorted by range (CUB's radix sort), a block a
/// range adding its elements' digits in shared memory and rounding its bins. Every value in one
/// range is one block's work. `temp`: histogram_weighted_range_digits_temp_bytes<W>(n, m) bytes.
template <class W>
void histogram_weighted_range_digits(const std::int32_t* values, const W* weights, std::size_t n, std::uint32_t m, W* sums, void* temp,
                                     std::size_t temp_bytes, cudaStream_t stream);
template <class W>
std::size_t histogram_weighted_range_digits_temp_bytes(std::size_t n, std::uint32_t m);

}  // namespace gpulab::histogram_detail
