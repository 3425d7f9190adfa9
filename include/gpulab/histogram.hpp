// gpulab/histogram.hpp — counts of int32 values in m bins, the top rung of gpulab's histogram
// ladder; and sums of weights by bin (histogram_weighted, below).
//
//   gpulab::histogram(d_values, n, m, d_counts, stream);
//
// Contract
// - `values` points to n int32 in device memory (any alignment of int32; n = 0 is allowed),
//   `counts` to m uint32 in device memory. 1 ≤ m < 2^32 and n < 2^32 (so no count can overflow;
//   the form with 64-bit counts below takes any n);
//   m is limited in practice only by the memory `counts` takes.
// - Value v goes to bin ((v % m) + m) % m: non-negative values to v mod m, negative ones too
//   (−1 to m − 1). Every counts[b] is overwritten: nothing needs zeroing first.
// - The path is chosen from m and the device (see docs/histogram.md): per-thread counters packed
//   in registers for m ≤ 8; lane-replicated sub-histograms in shared memory while two copies fit
//   (m ≤ ~7000 on an H100); 16-bit counters in shared memory while they fit (m ≤ ~116 000); past
//   that, global atomics, with the bins a sample of each block's values finds counted in that
//   block's shared memory first (hot bins stay off the global atomics, whatever the distribution);
//   from 2^24 values, where a sample of the values (taken on the device) finds most of them alone
//   in their bins, the values partitioned by range of bins first and each range counted in one
//   block's shared memory.
// - Exact and deterministic (integer counts). Asynchronous on `stream`: a memset and one kernel
//   launch; from 2^24 values past shared memory, the sample and both paths' kernels (the one not
//   picked returns at once) and about 2n bytes of temporary storage from gpulab's stream-ordered
//   pool, given back in stream order (if it cannot grow, the path without storage). Safe inside a
//   CUDA graph capture.
// - Throws gpulab::Error on a null pointer, n ≥ 2^32, m = 0, and any CUDA error of the launch.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace gpulab {

/// counts[b] = #{ i < n : ((values[i] % m) + m) % m == b } for every b < m.
void histogram(const std::int32_t* values, std::size_t n, std::uint32_t m, std::uint32_t* counts,
               cudaStream_t stream = nullptr);

/// 64-bit counts, for any n (a bin may hold 2^32 values or more): counts[b] as above. Chunks of
/// fewer than 2^32 values counted by the function above into m 32-bit counts of gpulab's stream pool
/// (4m bytes, given back in stream order), each chunk's added into `counts`: two launches a chunk.
/// Throws gpulab::Error on a null pointer (values may be null where n = 0), m = 0; OutOfMemoryError
/// where the pool cannot hold the 32-bit counts.
void histogram(const std::int32_t* values, std::size_t n, std::uint32_t m, std::uint64_t* counts,
               cudaStream_t stream = nullptr);

/// Float values (T float or double) into m equal-width bins over [lo, hi], torch.histc's rule: value
/// v goes to bin (int)((v − lo)·m / (hi − lo)), computed in T; v == hi to bin m − 1; values outside
/// [lo, hi] and NaN are not counted. lo < hi finite, 1 ≤ m < 2^32 − 1, n < 2^32. Where m + 1
/// counters fit a block's shared memory (m ≤ ~116 000 on an H100) each value's bin is made where it
/// is counted, the values read once; past that the bins are made a chunk of at most 2^24 at a time
/// and counted by histogram(). Storage: 4(m + 1) bytes of gpulab's stream pool (past shared memory
/// also 64 MiB for a chunk's bins and what histogram() takes). Exact and deterministic. Throws
/// gpulab::Error on a null pointer, a bad range, m or n.
template <class T>
void histogram_range(const T* values, std::size_t n, std::uint32_t m, T lo, T hi, std::uint32_t* counts,
                     cudaStream_t stream = nullptr);

/// Float values into the m bins between m + 1 edges sorted ascending (device memory),
/// torch.histogram's rule: bin b holds edges[b] ≤ v < edges[b + 1], the last bin also v == edges[m];
/// values outside [edges[0], edges[m]] and NaN are not counted (unsorted edges: counts unspecified).
/// As histogram_range otherwise (the edges and a guide to them take shared memory too: counted where
/// read up to m ≈ 23 000 float32 edges, 16 000 float64, on an H100); a search of ~2 steps a value
/// for spread edges.
template <class T>
void histogram_edges(const T* values, std::size_t n, const T* edges, std::uint32_t m, std::uint32_t* counts,
                     cudaStream_t stream = nullptr);

/// A histogram per row of a rows × cols input (row-major, contiguous) in one call: row r's values
/// into counts[r·m, (r + 1)·m) by the rules above. rows ≥ 1, rows·cols < 2^32, rows·(m + 1) < 2^32.
template <class T>
void histogram_range_rows(const T* values, std::size_t rows, std::size_t cols, std::uint32_t m, T lo, T hi,
                          std::uint32_t* counts, cudaStream_t stream = nullptr);
template <class T>
void histogram_edges_rows(const T* values, std::size_t rows, std::size_t cols, const T* edges, std::uint32_t m,
                          std::uint32_t* counts, cudaStream_t stream = nullptr);

/// Weighted: sums[b] = the sum of weights[i] over the values[i] of bin b (the bin rule above), for W
/// float or double; an empty bin gets 0. Any n, any 1 ≤ m < 2^32. The same bits on every call (no
/// float atomics). float32 up to ~14 000 bins on an H100, float64 up to ~330: the exact sum, rounded
/// once to W, the same bits on every GPU (each weight an integer number of its type's smallest
/// subnormal, added as three (float32) or six (float64) 12-bit digits to counters in shared memory,
/// float32 in up to six passes over the bins, float64 in one; +Inf, -Inf, NaN as IEEE addition gives
/// them); m·196 (float32) or m·1412 (float64) bytes of `temp`. Otherwise, up to histogram_weighted_max_bins() (a warp's
/// sub-histogram of doubles in a block's shared memory: ~29 000 bins on an H100, ~8 000 on a T4):
/// summed in double and rounded once to W, each warp adding a chunk's weights of one bin in lane
/// order into its own sub-histogram, blocks' partial sums added in block order; two launches.
/// Past it: the (bin, weight) pairs sorted by bin (CUB's radix sort, stable) and summed by
/// inclusive_segmented_scan_by_key; about 24n bytes and CUB's sort storage. `temp`:
/// histogram_weighted_temp_bytes(n, m) bytes of device memory, any content. Throws gpulab::Error on
/// a null pointer (where n > 0), m = 0, temp too small.
template <class W>
void histogram_weighted(const std::int32_t* values, const W* weights, std::size_t n, std::uint32_t m, W* sums, void* temp,
                        std::size_t temp_bytes, cudaStream_t stream = nullptr);

/// Bytes of temporary storage histogram_weighted needs for n values into m bins on the current device.
std::size_t histogram_weighted_temp_bytes(std::size_t n, std::uint32_t m);

/// The most bins histogram_weighted sums in shared memory on the current device (past them it sorts).
std::uint32_t histogram_weighted_max_bins();

/// The path histogram() takes for n values into m bins on the current device, in words
/// ("packed_registers", "replicated_resident", "halfword_shared", "hot_cached_global", or "sampled:
/// range_ranked or hot_cached_global" where a sample of the values decides; range_partitioned in
/// place of range_ranked past 2^21 bins).
std::string_view histogram_path_name(std::size_t n, std::uint32_t m);

}  // namespace gpulab
