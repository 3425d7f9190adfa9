// The library's histogram, its dispatch: what each path needs of the device (read once per
// device), the rules that pick a path by m, n and the device, the temporary storage, and each
// path's launches. The kernels are in histogram_path_kernels.cuh, the entry in histogram.cu.
#include "histogram/histogram_path_kernels.cuh"

#include "histogram/bin_of_float.hpp"

#include "lib/launch_limits.hpp"
#include "lib/per_device.hpp"
#include "lib/stream_scratch.hpp"

#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

namespace gpulab {
namespace histogram_detail {
namespace {

// ---- host side --------------------------------------------------------------------------------------

/// What the paths need to know about a device, read once per device.
struct DeviceLimits {
  unsigned sms = 0;
  int cc_major = 0;
  std::size_t smem_per_sm = 0;
  std::size_t smem_optin = 0;  // the most dynamic shared memory one block may ask for
  unsigned packed_resident = 0;  // blocks of packed_registers_kernel resident at once
  unsigned global_resident = 0;  // the same for global_runs_kernel
  unsigned hot_resident = 0;     // the same for hot_cached_kernel
  unsigned count_resident = 0;   // the same for count_kernel (0: its counters do not fit a block)
  bool large_cluster = false;    // a cluster of kLargeCluster blocks with the whole opt-in memory fits
};

/// Whether a partition kernel's dynamic shared memory fits beside its static storage here.
bool partition_fits(const PartitionKernel& partition) {
  return partition.smem <= dynamic_smem_limit(reinterpret_cast<const void*>(partition.kernel));
}

DeviceLimits query_device_limits() {
  DeviceLimits d;
  d.sms = static_cast<unsigned>(current_device_attribute(cudaDevAttrMultiProcessorCount));
  d.cc_major = current_device_attribute(cudaDevAttrComputeCapabilityMajor);
  d.smem_per_sm = static_cast<std::size_t>(current_device_attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor));
  const int smem_optin = current_device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin);
  d.smem_optin = static_cast<std::size_t>(smem_optin);
  // The shared-memory paths are allowed the opt-in size on their first launch (allow_shared_paths);
  // the partition's and the count's kernels here.
  constexpr std::size_t kCountSmem = kRangeBins * sizeof(std::uint32_t);  // the kernel's static word comes on top
  for (std::size_t bits = 0; bits <= kMaxCounterBits; ++bits) {  // 51–84 KiB: past the default 48
    const PartitionKernel partition = partition_kernel_for<Ranking::thread_counters>(bits);
    if (partition_fits(partition)) allow_dynamic_smem(reinterpret_cast<const void*>(partition.kernel), partition.smem, "histogram");
  }
  if (dynamic_smem_limit(reinterpret_cast<const void*>(count_kernel<1>)) >= kCountSmem &&
      dynamic_smem_limit(reinterpret_cast<const void*>(count_kernel<2>)) >= kCountSmem) {
    for (auto kernel : {count_kernel<1>, count_kernel<2>}) allow_dynamic_smem(reinterpret_cast<const void*>(kernel), kCountSmem, "histogram");
    d.count_resident = std::min(resident_blocks(reinterpret_cast<const void*>(count_kernel<1>), kCountBlock, kCountSmem),
                                resident_blocks(reinterpret_cast<const void*>(count_kernel<2>), kCountBlock, kCountSmem));
  }
  if (d.cc_major >= 9) {
    allow_dynamic_smem(reinterpret_cast<const void*>(cluster_shared_kernel<kPortableCluster>), d.smem_optin, "histogram");
    allow_dynamic_smem(reinterpret_cast<const void*>(cluster_shared_kernel<kLargeCluster>), d.smem_optin, "histogram");
    GPULAB_CUDA_CHECK(cudaFuncSetAttribute(cluster_shared_kernel<kLargeCluster>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    d.large_cluster = resident_clusters(reinterpret_cast<const void*>(cluster_shared_kernel<kLargeCluster>), kBlock, kLargeCluster, d.smem_optin) >= 1;
  }
  d.packed_resident = resident_blocks(reinterpret_cast<const void*>(packed_registers_kernel<BinRule>), kBlock);
  d.global_resident = resident_blocks(reinterpret_cast<const void*>(global_runs_kernel), kBlock);
  d.hot_resident = resident_blocks(reinterpret_cast<const void*>(hot_cached_kernel), kBlock);
  return d;
}

const DeviceLimits& device_limits() {
  static PerDevice<DeviceLimits> cache;
  return cache.get(query_device_limits);
}

/// Blocks for a resident grid of `resident` blocks, but no more than one tile of vectors
/// (block × kUnroll, `per_vector` values each) per block.
unsigned grid_for(std::size_t n, unsigned resident, unsigned block = kBlock, unsigned per_vector = 4) {
  const std::size_t per_block = std::size_t{block} * kUnroll * per_vector;
  const std::size_t wanted = std::max<std::size_t>(1, (n + per_block - 1) / per_block);
  return static_cast<unsigned>(std::min<std::size_t>(wanted, std::max(1u, resident)));
}

/// replicated_resident's shared memory: `replicas` copies of m counters, then a rule's tables.
std::size_t replicated_bytes(std::uint32_t m, unsigned replicas, std::size_t tables = 0) {
  return tables == 0 ? std::size_t{m} * replicas * sizeof(std::uint32_t) : staged_offset(std::size_t{m} * replicas) + tables;
}

/// Replicas of the sub-histogram that fit a quarter of the SM's shared memory beside a rule's
/// tables: 32 while m ≤ 256 on an H100, fewer as m grows, one (if it fits a block at all) past a
/// quarter.
unsigned replicas_for(std::uint32_t m, const DeviceLimits& d, std::size_t tables = 0) {
  const std::size_t budget = d.smem_per_sm / kReplicatedBlocksPerSm;
  unsigned r = kWarp;
  while (r > 1 && replicated_bytes(m, r, tables) > budget) r /= 2;
  return r;
}

/// halfword_shared's shared memory: m 16-bit counters, then a rule's tables.
std::size_t halfword_bytes(std::uint32_t m, std::size_t tables = 0) {
  const std::size_t words = (std::size_t{m} + 1) / 2;
  return tables == 0 ? words * sizeof(std::uint32_t) : staged_offset(words) + tables;
}

/// The kernels of the shared-memory paths for `Rule` allowed the device's whole opt-in shared
/// memory (they have no static shared memory but packed_registers' 32 bytes), once per device.
template <class Rule>
void allow_shared_paths() {
  static PerDevice<bool> allowed;
  allowed.get([] {
    const DeviceLimits& d = device_limits();
    allow_dynamic_smem(reinterpret_cast<const void*>(replicated_resident_kernel<Rule>), d.smem_optin, "histogram");
    allow_dynamic_smem(reinterpret_cast<const void*>(halfword_shared_kernel<Rule>), d.smem_optin, "histogram");
    return true;
  });
}

/// The shared-memory path for m counters with a rule's `tables` bytes beside them: packed_registers
/// (m ≤ 8), replicated_resident while two replicas fit a quarter of the SM, halfword_shared while
/// one block holds its 16-bit counters; none past that.
std::optional<Path> shared_path(std::uint32_t m, std::size_t tables) {
  const DeviceLimits& d = device_limits();
  if (m <= kPackedMaxBins) return Path::packed_registers;
  if (replicas_for(m, d, tables) > 1) return Path::replicated_resident;
  if (halfword_bytes(m, tables) <= d.smem_optin) return Path::halfword_shared;
  return std::nullopt;
}

struct ClusterPlan {
  std::uint32_t bins_per_pass = 0;  // a multiple of the cluster's blocks
  std::size_t smem_bytes = 0;
};

ClusterPlan cluster_plan(std::uint32_t m, unsigned ranks, const DeviceLimits& d) {
  const std::uint64_t max_pass = std::uint64_t{ranks} * (d.smem_optin / sizeof(std::uint32_t));
  const std::uint64_t passes = (m + max_pass - 1) / max_pass;
  const std::uint64_t per_pass = (m + passes - 1) / passes;
  ClusterPlan p;
  p.bins_per_pass = static_cast<std::uint32_t>((per_pass + ranks - 1) / ranks * ranks);
  p.smem_bytes = p.bins_per_pass / ranks * sizeof(std::uint32_t);
  return p;
}

template <unsigned kRanks>
void launch_cluster(const char* name, const std::int32_t* values, std::size_t n, BinRule rule, std::uint32_t* counts,
                    const DeviceLimits& d, cudaStream_t stream) {
  const ClusterPlan plan = cluster_plan(rule.bins(), kRanks, d);
  const auto kernel = cluster_shared_kernel<kRanks>;
  const int clusters = resident_clusters(reinterpret_cast<const void*>(kernel), kBlock, kRanks, plan.smem_bytes);
  if (clusters < 1) throw Error("histogram: no cluster of " + std::to_string(kRanks) + " blocks fits on this device");
  const unsigned blocks = grid_for(n, d.sms);  // never more clusters than the input has tiles
  const unsigned wanted_clusters = (blocks + kRanks - 1) / kRanks;
  const LaunchShape shape{dim3(std::min<unsigned>(static_cast<unsigned>(clusters), wanted_clusters) * kRanks), dim3(kBlock),
                          plan.smem_bytes, kRanks};
  launch(name, kernel, shape, stream, values, n, rule, plan.bins_per_pass, counts).work([&] {
    return count_of(plan.bins_per_pass / kRanks, "bin") + " per block, " +
           count_of((rule.bins() + plan.bins_per_pass - 1) / plan.bins_per_pass, "pass") + " over the values";
  });
}

/// The ranges of kRangeBins bins that m bins take.
std::uint32_t ranges_for(std::uint32_t m) { return static_cast<std::uint32_t>(ceil_div(m, kRangeBins)); }

/// A segment table's lengths, as the scan reads them.
auto segment_lengths(const std::uint32_t* segments, PickedIf picked) {
  return thrust::make_transform_iterator(thrust::counting_iterator<std::uint32_t>(0), SegmentLength{segments, picked});
}

/// Where range_partitioned keeps its three arrays and CUB's scan storage in the caller's temporary
/// storage, each 256-byte aligned.
struct PartitionPlan {
  std::uint32_t ranges = 0, tiles = 0, entries = 0;
  std::size_t places_at = 0, segments_at = 0, starts_at = 0, scan_at = 0, scan_bytes = 0, bytes = 0;

  PartitionPlan(std::size_t n, std::uint32_t m)
      : ranges(ranges_for(m)),
        tiles(static_cast<std::uint32_t>(std::max<std::size_t>(1, ceil_div(n, kTile)))),
        entries(ranges * tiles) {
    GPULAB_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, segment_lengths(nullptr, {}),
                                                    static_cast<std::uint32_t*>(nullptr), static_cast<std::int64_t>(entries)));
    segments_at = align_up(places_at + std::size_t{tiles} * kTile * sizeof(std::uint16_t), 256);
    starts_at = align_up(segments_at + std::size_t{entries} * sizeof(std::uint32_t), 256);
    scan_at = align_up(starts_at + std::size_t{entries} * sizeof(std::uint32_t), 256);
    bytes = scan_at + scan_bytes;
  }
};

/// `temp` holds PartitionPlan(n, m).bytes (run() checked it).
template <Ranking kRanking>
void launch_range_partitioned(const std::int32_t* values, std::size_t n, BinRule rule, std::uint32_t* counts, void* temp,
                              const DeviceLimits& d, cudaStream_t stream, PickedIf picked) {
  const PartitionPlan plan(n, rule.bins());
  if (n == 0) return;
  auto* base = static_cast<std::byte*>(temp);
  auto* places = reinterpret_cast<std::uint16_t*>(base + plan.places_at);
  auto* segments = reinterpret_cast<std::uint32_t*>(base + plan.segments_at);
  auto* starts = reinterpret_cast<std::uint32_t*>(base + plan.starts_at);
  const auto [partition, partition_smem] = partition_kernel_for<kRanking>(log2_ceil(plan.ranges));
  const unsigned partition_blocks =
      std::min(plan.tiles, resident_blocks(reinterpret_cast<const void*>(partition), kPartitionBlock, partition_smem));
  launch("partition_by_range", partition, {partition_blocks, kPartitionBlock, partition_smem}, stream, values, n, rule, plan.ranges,
         plan.tiles, places, segments, picked)
      .work([&] {
        return count_of(kTile, "value") + " sorted into " + count_of(plan.ranges, "range") + " per block" +
               (kRanking == Ranking::thread_counters ? ", ranked by thread counters" : "");
      });
  std::size_t scan_bytes = plan.scan_bytes;
  GPULAB_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(base + plan.scan_at, scan_bytes, segment_lengths(segments, picked), starts,
                                                  static_cast<std::int64_t>(plan.entries), stream));
  const unsigned blocks = std::min(plan.tiles, d.count_resident);  // supports() made sure count_resident ≥ 1
  const auto count = plan.ranges > kOneStreamRanges ? count_kernel<2> : count_kernel<1>;
  launch("count_ranges", count, {blocks, kCountBlock, kRangeBins * sizeof(std::uint32_t)}, stream, places, segments, starts,
         plan.entries, plan.tiles, static_cast<std::uint32_t>(n), counts, picked)
      .work([&] { return count_of(kRangeBins, "counter") + " per block, an even share of the values"; });
}

}  // namespace

