// The library's histogram (include/gpulab/histogram.hpp), its entry: the arguments checked, and
// the path taken. Its dispatch (the rules by m, n and the device, the launches) is in
// histogram_dispatch.cu, its paths' kernels in histogram_path_kernels.cuh: nine paths, each a rung
// of the ladder (6–14), and this choice among them the top rung (15).
#include "histogram/histogram_paths.hpp"

#include <gpulab/error.hpp>
#include <gpulab/histogram.hpp>

#include <string>

namespace gpulab {
namespace histogram_detail {

void check_arguments(const std::int32_t* values, std::size_t n, std::uint32_t m, const std::uint32_t* counts) {
  if (counts == nullptr || (values == nullptr && n > 0)) throw Error("histogram: null device pointer");
  if (m == 0) throw Error("histogram: m = 0 bins; m must be at least 1");
  if (n >= (std::size_t{1} << 32))
    throw Error("histogram: n = " + std::to_string(n) + " values; counts are 32-bit, so n must be below 2^32");
}

}  // namespace histogram_detail

void histogram(const std::int32_t* values, std::size_t n, std::uint32_t m, std::uint32_t* counts,
               cudaStream_t stream) {
  if (histogram_detail::takes_sample(n, m))  // each path checks the arguments
    histogram_detail::run_sampled(values, n, m, counts, stream);
  else
    histogram_detail::run(histogram_detail::choose(n, m), values, n, m, counts, nullptr, 0, stream);
}

std::string_view histogram_path_name(std::size_t n, std::uint32_t m) {
  if (m > 0 && histogram_detail::takes_sample(n, m))
    return histogram_detail::partition_path(m) == histogram_detail::Path::range_ranked
               ? "sampled: range_ranked or hot_cached_global"
               : "sampled: range_partitioned or hot_cached_global";
  switch (histogram_detail::choose(n, m)) {
    case histogram_detail::Path::packed_registers: return "packed_registers";
    case histogram_detail::Path::replicated_resident: return "replicated_resident";
    case histogram_detail::Path::halfword_shared: return "halfword_shared";
    case histogram_detail::Path::cluster_shared: return "cluster_shared";
    case histogram_detail::Path::cluster16_shared: return "cluster16_shared";
    case histogram_detail::Path::global_runs: return "global_runs";
    case histogram_detail::Path::hot_cached_global: return "hot_cached_global";
    case histogram_detail::Path::range_partitioned: return "range_partitioned";
    case histogram_detail::Path::range_ranked: return "range_ranked";
  }
  return "?";
}

}  // namespace gpulab
