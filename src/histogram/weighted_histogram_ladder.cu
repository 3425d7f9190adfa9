// The weighted histogram's ladder (weighted_histogram_problem.hpp): every weight added to its bin
// by a float atomic in global memory, as PyTorch's bincount(weights=) does; warp-owned
// sub-histograms with each bin's lanes found by __match_any_sync; the library (histogram_weighted.cu),
// which finds them by ballots of the bin's bits up to 256 bins. No vendor: CUB's histograms count.
#include "histogram/bin_rule.hpp"
#include "histogram/histogram_paths.hpp"
#include "histogram/weighted_histogram_problem.hpp"
#include "lib/launch.cuh"
#include "lib/launch_limits.hpp"

#include <gpulab/error.hpp>
#include <gpulab/histogram.hpp>

#include <algorithm>

namespace gpulab {
namespace {

// ---- rung 1: an atomic a weight --------------------------------------------------------------
//
// The course's histogram with a weight: one atomicAdd of the weight (in W) to its bin in global
// memory. The order of a bin's additions is the hardware's, so the float bits change from call to
// call, and a bin many values share serialises on one address.

template <class W>
__global__ void atomic_weights_kernel(const std::int32_t* values, const W* weights, std::size_t n, BinRule rule, W* sums) {
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    atomicAdd(&sums[rule(values[i])], weights[i]);
}

std::size_t no_workspace(std::size_t, std::uint32_t) { return 0; }

template <class W>
void global_atomics(const std::int32_t* values, const W* weights, std::size_t n, std::uint32_t m, W* sums, void*, std::size_t,
                    cudaStream_t stream) {
  GPULAB_CUDA_CHECK(cudaMemsetAsync(sums, 0, std::size_t{m} * sizeof(W), stream));
  if (n == 0) return;
  constexpr unsigned kThreads = 256;
  const void* kernel = reinterpret_cast<const void*>(atomic_weights_kernel<W>);
  const auto blocks = static_cast<unsigned>(
      std::min<std::size_t>((n + kThreads - 1) / kThreads, std::max(1u, resident_blocks(kernel, kThreads))));
  launch("atomic_weights", atomic_weights_kernel<W>, {blocks, kThreads}, stream, values, weights, n, BinRule(m), sums)
      .work([] { return std::string("an atomicAdd a weight, grid-stride"); });
}

// ---- rung 2: warp-owned sub-histograms, each bin's lanes found by __match_any_sync -------------
// ---- the library: the same, the lanes found by ballots of the bin's bits up to 256 bins --------
// Both are the library's own calls (histogram_detail::histogram_weighted_by_match, gpulab::
// histogram_weighted), with its storage.

template <class W>
constexpr WeightedHistogramRung<W> kRungs[] = {
    {{"global_atomics",
      "an atomicAdd of each weight to its bin in global memory (PyTorch's bincount): the bits change from call to call",
      Role::rung, false, false, "dram"},
     {&no_workspace, &global_atomics<W>, /*sums_in_w=*/true}},
    {{"match_groups",
      "a sub-histogram of doubles a warp in shared memory; in each chunk of 32 the lanes of one bin found by "
      "__match_any_sync, their weights summed in lane order by the lowest lane; blocks' partials added in order",
      Role::rung, false, false, "dram"},
     {&histogram_weighted_temp_bytes, &histogram_detail::histogram_weighted_by_match<W>, false, /*shared_memory_only=*/true}},
    {{"library",
      "gpulab::histogram_weighted: rung 2 with a chunk's lanes of one bin found by ballots of the bin's bits up to 256 "
      "bins (a vote first: one bin?), which the MIO pipe bears better there; past shared memory sorted by bin and "
      "summed by a segmented scan by key: the same bits every call",
      Role::library, false, false, "dram"},
     {&histogram_weighted_temp_bytes, &histogram_weighted<W>}},
};

}  // namespace

template <class W>
std::span<const WeightedHistogramRung<W>> weighted_histogram_rungs() {
  return kRungs<W>;
}

template std::span<const WeightedHistogramRung<float>> weighted_histogram_rungs<float>();
template std::span<const WeightedHistogramRung<double>> weighted_histogram_rungs<double>();

}  // namespace gpulab