std::size_t temp_bytes(Path path, std::size_t n, std::uint32_t m) {
  if ((path != Path::range_partitioned && path != Path::range_ranked) || m == 0) return 0;
  return PartitionPlan(n, m).bytes;
}

bool supports(Path path, std::uint32_t m) {
  if (m == 0) return false;
  const DeviceLimits& d = device_limits();
  switch (path) {
    case Path::packed_registers: return m <= kPackedMaxBins;
    case Path::replicated_resident: return replicated_bytes(m, 1) <= d.smem_optin;
    case Path::halfword_shared: return halfword_bytes(m) <= d.smem_optin;
    case Path::cluster_shared: return d.cc_major >= 9;
    case Path::cluster16_shared: return d.cc_major >= 9 && d.large_cluster;
    case Path::global_runs: return true;
    case Path::hot_cached_global: return true;
    case Path::range_partitioned: return d.count_resident > 0 && ranges_for(m) <= kMaxRanges;
    case Path::range_ranked:
      return d.count_resident > 0 && ranges_for(m) <= (1u << kMaxCounterBits) &&
             partition_fits(partition_kernel_for<Ranking::thread_counters>(log2_ceil(ranges_for(m))));
  }
  return false;
}

Path partition_path(std::uint32_t m) { return supports(Path::range_ranked, m) ? Path::range_ranked : Path::range_partitioned; }

