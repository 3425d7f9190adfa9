// Float values into bins (include/gpulab/histogram.hpp): equal-width bins over [lo, hi]
// (torch.histc's rule) or the bins between sorted edges (torch.histogram's), of the whole input or
// of each row. Row r's values are counted into bins r·(m + 1) … r·(m + 1) + m, the last for values
// not counted (outside, NaN), and the first m of each row's copied out. Where rows·(m + 1) counters
// (and the edges) fit a block's shared memory, each value's bin is made where it is read by the
// int32 histogram's shared-memory paths (histogram_detail::run_in_shared): the values are read once.
// Past that, the int32 bin indices are made a chunk at a time in gpulab's stream pool (at most
// 64 MiB of them) and counted by histogram()'s paths, the chunks' counts added up: 12 bytes moved a
// float32 value where 4 would do, so the float ladder's rung 2 times it at every m.
#include "histogram/bin_of_float.hpp"
#include "histogram/histogram_common.cuh"
#include "histogram/histogram_paths.hpp"
#include "lib/launch.cuh"
#include "lib/stream_scratch.hpp"

#include <gpulab/error.hpp>
#include <gpulab/histogram.hpp>

#include <algorithm>
#include <cmath>
#include <string>

namespace gpulab {
namespace {

constexpr std::size_t kChunk = std::size_t{1} << 24;  // bin indices made at once: 64 MiB
constexpr unsigned kThreads = 256;

template <class Rule>
__global__ void bins_of(const typename Rule::Value* values, Rule rule, std::size_t start, std::size_t count, std::int32_t* bins) {
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count; i += std::size_t{gridDim.x} * blockDim.x)
    bins[i] = static_cast<std::int32_t>(bin_of(rule, values[start + i], start + i));
}

/// total[0, rule.bins()) = the counts of rule's bins over values[0, n): the bins made a chunk at a
/// time, each chunk counted by histogram().
template <class Rule>
void count_mapped(const char* what, const typename Rule::Value* values, std::size_t n, const Rule& rule, std::uint32_t* total,
                  cudaStream_t stream) {
  const std::size_t bins = rule.bins();
  const StreamScratch indices(std::min(n, kChunk) * sizeof(std::int32_t), stream);
  const StreamScratch part(n > kChunk ? bins * sizeof(std::uint32_t) : 0, stream);
  std::size_t done = 0;
  do {
    const std::size_t count = std::min(kChunk, n - done);
    if (count > 0)
      launch(what, bins_of<Rule>, {grid_stride_blocks(count, kThreads), kThreads}, stream, values, rule, done, count,
             indices.as<std::int32_t>())
          .work([] { return std::string("each value's bin, or its row's last where it is not counted, grid-stride"); });
    histogram(indices.as<const std::int32_t>(), count, static_cast<std::uint32_t>(bins), done == 0 ? total : part.as<std::uint32_t>(),
              stream);
    if (done > 0)
      launch("histogram_add_counts", histogram_common::add_chunk_counts<std::uint32_t>, {grid_stride_blocks(bins, kThreads), kThreads},
             stream, part.as<const std::uint32_t>(), bins, true, total)
          .work([] { return std::string("a chunk's counts added"); });
    done += count;
  } while (done < n);
}

enum class Counting { in_shared_where_it_fits, mapped };

/// total[0, counted.bins()) = the counts of values[0, n): made where read where the counters fit
/// shared memory, else (and as the float ladder's rung 2) mapped to bins in memory, then counted.
template <class Counted>
void count_values(const char* what, const typename Counted::Value* values, std::size_t n, const Counted& counted, std::uint32_t* total,
                  cudaStream_t stream, Counting counting) {
  if (counting == Counting::mapped || !histogram_detail::run_in_shared(values, n, counted, total, stream))
    count_mapped(what, values, n, counted, total, stream);
}

/// counts (rows × m) = each row's histogram of `rule`'s bins (RangeRule or EdgeRule) over values.
/// Where every row's counters together pass shared memory but one row's fit, the rows go in groups
/// that fit, a launch a group: each value is still read once (mapping them would write and read
/// back 4 bytes a value, and count rows·(m + 1) bins past shared memory).
template <class Rule>
void count_rows(const char* what, const typename Rule::Value* values, std::size_t rows, std::size_t cols, const Rule& rule,
                std::uint32_t* counts, cudaStream_t stream, Counting counting) {
  const std::size_t row_bins = std::size_t{rule.m} + 1;
  const StreamScratch total(rows * row_bins * sizeof(std::uint32_t), stream);
  if (rows == 1) {
    count_values(what, values, cols, WholeInput<Rule>{rule}, total.as<std::uint32_t>(), stream, counting);
  } else {
    const UnsignedDivider by_cols(static_cast<std::uint32_t>(std::max<std::size_t>(cols, 1)));
    const std::size_t fit = histogram_detail::shared_bins_limit(staged_bytes(rule)) / row_bins;  // rows a launch
    const std::size_t per_group = fit == 0 || counting == Counting::mapped ? rows : std::min(rows, fit);
    for (std::size_t first = 0; first < rows; first += per_group) {
      const std::size_t group = std::min(per_group, rows - first);
      count_values(what, values + first * cols, group * cols, PerRow<Rule>{rule, by_cols, static_cast<std::uint32_t>(group)},
                   total.as<std::uint32_t>() + first * row_bins, stream, counting);
    }
  }
  const std::size_t row_bytes = std::size_t{rule.m} * sizeof(std::uint32_t);
  GPULAB_CUDA_CHECK(cudaMemcpy2DAsync(counts, row_bytes, total.as<const std::uint32_t>(), row_bytes + sizeof(std::uint32_t), row_bytes,
                                      rows, cudaMemcpyDeviceToDevice, stream));
}

void check_shape(const char* what, const void* values, std::size_t rows, std::size_t cols, std::uint32_t m,
                 const std::uint32_t* counts) {
  const std::string name(what);
  constexpr std::size_t kBelow32 = (std::size_t{1} << 32) - 1;
  if (counts == nullptr || (values == nullptr && rows * cols > 0)) throw Error(name + ": null device pointer");
  if (m == 0 || m == 0xFFFFFFFFu) throw Error(name + ": m = " + std::to_string(m) + " bins; m must be in [1, 2^32 − 1)");
  if (rows == 0) throw Error(name + ": rows = 0; at least one row");
  if (cols != 0 && rows > kBelow32 / cols)
    throw Error(name + ": " + std::to_string(rows) + " × " + std::to_string(cols) + " values; counts are 32-bit, so fewer than 2^32");
  if (rows > kBelow32 / (std::size_t{m} + 1))
    throw Error(name + ": " + std::to_string(rows) + " rows of " + std::to_string(m) + " bins; rows·(m + 1) must be below 2^32");
}

template <class T>
void range_rows(const T* values, std::size_t rows, std::size_t cols, std::uint32_t m, T lo, T hi, std::uint32_t* counts,
                cudaStream_t stream, Counting counting) {
  check_shape("histogram_range", values, rows, cols, m, counts);
  if (!(std::isfinite(lo) && std::isfinite(hi) && lo < hi))
    throw Error("histogram_range: the range must be finite with lo < hi, got [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  count_rows("histogram_range_bins", values, rows, cols, range_rule(m, lo, hi), counts, stream, counting);
}

template <class T>
void edges_rows(const T* values, std::size_t rows, std::size_t cols, const T* edges, std::uint32_t m, std::uint32_t* counts,
                cudaStream_t stream, Counting counting) {
  check_shape("histogram_edges", values, rows, cols, m, counts);
  if (edges == nullptr) throw Error("histogram_edges: null device pointer");
  count_rows("histogram_edges_bins", values, rows, cols, EdgeRule<T>{edges, m}, counts, stream, counting);
}

}  // namespace

template <class T>
void histogram_range_rows(const T* values, std::size_t rows, std::size_t cols, std::uint32_t m, T lo, T hi, std::uint32_t* counts,
                          cudaStream_t stream) {
  range_rows(values, rows, cols, m, lo, hi, counts, stream, Counting::in_shared_where_it_fits);
}

template <class T>
void histogram_edges_rows(const T* values, std::size_t rows, std::size_t cols, const T* edges, std::uint32_t m, std::uint32_t* counts,
                          cudaStream_t stream) {
  edges_rows(values, rows, cols, edges, m, counts, stream, Counting::in_shared_where_it_fits);
}

template <class T>
void histogram_range(const T* values, std::size_t n, std::uint32_t m, T lo, T hi, std::uint32_t* counts, cudaStream_t stream) {
  histogram_range_rows(values, 1, n, m, lo, hi, counts, stream);
}

template <class T>
void histogram_edges(const T* values, std::size_t n, const T* edges, std::uint32_t m, std::uint32_t* counts, cudaStream_t stream) {
  histogram_edges_rows(values, 1, n, edges, m, counts, stream);
}

namespace histogram_detail {

template <class T>
void histogram_range_mapped(const T* values, std::size_t n, std::uint32_t m, T lo, T hi, std::uint32_t* counts, cudaStream_t stream) {
  range_rows(values, 1, n, m, lo, hi, counts, stream, Counting::mapped);
}

template <class T>
void histogram_edges_mapped(const T* values, std::size_t n, const T* edges, std::uint32_t m, std::uint32_t* counts,
                            cudaStream_t stream) {
  edges_rows(values, 1, n, edges, m, counts, stream, Counting::mapped);
}

}  // namespace histogram_detail

#define GPULAB_FLOAT_HISTOGRAMS(T)                                                                                                       \
  template void histogram_range<T>(const T*, std::size_t, std::uint32_t, T, T, std::uint32_t*, cudaStream_t);                           \
  template void histogram_edges<T>(const T*, std::size_t, const T*, std::uint32_t, std::uint32_t*, cudaStream_t);                       \
  template void histogram_range_rows<T>(const T*, std::size_t, std::size_t, std::uint32_t, T, T, std::uint32_t*, cudaStream_t);          \
  template void histogram_edges_rows<T>(const T*, std::size_t, std::size_t, const T*, std::uint32_t, std::uint32_t*, cudaStream_t);      \
  template void histogram_detail::histogram_range_mapped<T>(const T*, std::size_t, std::uint32_t, T, T, std::uint32_t*, cudaStream_t); \
  template void histogram_detail::histogram_edges_mapped<T>(const T*, std::size_t, const T*, std::uint32_t, std::uint32_t*, cudaStream_t);
GPULAB_FLOAT_HISTOGRAMS(float)
GPULAB_FLOAT_HISTOGRAMS(double)
#undef GPULAB_FLOAT_HISTOGRAMS

}  // namespace gpulab
