// 64-bit counts (include/gpulab/histogram.hpp): any number of values. Chunks of fewer than 2^32
// values are counted by histogram() into 32-bit counts in gpulab's stream pool (no chunk's count can
// overflow them), and each chunk's counts are widened and added into the 64-bit counts.
#include "histogram/histogram_common.cuh"
#include "lib/launch.cuh"
#include "lib/stream_scratch.hpp"

#include <gpulab/error.hpp>
#include <gpulab/histogram.hpp>

#include <algorithm>

namespace gpulab {
namespace {

constexpr std::size_t kChunk = (std::size_t{1} << 32) - 1;  // the most values histogram() counts at once

}  // namespace

void histogram(const std::int32_t* values, std::size_t n, std::uint32_t m, std::uint64_t* counts, cudaStream_t stream) {
  if (counts == nullptr || (values == nullptr && n > 0)) throw Error("histogram: null device pointer");
  if (m == 0) throw Error("histogram: m = 0 bins; m must be at least 1");
  const StreamScratch chunk(std::size_t{m} * sizeof(std::uint32_t), stream);
  constexpr unsigned kThreads = 256;
  std::size_t done = 0;
  do {
    const std::size_t count = std::min(kChunk, n - done);
    histogram(values + done, count, m, chunk.as<std::uint32_t>(), stream);
    launch("histogram_widen", histogram_common::add_chunk_counts<std::uint64_t>, {grid_stride_blocks(m, kThreads), kThreads}, stream,
           chunk.as<const std::uint32_t>(), std::size_t{m}, done > 0, counts)
        .work([] { return std::string("a chunk's 32-bit counts added into the 64-bit ones"); });
    done += count;
  } while (done < n);
}

}  // namespace gpulab