// Past one block's shared memory the cluster paths make one pass over the input per range of bins
// a cluster holds (about 465 K on an H100), global atomics pay per value and most on few hot bins
// in no order (the narrow input: 33 ms at n = 2^28, against 3.1 ms uniform), and hot_cached_global
// takes the hot bins off the global atomics. Measured on an H100 (docs/histogram.md, 2026-11-24)
// over n = 2^20 … 2^28, m = 2^17 … 2^24 and the three inputs, it is the fastest path on every
// narrow and degenerate case (narrow 2^28 × 2^20: 1.35 ms, the cluster of 8 8.8) and within 1% of
// global atomics on uniform input from n = 2^24 (1–6% at 2^22, 2–10% at 2^20, where the 32 KiB of
// slots a block clears and flushes weigh on a 20 µs kernel). The choice had bounded the worst ratio to the best
// path at 2.6–3.0× because the distribution is not known here; the sample makes it unnecessary.
// range_partitioned (2026-11-24, docs/histogram.md) is 2.0–3.2× faster than hot_cached_global on
// uniform input at n = 2^26, m = 2^17 … 2^20, but 2.6–3.2× slower on a degenerate one: which of the
// two runs is decided on the device by a sample of the values (takes_sample(), sample_kernel).
Path choose(std::size_t, std::uint32_t m) { return shared_path(m, 0).value_or(Path::hot_cached_global); }

