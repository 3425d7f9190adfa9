// gpulab::multi::histogram: each rank counts its shard (gpulab::histogram) and the counts are summed
// by an all-reduce, exact in any order.
#include <gpulab/histogram.hpp>
#include <gpulab/multi/histogram.hpp>

#include "lib/multi_phases.cuh"

namespace gpulab::multi {
namespace {

using namespace detail;

Phases histogram_phases(const std::int32_t* shard, std::size_t n, std::uint32_t m, std::uint32_t* counts,
                        cudaStream_t stream) {
  return {[=] { gpulab::histogram(shard, n, m, counts, stream); }, {all_reduce_sum(counts, counts, m, ncclUint32)}};
}

}  // namespace

void histogram(const std::int32_t* shard, std::size_t n, std::uint32_t m, std::uint32_t* counts, ncclComm_t comm,
               cudaStream_t stream) {
  run_one(comm, stream, [&](Place) { return histogram_phases(shard, n, m, counts, stream); });
}

void histogram(std::span<const HistogramRank> ranks, std::uint32_t m) {
  run_ranks(ranks, [m](const HistogramRank& r, Place) { return histogram_phases(r.shard, r.n, m, r.counts, r.stream); });
}

}  // namespace gpulab::multi
