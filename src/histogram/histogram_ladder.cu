// The histogram ladder's table (see histogram_ladder.hpp): launchers for the seed's rungs
// (histogram_kernels.cuh), the library's paths one by one, the library's choice, and the vendor.
#include "histogram/histogram_kernels.cuh"
#include "histogram/histogram_ladder.hpp"
#include "histogram/histogram_paths.hpp"
#include "lib/arith.hpp"
#include "lib/launch.cuh"
#include "lib/launch_limits.hpp"
#include "lib/per_device.hpp"

#include <gpulab/error.hpp>
#include <gpulab/histogram.hpp>

#include <cub/device/device_histogram.cuh>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <limits>
#include <string>

namespace gpulab {
namespace {

using namespace histogram_ladder;

constexpr std::size_t kCountBytes = sizeof(std::uint32_t);
constexpr std::size_t kDefaultSharedBytes = 48 * 1024;  // what a block gets without opting in
// Rungs 3 and 4 keep a row of m counts per block: at most this many counts in all (256 MiB).
constexpr std::size_t kMaxRowCounts = std::size_t{1} << 26;


void require_valid_block(unsigned block) {
  if (!valid_histogram_block(block))
    throw Error("histogram: " + std::to_string(block) + " threads per block is not a multiple of 32 in [32, 1024]");
}

/// The most dynamic shared memory a block of every shared-memory rung may opt in to on the current
/// device (lib/launch_limits: the treated-as family's limit less each kernel's static storage); the
/// first call per device also lets the rungs use it.
std::size_t shared_optin_bytes() {
  static PerDevice<std::size_t> cache;
  return cache.get([] {
    std::size_t least = std::numeric_limits<std::size_t>::max();
    for (const void* kernel : {reinterpret_cast<const void*>(histogram_shared_atomics),
                               reinterpret_cast<const void*>(histogram_by_block_shared),
                               reinterpret_cast<const void*>(histogram_replicated)}) {
      const std::size_t limit = dynamic_smem_limit(kernel);
      allow_dynamic_smem(kernel, limit, "histogram");
      least = std::min(least, limit);
    }
    return least;
  });
}

bool fits_shared(std::uint32_t m) { return std::size_t{m} * kCountBytes <= shared_optin_bytes(); }
// What a rung can count, by the table's signature (n values, m bins).
bool shared_bins(std::size_t, std::uint32_t m) { return fits_shared(m); }
bool any_bins(std::size_t, std::uint32_t m) { return m >= 1; }

unsigned grid_for(std::size_t n, unsigned block) {
  return static_cast<unsigned>(std::max<std::size_t>(1, ceil_div(n, block)));  // n < 2^32: fits
}

void zero_counts(std::uint32_t* counts, std::uint32_t m, cudaStream_t stream) {
  GPULAB_CUDA_CHECK(cudaMemsetAsync(counts, 0, std::size_t{m} * kCountBytes, stream));
}

std::size_t no_workspace(std::size_t, std::uint32_t, unsigned) { return 0; }

// ---- rungs 1, 2, 5: one value per thread, straight into the histogram or via shared memory -----

struct GlobalAtomics {
  static void run(const std::int32_t* values, std::size_t n, std::uint32_t m, std::uint32_t* counts, void*,
                  std::size_t, unsigned block, cudaStream_t stream) {
    require_valid_block(block);
    zero_counts(counts, m, stream);
    launch("histogram", histogram_global_atomics, {grid_for(n, block), block}, stream, values, n, BinRule(m), counts);
  }
};

struct SharedAtomics {
  static void run(const std::int32_t* values, std::size_t n, std::uint32_t m, std::uint32_t* counts, void*,
                  std::size_t, unsigned block, cudaStream_t stream) {
    require_valid_block(block);
    if (!fits_shared(m)) throw Error("histogram: shared_atomics cannot hold " + std::to_string(m) + " bins in shared memory");
    zero_counts(counts, m, stream);
    launch("histogramShared", histogram_shared_atomics, {grid_for(n, block), block, m * kCountBytes}, stream, values, n,
           BinRule(m), counts);
  }
};

/// Rung 5's replicas: the most (a power of two ≤ 32) whose copies fit the default 48 KiB.
unsigned rung5_replicas(std::uint32_t m) {
  unsigned r = 32;
  while (r > 1 && std::size_t{m} * r * kCountBytes > kDefaultSharedBytes) r /= 2;
  return r;
}

struct Replicated {
  static void run(const std::int32_t* values, std::size_t n, std::uint32_t m, std::uint32_t* counts, void*,
                  std::size_t, unsigned block, cudaStream_t stream) {
    require_valid_block(block);
    if (!fits_shared(m)) throw Error("histogram: lane_replicated cannot hold " + std::to_string(m) + " bins in shared memory");
    const unsigned replicas = rung5_replicas(m);
    zero_counts(counts, m, stream);
    launch("lane_replicated", histogram_replicated, {grid_for(n, block), block, std::size_t{m} * replicas * kCountBytes}, stream,
           values, n, BinRule(m), replicas, counts)
        .work([&] { return count_of(replicas, "replica") + " of the bins per block"; });
  }
};

// ---- rungs 3 and 4: a histogram row per block, then sum_histograms ------------------------------

/// Blocks of rungs 3 and 4: one value per thread, as in the seed, unless the rows would exceed
/// kMaxRowCounts; then fewer blocks, each thread taking several values.
std::size_t row_blocks(std::size_t n, std::uint32_t m, unsigned block) {
  return std::clamp<std::size_t>(ceil_div(n, block), 1, std::max<std::size_t>(1, kMaxRowCounts / m));
}

template <bool kShared>
struct ByBlock {
  static std::size_t workspace_bytes(std::size_t n, std::uint32_t m, unsigned block) {
    require_valid_block(block);
    return row_blocks(n, m, block) * m * kCountBytes;
  }
  static void run(const std::int32_t* values, std::size_t n, std::uint32_t m, std::uint32_t* counts, void* ws,
                  std::size_t ws_bytes, unsigned block, cudaStream_t stream) {
    require_valid_block(block);
    const std::size_t rows = row_blocks(n, m, block);
    if (ws_bytes < rows * m * kCountBytes) throw Error("histogram: workspace too small for by_block_global/by_block_shared");
    auto* rows_counts = static_cast<std::uint32_t*>(ws);
    const BinRule rule(m);
    if constexpr (kShared) {
      if (!fits_shared(m)) throw Error("histogram: by_block_shared cannot hold " + std::to_string(m) + " bins in shared memory");
      launch("histogramByBlockShared", histogram_by_block_shared, {static_cast<unsigned>(rows), block, m * kCountBytes}, stream,
             values, n, rule, rows_counts);
    } else {
      GPULAB_CUDA_CHECK(cudaMemsetAsync(rows_counts, 0, rows * m * kCountBytes, stream));
      launch("histogramByBlock", histogram_by_block, {static_cast<unsigned>(rows), block}, stream, values, n, rule, rows_counts);
    }
    zero_counts(counts, m, stream);
    // Enough blocks to fill the GPU: ~1024 of 256 threads, spread over bins first, then rows.
    const std::size_t bin_blocks = ceil_div(m, kSumBins);
    const std::size_t row_groups = std::clamp<std::size_t>(1024 / bin_blocks, 1, std::min<std::size_t>(ceil_div(rows, kSumRows), 65535));
    launch("sum_histograms", sum_histograms,
           {dim3(static_cast<unsigned>(bin_blocks), static_cast<unsigned>(row_groups)), dim3(kSumBins, kSumRows)}, stream,
           rows_counts, rows, m, counts)
        .work([&] { return count_of(rows, "row") + " added"; });
  }
};

// ---- rungs 6–14: the library's paths -----------------------------------------------------------

template <histogram_detail::Path kPath>
struct LibraryPath {
  static bool supports(std::size_t, std::uint32_t m) { return histogram_detail::supports(kPath, m); }
  static std::size_t workspace_bytes(std::size_t n, std::uint32_t m, unsigned) { return histogram_detail::temp_bytes(kPath, n, m); }
  static void run(const std::int32_t* values, std::size_t n, std::uint32_t m, std::uint32_t* counts, void* ws,
                  std::size_t ws_bytes, unsigned, cudaStream_t stream) {
    histogram_detail::run(kPath, values, n, m, counts, ws, ws_bytes, stream);
  }
};

struct Library {
  static void run(const std::int32_t* values, std::size_t n, std::uint32_t m, std::uint32_t* counts, void*,
                  std::size_t, unsigned, cudaStream_t stream) {
    histogram(values, n, m, counts, stream);
  }
};

// ---- vendor: CUB -----------------------------------------------------------------------------------

/// The bin of a value, as CUB's sample: HistogramEven with levels 0, 1, …, m then counts bin b in
/// bin b.
struct BinOf {
  BinRule rule;
  __host__ __device__ int operator()(std::int32_t v) const { return static_cast<int>(rule(v)); }
};

struct Cub {
  /// CUB 3.0 gives each sweep block a private histogram in its workspace and offsets block b's by
  /// b · bins in int (agent_histogram.cuh): from 2^31 counters in all it writes outside the
  /// workspace (an illegal address that ends the process: n = 2^20, m = 2^24 on an H100,
  /// 2026-11-24). The workspace CUB asks for holds those counters: where they reach 2^31, the
  /// vendor sits the case out instead.
  static bool supports(std::size_t n, std::uint32_t m) {
    if (m >= static_cast<std::uint32_t>(std::numeric_limits<int>::max())) return false;
    return workspace_bytes(n, m, 0) / kCountBytes < static_cast<std::size_t>(std::numeric_limits<int>::max());
  }
  static auto samples(const std::int32_t* values, std::uint32_t m) {
    return thrust::make_transform_iterator(values, BinOf{BinRule(m)});
  }
  static std::size_t workspace_bytes(std::size_t n, std::uint32_t m, unsigned) {
    std::size_t bytes = 0;
    GPULAB_CUDA_CHECK(cub::DeviceHistogram::HistogramEven(nullptr, bytes, samples(nullptr, m),
                                                          static_cast<std::uint32_t*>(nullptr), static_cast<int>(m) + 1,
                                                          0, static_cast<int>(m), static_cast<std::int64_t>(n)));
    return bytes;
  }
  static void run(const std::int32_t* values, std::size_t n, std::uint32_t m, std::uint32_t* counts, void* ws,
                  std::size_t ws_bytes, unsigned, cudaStream_t stream) {
    GPULAB_CUDA_CHECK(cub::DeviceHistogram::HistogramEven(ws, ws_bytes, samples(values, m), counts,
                                                          static_cast<int>(m) + 1, 0, static_cast<int>(m),
                                                          static_cast<std::int64_t>(n), stream));
  }
};

/// One table line from a launcher struct.
template <class Impl, bool (*kSupports)(std::size_t, std::uint32_t) = any_bins,
          std::size_t (*kWorkspace)(std::size_t, std::uint32_t, unsigned) = no_workspace>
constexpr HistogramRung rung(std::string_view name, std::string_view adds, std::string_view claims, Role role,
                             bool uses_block, GpuNeeds needs = {}) {
  return {{name, adds, role, uses_block, false, claims, needs}, {kSupports, kWorkspace, &Impl::run}};
}

/// The cluster paths' kernels trap below compute capability 9.0 (histogram_path_kernels.cuh).
constexpr GpuNeeds kClusters{90, false, "thread block clusters, distributed shared memory"};

using histogram_detail::Path;

// Read top to bottom: rungs 1-5 in histogram_kernels.cuh, the library's paths in
// histogram_path_kernels.cuh. Each line: name, what it adds, the counters that says it changes
// (`gpulab profile`), role, --block.
constexpr HistogramRung kRungs[] = {
    rung<GlobalAtomics>("global_atomics",
        "one global atomicAdd per value (seed: histogram)", "dram", Role::rung, true),
    rung<SharedAtomics, shared_bins>("shared_atomics",
        "per-block histogram in shared memory, merged with one atomic per bin (seed: histogramShared)", "bank_conflicts dram", Role::rung, true),
    rung<ByBlock<false>, any_bins, ByBlock<false>::workspace_bytes>("by_block_global",
        "a global histogram row per block, rows added by sum_histograms (seed: histogramByBlock)", "dram_bytes", Role::rung, true),
    rung<ByBlock<true>, shared_bins, ByBlock<true>::workspace_bytes>("by_block_shared",
        "the rung before with the row built in shared memory (seed: histogramByBlockShared)", "dram_bytes bank_conflicts", Role::rung, true),
    rung<Replicated, shared_bins>("lane_replicated",
        "shared_atomics with up to 32 interleaved copies, one per lane: no conflicts, no contention", "bank_conflicts", Role::rung, true),
    rung<LibraryPath<Path::replicated_resident>, LibraryPath<Path::replicated_resident>::supports>("replicated_resident",
        "resident grid (merge once per block), 16-byte loads, 4 in flight, bins without division", "load_sectors instructions dram", Role::rung, false),
    rung<LibraryPath<Path::packed_registers>, LibraryPath<Path::packed_registers>::supports>("packed_registers",
        "m <= 8: eight 8-bit counters in one 64-bit register per thread, no atomics per value", "instructions bank_conflicts", Role::rung, false),
    rung<LibraryPath<Path::halfword_shared>, LibraryPath<Path::halfword_shared>::supports>("halfword_shared",
        "16-bit counters, two per word, spilling at 2^15: twice the bins in shared memory", "occupancy", Role::rung, false),
    rung<LibraryPath<Path::cluster_shared>, LibraryPath<Path::cluster_shared>::supports>("cluster_shared",
        "any m: bins spread over a cluster's distributed shared memory, passes over bin ranges", "dram", Role::rung, false, kClusters),
    rung<LibraryPath<Path::cluster16_shared>, LibraryPath<Path::cluster16_shared>::supports>("cluster16_shared",
        "cluster_shared over 16 blocks (a non-portable cluster, where it fits): twice the bins a pass", "dram", Role::rung, false, kClusters),
    rung<LibraryPath<Path::global_runs>>("global_runs",
        "any m, any device: global atomics, runs of equal bins added once", "instructions", Role::rung, false),
    rung<LibraryPath<Path::hot_cached_global>>("hot_cached_global",
        "global_runs with the bins a sample of the input finds (or a free slot meets first) counted in shared memory: hot bins off the global atomics", "dram", Role::rung, false),
    rung<LibraryPath<Path::range_partitioned>, LibraryPath<Path::range_partitioned>::supports,
         LibraryPath<Path::range_partitioned>::workspace_bytes>("range_partitioned",
        "values sorted by range of 2^15 bins in tiles first, then each range counted in one block's shared memory: no global atomic per value", "dram dram_bytes", Role::rung, false),
    rung<LibraryPath<Path::range_ranked>, LibraryPath<Path::range_ranked>::supports,
         LibraryPath<Path::range_ranked>::workspace_bytes>("range_ranked",
        "m <= 2^21: each value's place in its tile from thread-private counters per range (CUB's BlockRadixRank), not ballots and atomics", "instructions dram", Role::rung, false),
    rung<Library>("gpulab::histogram",
        "the library: packed_registers, replicated_resident or halfword_shared by m and device; past them hot_cached_global, "
        "or from 2^24 values range_ranked (range_partitioned past 2^21 bins) where a sample finds the values spread", "dram",
        Role::library, false),
    rung<Cub, Cub::supports, Cub::workspace_bytes>("cub::DeviceHistogram::HistogramEven",
        "the vendor library (CUB) over the bins (transform iterator)", "dram", Role::vendor, false),
};

}  // namespace

std::span<const HistogramRung> histogram_rungs() { return kRungs; }

}  // namespace gpulab