namespace {

/// The paths that add to the counts only when they merge (halfword_shared also on a 16-bit
/// counter's spill, which waits as the merge does): they count while zero_counts_kernel zeroes the
/// counts, launched after it as dependents. 1.02-1.11x faster from 2^20 to 2^24 values at m = 256
/// and 4096, 1.01-1.14x at m = 16384 and 65536 (H100 and H200, docs/histogram.md), against a
/// cudaMemsetAsync before them. packed_registers (m <= 8) gained nothing so (0.97-1.01x); the other
/// paths add to the counts from their first values on.
constexpr bool counts_while_zeroing(Path path) { return path == Path::replicated_resident || path == Path::halfword_shared; }

/// The kernel of a shared-memory path (packed_registers, replicated_resident, halfword_shared) for
/// `rule`'s bins and tables, as launch_path says.
template <class Rule>
void launch_shared_path(Path path, const typename Rule::Value* values, std::size_t n, const Rule& rule, std::uint32_t* counts,
                        cudaStream_t stream) {
  allow_shared_paths<Rule>();
  const DeviceLimits& d = device_limits();
  const std::uint32_t m = rule.bins();
  const std::size_t tables = staged_bytes(rule);
  constexpr unsigned per_vector = 16 / sizeof(typename Rule::Value);
  switch (path) {
    case Path::packed_registers: {
      const unsigned resident = std::is_same_v<Rule, BinRule>
                                    ? d.packed_resident
                                    : resident_blocks(reinterpret_cast<const void*>(packed_registers_kernel<Rule>), kBlock, tables);
      launch("packed_registers", packed_registers_kernel<Rule>, {grid_for(n, resident, kBlock, per_vector), kBlock, tables}, stream,
             values, n, rule, counts);
      break;
    }
    case Path::replicated_resident: {
      const unsigned replicas = replicas_for(m, d, tables);
      const std::size_t smem = replicated_bytes(m, replicas, tables);
      const unsigned resident = resident_blocks(reinterpret_cast<const void*>(replicated_resident_kernel<Rule>), kBlock, smem);
      LaunchShape shape{grid_for(n, resident, kBlock, per_vector), kBlock, smem};
      shape.follows = counts_while_zeroing(path);
      launch("replicated_resident", replicated_resident_kernel<Rule>, shape, stream, values, n, rule, replicas, counts)
          .work([&] { return count_of(replicas, "replica") + " of the bins per block"; });
      break;
    }
    case Path::halfword_shared: {
      const std::size_t smem = halfword_bytes(m, tables);
      const unsigned resident = resident_blocks(reinterpret_cast<const void*>(halfword_shared_kernel<Rule>), kHalfwordBlock, smem);
      LaunchShape shape{grid_for(n, resident, kHalfwordBlock, per_vector), kHalfwordBlock, smem};
      shape.follows = counts_while_zeroing(path);
      launch("halfword_shared", halfword_shared_kernel<Rule>, shape, stream, values, n, rule, counts);
      break;
    }
    default:
      throw Error("histogram: not a shared-memory path");
  }
}

/// The counts zeroed for `path` (by the kernel it follows where counts_while_zeroing).
void zero_counts_for(Path path, std::uint32_t* counts, std::uint32_t m, cudaStream_t stream) {
  if (counts_while_zeroing(path))
    launch("zero_counts", zero_counts_kernel, {static_cast<unsigned>(ceil_div(m, kBlock)), kBlock}, stream, counts, m);
  else
    GPULAB_CUDA_CHECK(cudaMemsetAsync(counts, 0, std::size_t{m} * sizeof(std::uint32_t), stream));
}

/// The kernels of `path` (counts already zeroed, or, where counts_while_zeroing, being zeroed by
/// the kernel launched just before); `picked`: see PickedIf.
void launch_path(Path path, const std::int32_t* values, std::size_t n, BinRule rule, std::uint32_t* counts, void* temp,
                 cudaStream_t stream, PickedIf picked = {}) {
  const DeviceLimits& d = device_limits();
  const std::uint32_t m = rule.bins();
  switch (path) {
    case Path::packed_registers:
    case Path::replicated_resident:
    case Path::halfword_shared:
      launch_shared_path(path, values, n, rule, counts, stream);
      break;
    case Path::cluster_shared:
      launch_cluster<kPortableCluster>("cluster_shared", values, n, rule, counts, d, stream);
      break;
    case Path::cluster16_shared:
      launch_cluster<kLargeCluster>("cluster16_shared", values, n, rule, counts, d, stream);
      break;
    case Path::global_runs:
      launch("global_runs", global_runs_kernel, {grid_for(n, d.global_resident), kBlock}, stream, values, n, rule, counts);
      break;
    case Path::hot_cached_global:
      launch("hot_cached_global", hot_cached_kernel, {grid_for(n, d.hot_resident), kBlock}, stream, values, n, rule, counts,
             picked)
          .work([] { return count_of(kHotSlots, "shared slot") + " for the sampled bins per block"; });
      break;
    case Path::range_partitioned:
      launch_range_partitioned<Ranking::ballots>(values, n, rule, counts, temp, d, stream, picked);
      break;
    case Path::range_ranked:
      launch_range_partitioned<Ranking::thread_counters>(values, n, rule, counts, temp, d, stream, picked);
      break;
  }
}

/// Values from which the library samples its choice between hot_cached_global and range_partitioned.
/// The path not picked still launches (the partition's two kernels return at once, CUB's scan runs
/// over zeros): with the sample, 16.4 µs at n = 2^24 on an H100 where hot_cached_global is picked.
/// (A CUDA graph whose conditional node ran the picked path alone saved 0.5–10.8 µs there and cost
/// 1.4–3.8 µs where the partition is picked: not kept, docs/histogram.md.) The partition must save
/// more than that: it ran at 0.35–0.81× hot_cached_global at n = 2^20, 0.90–1.42× at 2^22 and
/// 0.98–2.4× at 2^24 on uniform values.
constexpr std::size_t kSampledMinValues = std::size_t{1} << 24;

}  // namespace

