// The float histogram's ladder (float_histogram_problem.hpp): an atomicAdd a value in global memory,
// as the course's first histogram does; each value's bin written to memory, then counted by the
// int32 histogram; the library (histogram_float.cu), which makes the bins where it counts them. No vendor: CUB's
// HistogramEven and HistogramRange use other rules (a half-open last bin), and NPP has no float
// histogram of a vector.
#include "histogram/bin_of_float.hpp"
#include "histogram/float_histogram_problem.hpp"
#include "histogram/histogram_paths.hpp"
#include "lib/launch.cuh"
#include "lib/launch_limits.hpp"

#include <gpulab/error.hpp>
#include <gpulab/histogram.hpp>


namespace gpulab {
namespace {

// ---- rung 1: an atomic a value -----------------------------------------------------------------

template <class Rule>
__global__ void atomic_counts_kernel(const typename Rule::Value* values, Rule rule, std::size_t n, std::uint32_t m,
                                     std::uint32_t* counts) {
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    const std::uint32_t bin = rule(values[i]);
    if (bin < m) atomicAdd(&counts[bin], 1u);
  }
}

template <class Rule>
void atomic_counts(const typename Rule::Value* values, const Rule& rule, std::size_t n, std::uint32_t m, std::uint32_t* counts,
                   cudaStream_t stream) {
  GPULAB_CUDA_CHECK(cudaMemsetAsync(counts, 0, std::size_t{m} * sizeof(std::uint32_t), stream));
  if (n == 0) return;
  constexpr unsigned kThreads = 256;
  const unsigned blocks = resident_grid(reinterpret_cast<const void*>(atomic_counts_kernel<Rule>), n, kThreads);
  launch("atomic_float_counts", atomic_counts_kernel<Rule>, {blocks, kThreads}, stream, values, rule, n, m, counts)
      .work([] { return std::string("a value's bin, an atomicAdd to it in global memory, grid-stride"); });
}

template <class T>
void global_atomics(const FloatHistogramArgs<T>& a, std::uint32_t* counts, cudaStream_t stream) {
  if (a.edges != nullptr) atomic_counts(a.values, EdgeRule<T>{a.edges, a.m}, a.n, a.m, counts, stream);
  else atomic_counts(a.values, RangeRule<T>{a.m, a.lo, a.hi}, a.n, a.m, counts, stream);
}

// ---- rung 2: each value's bin written to memory, then counted by the int32 histogram -------------
// Adds over rung 1: counters in shared memory (whichever of gpulab::histogram's paths m + 1 bins
// take), at the cost of writing and reading back a 4-byte bin a value; torch.histc's division made
// from the range's reciprocal (range_rule: three instructions where the division takes eight).

template <class T>
void map_then_count(const FloatHistogramArgs<T>& a, std::uint32_t* counts, cudaStream_t stream) {
  if (a.edges != nullptr) histogram_detail::histogram_edges_mapped(a.values, a.n, a.edges, a.m, counts, stream);
  else histogram_detail::histogram_range_mapped(a.values, a.n, a.m, a.lo, a.hi, counts, stream);
}

// ---- the library: the bin made where it is counted --------------------------------------------
// Adds over rung 2: where m + 1 counters (and the edges) fit a block's shared memory, the int32
// histogram's shared-memory kernels read the float values and make each bin in registers (the edges
// searched in shared memory): the values read once, nothing written but the counts.

template <class T>
void library(const FloatHistogramArgs<T>& a, std::uint32_t* counts, cudaStream_t stream) {
  if (a.edges != nullptr) histogram_edges(a.values, a.n, a.edges, a.m, counts, stream);
  else histogram_range(a.values, a.n, a.m, a.lo, a.hi, counts, stream);
}

template <class T>
constexpr FloatHistogramRung<T> kRungs[] = {
    {{"global_atomics", "each value's bin (torch.histc's or torch.histogram's rule), an atomicAdd to it in global memory",
      Role::rung, false, false, "dram"},
     {&global_atomics<T>}},
    {{"map_then_count",
      "each value's bin (m where not counted) written to memory a chunk of 2^24 at a time, then counted into m + 1 bins by "
      "gpulab::histogram's paths",
      Role::rung, false, false, "dram"},
     {&map_then_count<T>}},
    {{"library",
      "gpulab::histogram_range / histogram_edges: each value's bin made in registers by the int32 histogram's shared-memory "
      "kernels (the edges searched in shared memory); past them as rung 2",
      Role::library, false, false, "dram"},
     {&library<T>}},
};

}  // namespace

template <class T>
std::span<const FloatHistogramRung<T>> float_histogram_rungs() {
  return kRungs<T>;
}

template std::span<const FloatHistogramRung<float>> float_histogram_rungs<float>();
template std::span<const FloatHistogramRung<double>> float_histogram_rungs<double>();

}  // namespace gpulab