bool takes_sample(std::size_t n, std::uint32_t m) {
  return choose(n, m) == Path::hot_cached_global && n >= kSampledMinValues && supports(Path::range_partitioned, m);
}

namespace {

/// sample_kernel over values[0, n) into `pick`, zeroing counts[0, rule.bins()) unless counts is null.
void launch_sample(const std::int32_t* values, std::size_t n, BinRule rule, std::uint32_t* pick, std::uint32_t* counts,
                   cudaStream_t stream) {
  const std::size_t zero_blocks =
      counts == nullptr ? 0 : std::min<std::size_t>(ceil_div(rule.bins(), kSampleBlock * 8), 2 * device_limits().sms);
  launch("sample_for_path", sample_kernel, {static_cast<unsigned>(1 + zero_blocks), kSampleBlock}, stream, values, n, rule, pick,
         counts, rule.bins())
      .work([] {
        return "block 0: " + count_of(kSamples, "value") + " sampled, the partition if they fall in more than " +
               std::to_string(kPartitionFromDistinct) + " bins; the others zero the counts";
      });
}

}  // namespace

/// The library's run where takes_sample(): the sample, then both paths' launches (the one not
/// picked returns at once). Without the pool's storage for the partition, hot_cached_global alone.
void run_sampled(const std::int32_t* values, std::size_t n, std::uint32_t m, std::uint32_t* counts, cudaStream_t stream) {
  check_arguments(values, n, m, counts);
  std::optional<StreamScratch> temp;
  if (!take_scratch(temp, kPickBytes + temp_bytes(partition_path(m), n, m), stream)) {
    run(Path::hot_cached_global, values, n, m, counts, nullptr, 0, stream);
    return;
  }
  const BinRule rule(m);
  auto* pick = temp->as<std::uint32_t>();
  launch_sample(values, n, rule, pick, counts, stream);  // zeroes the counts too
  launch_path(Path::hot_cached_global, values, n, rule, counts, nullptr, stream, {pick, kPickHotCached});
  launch_path(partition_path(m), values, n, rule, counts, temp->as<std::byte>() + kPickBytes, stream, {pick, kPickPartitioned});
}

Path sampled_pick(const std::int32_t* values, std::size_t n, std::uint32_t m, cudaStream_t stream) {
  if (values == nullptr || n == 0 || m == 0) throw Error("histogram: a sample needs values and bins");
  StreamScratch pick(sizeof(std::uint32_t), stream);
  launch_sample(values, n, BinRule(m), pick.as<std::uint32_t>(), nullptr, stream);
  std::uint32_t picked = 0;
  GPULAB_CUDA_CHECK(cudaMemcpyAsync(&picked, pick.as<std::uint32_t>(), sizeof picked, cudaMemcpyDeviceToHost, stream));
  GPULAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  return picked == kPickPartitioned ? partition_path(m) : Path::hot_cached_global;
}

void run(Path path, const std::int32_t* values, std::size_t n, std::uint32_t m, std::uint32_t* counts, void* temp,
         std::size_t temp_capacity, cudaStream_t stream) {
  check_arguments(values, n, m, counts);
  if (!supports(path, m))
    throw Error("histogram: this path cannot count " + std::to_string(m) + " bins on this device");
  const std::size_t needed = temp_bytes(path, n, m);
  if (needed > 0 && (temp == nullptr || temp_capacity < needed))
    throw Error("histogram: this path needs " + std::to_string(needed) + " bytes of temporary storage for " + std::to_string(n) +
                " values into " + std::to_string(m) + " bins, got " + std::to_string(temp == nullptr ? 0 : temp_capacity));
  zero_counts_for(path, counts, m, stream);
  launch_path(path, values, n, BinRule(m), counts, temp, stream);
}

template <class Rule>
bool run_in_shared(const typename Rule::Value* values, std::size_t n, const Rule& rule, std::uint32_t* counts, cudaStream_t stream) {
  const std::optional<Path> path = shared_path(rule.bins(), staged_bytes(rule));
  if (!path) return false;
  zero_counts_for(*path, counts, rule.bins(), stream);
  launch_shared_path(*path, values, n, rule, counts, stream);
  return true;
}

std::uint32_t shared_bins_limit(std::size_t table_bytes) {
  const std::size_t optin = device_limits().smem_optin;
  if (table_bytes >= optin) return 0;
  // halfword_bytes(m, tables) ≤ optin: (m + 1) / 2 words, rounded up to 16 bytes where tables follow.
  const std::size_t words = table_bytes == 0 ? optin / 4 : (optin - table_bytes) / 16 * 4;
  return static_cast<std::uint32_t>(std::min<std::size_t>(2 * words, 0xFFFFFFFFu));
}

#define GPULAB_RUN_IN_SHARED(Rule) \
  template bool run_in_shared<Rule>(const Rule::Value*, std::size_t, const Rule&, std::uint32_t*, cudaStream_t);
GPULAB_RUN_IN_SHARED(WholeInput<RangeRule<float>>)
GPULAB_RUN_IN_SHARED(WholeInput<RangeRule<double>>)
GPULAB_RUN_IN_SHARED(WholeInput<EdgeRule<float>>)
GPULAB_RUN_IN_SHARED(WholeInput<EdgeRule<double>>)
GPULAB_RUN_IN_SHARED(PerRow<RangeRule<float>>)
GPULAB_RUN_IN_SHARED(PerRow<RangeRule<double>>)
GPULAB_RUN_IN_SHARED(PerRow<EdgeRule<float>>)
GPULAB_RUN_IN_SHARED(PerRow<EdgeRule<double>>)
#undef GPULAB_RUN_IN_SHARED

}  // namespace histogram_detail
}  // namespace gpulab
