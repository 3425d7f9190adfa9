// Every histogram rung (and the vendor) × distribution × awkward n × m, exact against the CPU
// reference on poisoned counts; misaligned inputs for the vectorised rungs; the library's
// contract.
#include "gpu_test_support.hpp"

#include "core/memory.hpp"
#include "core/random.hpp"
#include "histogram/bin_rule.hpp"
#include "histogram/fixed_point_sum.hpp"
#include "histogram/histogram_paths.hpp"
#include "histogram/histogram_problem.hpp"
#include "histogram/weighted_histogram_problem.hpp"
#include "lib/launch_limits.hpp"

#include <gpulab/error.hpp>
#include <gpulab/histogram.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

using namespace gpulab;

namespace {

struct Case {
  std::size_t rung;  // index into histogram_rungs()
  HistogramDistribution dist;
  std::size_t n;
  std::uint32_t m;
  unsigned block = 256;
  std::size_t offset = 0;  // values the input starts past a 256-byte boundary
};

std::string_view rung_name(std::size_t i) { return histogram_rungs()[i].name; }

void PrintTo(const Case& c, std::ostream* os) {
  *os << rung_name(c.rung) << " " << histogram_distribution_name(c.dist) << " n=" << c.n << " m=" << c.m
      << " block=" << c.block << " offset=" << c.offset;
}

/// Inputs made once per (distribution, n) and kept: the largest (2^25 values) would otherwise be
/// generated hundreds of times.
std::span<const std::int32_t> input_for(HistogramDistribution d, std::size_t n) {
  static std::map<std::pair<HistogramDistribution, std::size_t>, PinnedBuffer<std::int32_t>> cache;
  auto it = cache.find({d, n});
  if (it == cache.end()) {
    PinnedBuffer<std::int32_t> values(n);
    fill_histogram_input(values.span(), d, 7 + n);
    it = cache.emplace(std::make_pair(d, n), std::move(values)).first;
  }
  return {it->second.data(), it->second.size()};
}

BenchCase& case_for(const Case& c) {
  return test::cached_case(std::make_tuple(c.dist, c.n, c.m, c.block, c.offset), [&]() -> std::unique_ptr<BenchCase> {
    return std::make_unique<HistogramCase>(
        HistogramCaseSpec{std::string(histogram_distribution_name(c.dist)), input_for(c.dist, c.n), c.m, c.block, c.offset});
  });
}

class HistogramLadder : public ::testing::TestWithParam<Case> {};

TEST_P(HistogramLadder, MatchesReferenceExactly) {
  const Case& c = GetParam();
  BenchCase& bench_case = case_for(c);
  if (auto why = why_not_run(bench_case, ladder_info(histogram_rungs()), c.rung, test::test_device()))
    GTEST_SKIP() << rung_name(c.rung) << " " << *why;
  const CheckResult r = run_checked(bench_case, c.rung);
  EXPECT_TRUE(r.ok) << rung_name(c.rung) << ": " << r.detail;
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  const std::vector<std::size_t> sizes{0, 1, 31, 33, 1023, 1025, 65535, 65537, std::size_t{1} << 25};
  const std::vector<std::uint32_t> bins{1, 2, 7, 8, 255, 256, 4096, 65536, 1u << 20};
  for (std::size_t v = 0; v < histogram_rungs().size(); ++v) {
    for (auto d : {HistogramDistribution::uniform, HistogramDistribution::narrow, HistogramDistribution::degenerate})
      for (std::size_t n : sizes)
        for (std::uint32_t m : bins) cases.push_back({v, d, n, m});
    // The seed's 1024 threads and the smallest block, on an n that fills no block exactly.
    for (unsigned block : {32u, 1024u}) cases.push_back({v, HistogramDistribution::uniform, 100003, 256, block});
    // Inputs that do not start on a 16-byte boundary (the vectorised paths' head and tail).
    for (std::size_t offset : {1u, 2u, 3u})
      for (std::size_t n : {1u, 3u, 6u, 65537u})
        for (std::uint32_t m : {8u, 4096u, 65536u}) cases.push_back({v, HistogramDistribution::uniform, n, m, 256, offset});
  }
  return cases;
}

// "small_" marks the cases compute-sanitizer runs (scripts/device_run.sh).
std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  const Case& c = info.param;
  const bool small = (c.dist == HistogramDistribution::uniform && c.n == 1025) ||
                     (c.dist == HistogramDistribution::degenerate && c.n == 33) || c.offset == 1 || c.block == 32;
  std::string name = fmt::format("{}{}_{}_n{}_m{}_b{}_off{}", small ? "small_" : "", rung_name(c.rung),
                                 histogram_distribution_name(c.dist), c.n, c.m, c.block, c.offset);
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(All, HistogramLadder, ::testing::ValuesIn(all_cases()), case_name);

TEST(Histogram, RefusesBadArguments) {
  DeviceBuffer<std::uint32_t> counts(8);
  DeviceBuffer<std::int32_t> values(8);
  EXPECT_THROW(histogram(values.data(), 8, 0, counts.data()), Error);
  EXPECT_THROW(histogram(nullptr, 8, 8, counts.data()), Error);
  EXPECT_THROW(histogram(values.data(), 8, 8, static_cast<std::uint32_t*>(nullptr)), Error);
  EXPECT_THROW(histogram(values.data(), std::size_t{1} << 32, 8, counts.data()), Error);
  EXPECT_NO_THROW(histogram(nullptr, 0, 8, counts.data()));
}

// The partitions' temporary storage: asked for by n and m, refused with a message when missing or
// short, and not needed by the paths without one; range_ranked's thread counters stop at 64 ranges.
TEST(Histogram, RangePartitionsRefuseTooLittleTemporaryStorage) {
  using histogram_detail::Path;
  const std::size_t n = 100003;
  const std::uint32_t m = (1u << 20) + 7;
  EXPECT_EQ(histogram_detail::temp_bytes(Path::hot_cached_global, n, m), 0u);
  for (Path path : {Path::range_partitioned, Path::range_ranked}) {
    if (!histogram_detail::supports(path, m)) continue;
    const std::size_t bytes = histogram_detail::temp_bytes(path, n, m);
    EXPECT_GE(bytes, n * sizeof(std::uint16_t));  // a 16-bit place for every value
    DeviceBuffer<std::int32_t> values(n);
    DeviceBuffer<std::uint32_t> counts(m);
    DeviceBuffer<std::byte> temp(bytes);
    EXPECT_THROW(histogram_detail::run(path, values.data(), n, m, counts.data(), nullptr, 0, nullptr), Error);
    EXPECT_THROW(histogram_detail::run(path, values.data(), n, m, counts.data(), temp.data(), bytes - 1, nullptr), Error);
  }
  EXPECT_FALSE(histogram_detail::supports(Path::range_partitioned, 0xFFFFFFFFu));  // past 2^26 bins
  EXPECT_FALSE(histogram_detail::supports(Path::range_ranked, (1u << 21) + 1));   // 65 ranges
}

TEST(Histogram, PicksItsPathByBinsAndValues) {
  const std::size_t n = std::size_t{1} << 24;
  EXPECT_EQ(histogram_path_name(n, 1), "packed_registers");
  EXPECT_EQ(histogram_path_name(n, 8), "packed_registers");
  EXPECT_EQ(histogram_path_name(n, 9), "replicated_resident");
  EXPECT_EQ(histogram_path_name(n, 256), "replicated_resident");
  // 2^16 bins of 16 bits: 128 KiB, in a block where the device (or the family it is treated as)
  // gives one that much (an H100, an A100), else past shared memory (a T4's 64 KiB, an A10's 99).
  const bool halfword_fits = current_device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin) >= 128 * 1024;
  EXPECT_EQ(histogram_path_name(n, 65536), halfword_fits ? "halfword_shared" : "hot_cached_global");
  // Past one block's shared memory: global atomics with the sampled hot bins in shared memory
  // below 2^24 values; from there a sample of the values decides between those and the partition
  // by range (where the partition fits the device).
  for (std::size_t values : {std::size_t{1} << 10, std::size_t{1} << 22, (std::size_t{1} << 24) - 1})
    for (std::uint32_t m : {1u << 18, 1u << 22}) EXPECT_EQ(histogram_path_name(values, m), "hot_cached_global");
  for (std::size_t values : {std::size_t{1} << 24, std::size_t{1} << 28})
    for (std::uint32_t m : {1u << 18, 1u << 22})
      EXPECT_EQ(histogram_path_name(values, m),
                !histogram_detail::supports(histogram_detail::Path::range_partitioned, m) ? "hot_cached_global"
                : m <= (1u << 21) && histogram_detail::supports(histogram_detail::Path::range_ranked, m)
                    ? "sampled: range_ranked or hot_cached_global"
                    : "sampled: range_partitioned or hot_cached_global");
  EXPECT_EQ(histogram_path_name(n, 0xFFFFFFFFu), "hot_cached_global");  // any device, any m
}

/// n values drawn evenly from `pool` random int32 values (each value's pick hashed from its index).
std::vector<std::int32_t> drawn_from(std::size_t pool, std::size_t n) {
  std::vector<std::int32_t> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t which = hash64(7, i) % pool;
    out[i] = static_cast<std::int32_t>(static_cast<std::uint32_t>(hash64(11, which) >> 32));
  }
  return out;
}

// The library's sample (from 2^24 values past shared memory): values spread over 2^20 bins or
// drawn from 4096 values go to the partition; values in 256 bins, drawn from 64 or 1024 values or
// all in one bin go to the hot bins; each time the counts are exact, on an input that does not start on a
// 16-byte boundary.
TEST(HistogramLibrary, TheSamplePicksThePartitionForSpreadValuesOnly) {
  using histogram_detail::Path;
  const std::size_t n = (std::size_t{1} << 24) + 3;
  const std::uint32_t m = (1u << 20) + 7;
  if (!histogram_detail::supports(Path::range_partitioned, m)) GTEST_SKIP() << "range_partitioned does not fit this device";
  DeviceBuffer<std::int32_t> values(n + 1);
  DeviceBuffer<std::uint32_t> counts(m);
  const Path partition = histogram_detail::partition_path(m);
  EXPECT_EQ(partition, histogram_detail::supports(Path::range_ranked, m) ? Path::range_ranked : Path::range_partitioned);
  const auto drawn_64 = drawn_from(64, n), drawn_1024 = drawn_from(1024, n), drawn_4096 = drawn_from(4096, n);
  const std::vector<std::tuple<std::string, std::span<const std::int32_t>, Path>> inputs = {
      {"uniform", input_for(HistogramDistribution::uniform, n), partition},
      {"drawn from 4096 values", drawn_4096, partition},
      {"drawn from 64 values", drawn_64, Path::hot_cached_global},
      {"drawn from 1024 values", drawn_1024, Path::hot_cached_global},
      {"narrow", input_for(HistogramDistribution::narrow, n), Path::hot_cached_global},
      {"degenerate", input_for(HistogramDistribution::degenerate, n), Path::hot_cached_global}};
  for (const auto& [name, input, expected] : inputs) {
    GPULAB_CUDA_CHECK(cudaMemcpy(values.data() + 1, input.data(), n * sizeof(std::int32_t), cudaMemcpyHostToDevice));
    EXPECT_EQ(histogram_detail::sampled_pick(values.data() + 1, n, m, nullptr), expected) << name;
    GPULAB_CUDA_CHECK(cudaMemset(counts.data(), 0xFF, m * sizeof(std::uint32_t)));
    histogram(values.data() + 1, n, m, counts.data());
    EXPECT_EQ(test::download(counts.data(), m), histogram_reference(input, m)) << name;
  }
}

// Sampled calls one after another on a stream, with other arguments each time (another size,
// another output, another pick), and on the legacy default stream: each counts what it was given.
TEST(HistogramLibrary, SampledCallsInARowCountWhatEachWasGiven) {
  using histogram_detail::Path;
  const std::size_t n = (std::size_t{1} << 24) + 5;
  const std::uint32_t m = (1u << 20) + 3;
  if (!histogram_detail::supports(Path::range_partitioned, m)) GTEST_SKIP() << "range_partitioned does not fit this device";
  const auto uniform = input_for(HistogramDistribution::uniform, n);
  const auto degenerate = input_for(HistogramDistribution::degenerate, n);
  const DeviceBuffer<std::int32_t> a = test::upload(uniform), b = test::upload(degenerate);
  DeviceBuffer<std::uint32_t> counts_a(m), counts_b(m);
  Stream stream;
  const auto counted = [&](const DeviceBuffer<std::uint32_t>& counts) { return test::download(counts.data(), m); };
  for (int round = 0; round < 2; ++round) {
    GPULAB_CUDA_CHECK(cudaMemset(counts_a.data(), 0xFF, m * sizeof(std::uint32_t)));
    GPULAB_CUDA_CHECK(cudaMemset(counts_b.data(), 0xFF, m * sizeof(std::uint32_t)));
    histogram(a.data(), n, m, counts_a.data(), stream.get());
    histogram(b.data(), n - 1, m, counts_b.data(), stream.get());
    stream.synchronize();
    EXPECT_EQ(counted(counts_a), histogram_reference(uniform, m)) << "round " << round;
    EXPECT_EQ(counted(counts_b), histogram_reference(degenerate.first(n - 1), m)) << "round " << round;
  }
  histogram(b.data(), n, m, counts_a.data());  // the legacy default stream
  GPULAB_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(counted(counts_a), histogram_reference(degenerate, m));
}

// histogram() captured into a graph for n values of the uniform input into m bins; the graph
// replayed twice, over counts poisoned before each replay, counts right each time.
void expect_graph_replays_count_right(std::size_t n, std::uint32_t m) {
  const auto input = input_for(HistogramDistribution::uniform, n);
  const DeviceBuffer<std::int32_t> values = test::upload(input);
  DeviceBuffer<std::uint32_t> counts(m);
  Stream stream;
  cudaGraph_t graph = nullptr;
  GPULAB_CUDA_CHECK(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeThreadLocal));
  histogram(values.data(), n, m, counts.data(), stream.get());
  GPULAB_CUDA_CHECK(cudaStreamEndCapture(stream.get(), &graph));
  cudaGraphExec_t exec = nullptr;
  GPULAB_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  const std::vector<std::uint32_t> expected = histogram_reference(input, m);
  for (int replay = 0; replay < 2; ++replay) {
    GPULAB_CUDA_CHECK(cudaMemset(counts.data(), 0xFF, m * sizeof(std::uint32_t)));
    GPULAB_CUDA_CHECK(cudaGraphLaunch(exec, stream.get()));
    GPULAB_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    EXPECT_EQ(test::download(counts.data(), m), expected) << "m=" << m << " replay " << replay;
  }
  GPULAB_CUDA_CHECK(cudaGraphExecDestroy(exec));
  GPULAB_CUDA_CHECK(cudaGraphDestroy(graph));
}

// Under stream capture the sampled path records its pool allocation, its sample and both paths'
// kernels.
TEST(HistogramLibrary, TheSampledPathReplaysFromAGraph) {
  using histogram_detail::Path;
  const std::uint32_t m = 1u << 20;
  if (!histogram_detail::supports(Path::range_partitioned, m)) GTEST_SKIP() << "range_partitioned does not fit this device";
  expect_graph_replays_count_right(std::size_t{1} << 24, m);
}

// The paths for a few hundred and for 65536 bins count while a kernel zeroes the counts, launched
// after it as dependents (programmatic dependent launch, an edge of that kind in the graph); m = 8
// takes the memset and packed_registers.
TEST(HistogramLibrary, TheFewBinPathsReplayFromAGraph) {
  for (std::uint32_t m : {8u, 256u, 65536u}) expect_graph_replays_count_right((std::size_t{1} << 22) + 3, m);
}

// CUB's HistogramEven offsets each sweep block's private counters in int: with many bins it wrote
// past its workspace and the process lost its context (n = 2^20, m = 2^24 on an H100). The vendor
// row sits such cases out, and still runs where its counters fit.
// 2^26 bins (CuPy's users ask for tens of millions): the counts and the partition's ~2n bytes, no
// storage that grows with the grid.
TEST(Histogram, TwoToThe26Bins) {
  constexpr std::uint32_t m = 1u << 26;
  for (std::size_t n : {std::size_t{1000}, (std::size_t{1} << 24) + 3}) {  // below and past the sample's 2^24
    const auto values = input_for(HistogramDistribution::uniform, n);
    const auto d_values = test::upload<std::int32_t>(values);
    DeviceBuffer<std::uint32_t> counts(m);
    histogram(d_values.data(), n, m, counts.data());
    EXPECT_TRUE(test::download(counts.data(), m) == histogram_reference(values, m)) << "n = " << n << " (" << histogram_path_name(n, m) << ")";
  }
}

TEST(Histogram, TheVendorSitsOutBinCountsItsCountersCannotAddress) {
  const std::size_t n = std::size_t{1} << 20;
  const auto vendor = static_cast<std::size_t>(std::find_if(histogram_rungs().begin(), histogram_rungs().end(),
                                                            [](const HistogramRung& r) { return r.role == Role::vendor; }) -
                                               histogram_rungs().begin());
  ASSERT_LT(vendor, histogram_rungs().size());
  const HistogramCase huge({"uniform", input_for(HistogramDistribution::uniform, n), 1u << 24, 256});
  const auto why = huge.unsupported(vendor);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("m = 16777216"), std::string::npos) << *why;
  for (std::uint32_t m : {256u, 1u << 20}) {  // within its counters: the vendor runs and is right
    HistogramCase c({"uniform", input_for(HistogramDistribution::uniform, n), m, 256});
    EXPECT_FALSE(c.unsupported(vendor).has_value()) << "m=" << m;
    c.compute_reference();
    Stream stream;
    const DeviceArrays arrays(c, stream.get());
    const OwnedWorkspace ws(c, vendor, stream.get());
    const CheckResult result = run_checked(c, vendor, arrays, ws.get(), stream.get());
    EXPECT_TRUE(result.ok) << "m=" << m << ": " << result.detail;
  }
}

// Counts near the 32-bit limit: 2^32 − 1 values in one bin on a 16 GiB input is too much for a
// test, but a bin count past 2^31 (where a signed counter would turn negative) is affordable.
TEST(HistogramHuge, CountsPast2To31InOneBin) {
  const std::size_t n = (std::size_t{1} << 31) + 7;
  require_device_bytes(n * 4 + (64u << 20), "huge histogram test");
  PinnedBuffer<std::int32_t> zeros(n);  // every value 0 → bin 0
  std::memset(zeros.data(), 0, n * 4);
  for (std::uint32_t m : {1u, 8u, 256u}) {
    HistogramCase c({"zeros", std::span<const std::int32_t>(zeros.data(), n), m, 1024});
    c.compute_reference();
    Stream stream;
    const DeviceArrays arrays(c, stream.get());
    for (std::size_t r = 0; r < histogram_rungs().size(); ++r) {
      if (why_not_run(c, ladder_info(histogram_rungs()), r, test::test_device())) continue;
      const OwnedWorkspace ws(c, r, stream.get());
      const CheckResult result = run_checked(c, r, arrays, ws.get(), stream.get());
      EXPECT_TRUE(result.ok) << rung_name(r) << " m=" << m << ": " << result.detail;
    }
  }
}

// ---- weighted ---------------------------------------------------------------------------------

/// The weighted histogram of `values` with random weights in [-1, 1) against the reference, with
/// the depth of any bin's chain of additions bounded by n + 1000 (a warp's chunks, a chunk's 32
/// lanes, the warps, the blocks).
template <class W>
void check_weighted(std::span<const std::int32_t> values, std::uint32_t m, std::uint64_t seed) {
  const std::size_t n = values.size();
  std::vector<W> weights(n);
  fill_random<W>(weights, seed);
  const auto d_values = test::upload<std::int32_t>(values);
  const auto d_weights = test::upload<W>(weights);
  DeviceBuffer<W> sums(m);
  poison_device(sums.data(), m * sizeof(W), 0xFF, nullptr);
  const std::size_t bytes = histogram_weighted_temp_bytes(n, m);
  DeviceBuffer<std::byte> temp(std::max<std::size_t>(bytes, 1));
  poison_device(temp.data(), temp.bytes(), 0xFF, nullptr);  // any content will do
  histogram_weighted(d_values.data(), d_weights.data(), n, m, sums.data(), temp.data(), bytes);
  const auto got = test::download(sums.data(), m);
  const CheckResult r =
      check_histogram_weighted<W>(got, histogram_weighted_reference<W>(values, std::span<const W>(weights), m), n + 1000);
  EXPECT_TRUE(r.ok) << sizeof(W) * 8 << "-bit weights, n=" << n << " m=" << m << ": " << r.detail;
}

TEST(HistogramWeighted, MatchesTheReferenceForEveryShape) {
  const std::uint32_t most = histogram_weighted_max_bins();
  ASSERT_GE(most, 1000u);
  for (HistogramDistribution d : {HistogramDistribution::uniform, HistogramDistribution::narrow, HistogramDistribution::degenerate})
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{31}, std::size_t{33}, std::size_t{1000}, (std::size_t{1} << 20) + 3})
      for (std::uint32_t m : {1u, 7u, 256u, 1000u, 4097u, most, most + 1, 1u << 22}) {  // the last two: sorted by bin
        const auto values = input_for(d, n);
        check_weighted<float>(values, m, 40 + n + m);
        check_weighted<double>(values, m, 41 + n + m);
      }
}

// The same bits on every call: float atomics would not give them.
TEST(HistogramWeighted, TheSameBitsEveryCall) {
  const std::size_t n = (std::size_t{1} << 22) + 5;
  for (HistogramDistribution d : {HistogramDistribution::narrow, HistogramDistribution::degenerate}) {
    const auto values = input_for(d, n);
    std::vector<float> weights(n);
    fill_random<float>(weights, 43);
    const auto d_values = test::upload<std::int32_t>(values);
    const auto d_weights = test::upload<float>(weights);
    for (std::uint32_t m : {256u, 1u << 20}) {  // in shared memory; sorted by bin
      DeviceBuffer<float> sums(m);
      const std::size_t bytes = histogram_weighted_temp_bytes(n, m);
      DeviceBuffer<std::byte> temp(bytes);
      histogram_weighted(d_values.data(), d_weights.data(), n, m, sums.data(), temp.data(), bytes);
      const auto first = test::download(sums.data(), m);
      for (int i = 0; i < 10; ++i) {
        histogram_weighted(d_values.data(), d_weights.data(), n, m, sums.data(), temp.data(), bytes);
        ASSERT_EQ(std::memcmp(test::download(sums.data(), m).data(), first.data(), m * sizeof(float)), 0) << "m " << m << ", call " << i;
      }
    }
  }
}

// Rung 2 finds each bin's lanes by __match_any_sync where the library, past its digits, takes
// ballots (m ≤ 256): the same groups, so the same additions and bits.
TEST(HistogramWeighted, MatchGroupsGiveTheBallotsBits) {
  const std::size_t n = (std::size_t{1} << 20) + 7;
  for (HistogramDistribution d : {HistogramDistribution::uniform, HistogramDistribution::narrow, HistogramDistribution::degenerate}) {
    const auto values = input_for(d, n);
    std::vector<double> weights(n);
    fill_random<double>(weights, 47);
    const auto d_values = test::upload<std::int32_t>(values);
    const auto d_weights = test::upload<double>(weights);
    for (std::uint32_t m : {1u, 7u, 256u, 4097u}) {
      const std::size_t bytes = histogram_weighted_temp_bytes(n, m);
      DeviceBuffer<std::byte> temp(bytes);
      DeviceBuffer<double> library(m), match(m);
      histogram_detail::histogram_weighted_by_ballots(d_values.data(), d_weights.data(), n, m, library.data(), temp.data(), bytes, nullptr);
      histogram_detail::histogram_weighted_by_match(d_values.data(), d_weights.data(), n, m, match.data(), temp.data(), bytes,
                                                    nullptr);
      const auto a = test::download(library.data(), m), b = test::download(match.data(), m);
      EXPECT_EQ(std::memcmp(a.data(), b.data(), m * sizeof(double)), 0) << histogram_distribution_name(d) << ", m = " << m;
    }
  }
}

// The weighted ladder's rung 3 gives each bin's exact sum, rounded once to double (then to W): the
// sums made on the CPU from the same integers (fixed_point_sum.hpp, which the CPU tests check
// against the compiler's 128-bit integers), bit for bit, in shared memory (m ≤ 5000) and in global
// memory (m = 20 000: 640 KB of counters); weights past 128 bits of span give NaN.
/// A rung of the weighted ladder (rung 3 unless told) over uploaded values and weights: its m sums, downloaded.
template <class W>
std::vector<W> exact_rung_sums(std::span<const std::int32_t> values, std::span<const W> weights, std::uint32_t m,
                               std::size_t index = 2, std::string_view name = "exact_fixed_point") {
  const auto& rung = weighted_histogram_rungs<W>()[index];
  EXPECT_EQ(rung.name, name);
  const auto d_values = test::upload<std::int32_t>(values);
  const auto d_weights = test::upload<W>(weights);
  const std::size_t bytes = rung.workspace_bytes(values.size(), m);
  DeviceBuffer<std::byte> workspace(bytes);
  DeviceBuffer<W> sums(m);
  rung.run(d_values.data(), d_weights.data(), values.size(), m, sums.data(), workspace.data(), bytes, nullptr);
  return test::download(sums.data(), m);
}

/// Every bin of `got` the same bits as `want`'s (a sum of weights, W float or double).
template <class W>
void expect_same_bits(const std::vector<W>& got, const std::vector<W>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t b = 0; b < want.size(); ++b)
    ASSERT_EQ(std::memcmp(&got[b], &want[b], sizeof(W)), 0) << "bin " << b << ": " << got[b] << " against " << want[b];
}

template <class W>
void expect_exact_rung(std::size_t n, std::uint32_t m, int spread, HistogramDistribution dist = HistogramDistribution::uniform,
                       std::size_t index = 2, std::string_view name = "exact_fixed_point") {
  namespace fp = gpulab::fixed_point;
  const auto values = input_for(dist, n);
  std::vector<W> weights(n);
  fill_random<W>(weights, 13);
  for (std::size_t i = 0; i < n; ++i) weights[i] = std::ldexp(weights[i], static_cast<int>(i % (2 * spread + 1)) - spread);
  fp::Span span;
  for (W w : weights) span.add(w);
  // Past 128 bits the rung gives NaN (checked below): these weights must stay inside.
  ASSERT_TRUE(span.fits(n)) << "the test's weights span too many binades";
  const int q_min = span.q_min;
  std::vector<fp::Int128> exact(m);
  const BinRule rule(m);
  for (std::size_t i = 0; i < n; ++i)
    if (weights[i] != 0) fp::add_into(exact[rule(values[i])], fp::to_fixed(weights[i], q_min));
  std::vector<W> want(m);
  for (std::uint32_t b = 0; b < m; ++b) want[b] = static_cast<W>(fp::to_double(exact[b], q_min, fp::kRoundToOdd<W>));
  expect_same_bits(exact_rung_sums<W>(values, weights, m, index, name), want);
}

TEST(HistogramWeighted, TheExactRungGivesTheRoundedExactSum) {
  for (std::uint32_t m : {1u, 7u, 256u, 5000u, 20'000u}) {
    SCOPED_TRACE("m = " + std::to_string(m));
    // Weights on grids of 2^-23 (float32) and 2^-52 (float64) in [-1, 1), scaled by 2^±30 and 2^±20:
    // 2^20 of them take 105 and 114 bits (the lowest set bits count, not the format's last).
    expect_exact_rung<float>((std::size_t{1} << 20) + 5, m, 30);
    expect_exact_rung<double>((std::size_t{1} << 20) + 5, m, 20);
    // Every value in one bin: whole warps summed by shuffles (m = 1 above too), in shared and global counters.
    expect_exact_rung<float>((std::size_t{1} << 20) + 5, m, 30, HistogramDistribution::degenerate);
    expect_exact_rung<double>((std::size_t{1} << 20) + 5, m, 20, HistogramDistribution::degenerate);
  }
  // A span past 128 bits (2^-100 beside 2^100 in float32): NaN in every bin, never a wrong sum.
  const std::vector<float> weights = {std::ldexp(1.0f, -100), std::ldexp(1.0f, 100), 1.0f, 2.0f};
  const std::vector<std::int32_t> values = {0, 1, 2, 3};
  for (float s : exact_rung_sums<float>(values, weights, 4)) EXPECT_TRUE(std::isnan(s));
}

// Rungs 4 and 5, float32 weights summed exactly without a first pass (a superaccumulator; carry-save
// digits): each bin's exact sum rounded once to float, bit for bit with the CPU's
// superaccumulator (fixed_point_sum.hpp, checked in the CPU tests) over weights spanning 2^±60 (past
// rung 3's 128 bits), spread over the bins and all in one (whole warps of one bin summed first), in
// shared memory (m ≤ 2000) and past it (5000 bins: rung 4's global counters; rung 5's three passes,
// and past its passes rung 4's); Inf and NaN as IEEE addition gives them.
/// Each bin's sum by the CPU's superaccumulator, rounded as the exact rungs round it.
std::vector<float> superaccumulator_sums(std::span<const std::int32_t> values, std::span<const float> weights, std::uint32_t m) {
  namespace fp = gpulab::fixed_point;
  const auto add = [](std::uint32_t* p, std::uint32_t v) { return std::exchange(*p, *p + v); };
  std::vector<std::uint32_t> positive(std::size_t{fp::kSuperLimbs} * m), negative(std::size_t{fp::kSuperLimbs} * m);
  const BinRule rule(m);
  for (std::size_t i = 0; i < values.size(); ++i)
    fp::add_to_super((weights[i] < 0 ? negative : positive).data() + rule(values[i]), weights[i], add, m);
  std::vector<float> sums(m);
  for (std::uint32_t b = 0; b < m; ++b) sums[b] = static_cast<float>(fp::super_to_double(positive.data() + b, negative.data() + b, m, true));
  return sums;
}

/// An exact rung's sums of +Inf, −Inf and NaN beside finite weights, as IEEE addition gives them:
/// +Inf, −Inf, NaN (both infinities), NaN, and +0 for weights that cancel.
template <class W>
void expect_ieee_specials(std::size_t index, std::string_view name) {
  const W inf = std::numeric_limits<W>::infinity(), nan = std::numeric_limits<W>::quiet_NaN();
  const std::vector<W> special = {inf, W(1), -inf, W(2), inf, -inf, nan, W(3), W(5), W(-5)};
  const std::vector<std::int32_t> bins = {0, 0, 1, 1, 2, 2, 3, 3, 4, 4};
  const auto sums = exact_rung_sums<W>(bins, special, 5, index, name);
  EXPECT_EQ(sums[0], inf);
  EXPECT_EQ(sums[1], -inf);
  EXPECT_TRUE(std::isnan(sums[2]));
  EXPECT_TRUE(std::isnan(sums[3]));
  EXPECT_EQ(sums[4], W(0));
  EXPECT_FALSE(std::signbit(sums[4]));
}

constexpr std::pair<std::size_t, std::string_view> kFloat32ExactRungs[] = {{3, "exact_superaccumulator"}, {4, "carry_save_digits"}};

TEST(HistogramWeighted, TheFloat32ExactRungsGiveTheRoundedExactSum) {
  const std::size_t n = (std::size_t{1} << 20) + 5;
  for (int spread : {60, 2}) {  // 2^±2: a warp's weights mostly within two of the digits' counters
    std::vector<float> weights(n);
    fill_random<float>(weights, 17);
    for (std::size_t i = 0; i < n; ++i) weights[i] = std::ldexp(weights[i], static_cast<int>(i % (2 * spread + 1)) - spread);
    for (HistogramDistribution d : {HistogramDistribution::uniform, HistogramDistribution::degenerate}) {
      const auto values = input_for(d, n);
      for (std::uint32_t m : {1u, 7u, 256u, 2000u, 5000u, histogram_detail::histogram_weighted_digits_max_bins<float>() + 1}) {
        const auto want = superaccumulator_sums(values, weights, m);
        for (const auto& [index, name] : kFloat32ExactRungs) {
          SCOPED_TRACE(fmt::format("{}, {}, m = {}, 2^±{}", name, histogram_distribution_name(d), m, spread));
          expect_same_bits(exact_rung_sums<float>(values, weights, m, index, name), want);
        }
      }
    }
  }
  for (const auto& [index, name] : kFloat32ExactRungs) {
    SCOPED_TRACE(name);
    expect_ieee_specials<float>(index, name);
  }
}

// The digits path (the library's for float32) adds a block's 32-bit counters into the global ones
// every 2^19 of its elements, which a test's n never reaches: flushed after every tile of 4096
// instead, the same bits. Weights of every finite float32 bit pattern (tiny, huge, subnormal), so
// that warps of one bin whose weights lie far apart add lane by lane; arrays that start one element
// past a 16-byte boundary, read element by element.
TEST(HistogramWeighted, TheDigitsFlushedEveryTileGiveTheSameBits) {
  const std::size_t n = (std::size_t{1} << 21) + 3;
  std::vector<float> weights(n);
  std::mt19937 random(5);
  for (float& w : weights) {
    do w = std::bit_cast<float>(static_cast<std::uint32_t>(random()));
    while (!std::isfinite(w));
  }
  const auto d_weights = test::upload<float>(weights);
  for (HistogramDistribution d : {HistogramDistribution::uniform, HistogramDistribution::degenerate}) {
    const auto values = input_for(d, n);
    const auto d_values = test::upload<std::int32_t>(values);
    for (std::uint32_t m : {1u, 256u, 5000u}) {  // 5000: three passes over the bins
      SCOPED_TRACE(fmt::format("{}, m = {}", histogram_distribution_name(d), m));
      const std::size_t bytes = histogram_detail::histogram_weighted_digits_temp_bytes<float>(m);
      DeviceBuffer<std::byte> temp(bytes);
      DeviceBuffer<float> sums(m);
      for (unsigned tiles_per_flush : {0u, 1u}) {
        histogram_detail::histogram_weighted_digits(d_values.data(), d_weights.data(), n, m, sums.data(), temp.data(), bytes, nullptr,
                                                    tiles_per_flush);
        expect_same_bits(test::download(sums.data(), m), superaccumulator_sums(values, weights, m));
      }
      histogram_detail::histogram_weighted_digits(d_values.data() + 1, d_weights.data() + 1, n - 1, m, sums.data(), temp.data(), bytes, nullptr);
      expect_same_bits(test::download(sums.data(), m),
                       superaccumulator_sums(values.subspan(1), std::span<const float>(weights).subspan(1), m));
    }
  }
}

// float64 as carry-save digits (rung 5, up to two passes): bit for bit
// with the CPU's digits (fixed_point_sum.hpp, which the CPU tests check against IEEE addition) over
// weights of every finite bit pattern and within 2^±2 (a warp's weights mostly within two counters:
// the warps of one bin summed by shuffles), spread over the bins and all in one, in one pass and
// two, flushed every tile and at the end, read by vectors and element by element; against the
// 128-bit path's CPU sums (another integer form) within 2^±20; Inf and NaN as IEEE addition gives them.
std::vector<double> float64_digits_sums(std::span<const std::int32_t> values, std::span<const double> weights, std::uint32_t m) {
  namespace fp = gpulab::fixed_point;
  constexpr int kDigits = fp::DigitFormat<double>::kDigits;
  std::vector<std::int64_t> counters(std::size_t{kDigits} * m);
  const BinRule rule(m);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const auto d = fp::to_digits(weights[i]);
    for (int j = 0; j < fp::DigitFormat<double>::kParts; ++j) counters[std::size_t{rule(values[i])} * kDigits + d.first + j] += d.digit[j];
  }
  std::vector<double> sums(m);
  for (std::uint32_t b = 0; b < m; ++b) sums[b] = fp::round_digits<double>(counters.data() + std::size_t{b} * kDigits, 1);
  return sums;
}

TEST(HistogramWeighted, TheFloat64DigitsGiveTheRoundedExactSum) {
  const std::size_t n = (std::size_t{1} << 20) + 5;
  const std::uint32_t two_passes = histogram_detail::histogram_weighted_digits_max_bins<double>();
  ASSERT_EQ(histogram_detail::histogram_weighted_digits_library_bins<double>(), two_passes / 2);  // the library: one pass
  std::mt19937_64 random(23);
  for (int spread : {0, 2}) {  // 0: any finite bit pattern
    std::vector<double> weights(n);
    fill_random<double>(weights, 29);
    for (std::size_t i = 0; i < n; ++i) {
      if (spread > 0) weights[i] = std::ldexp(weights[i], static_cast<int>(i % (2 * spread + 1)) - spread);
      else
        do weights[i] = std::bit_cast<double>(static_cast<std::uint64_t>(random()));
        while (!std::isfinite(weights[i]));
    }
    const auto d_weights = test::upload<double>(weights);
    for (HistogramDistribution d : {HistogramDistribution::uniform, HistogramDistribution::degenerate}) {
      const auto values = input_for(d, n);
      const auto d_values = test::upload<std::int32_t>(values);
      for (std::uint32_t m : {1u, 7u, 256u, two_passes / 2, two_passes}) {
        SCOPED_TRACE(fmt::format("{}, m = {}, {}", histogram_distribution_name(d), m, spread > 0 ? "2^±2" : "any bits"));
        const auto want = float64_digits_sums(values, weights, m);
        expect_same_bits(exact_rung_sums<double>(values, weights, m, 4, "carry_save_digits"), want);
        const std::size_t bytes = histogram_detail::histogram_weighted_digits_temp_bytes<double>(m);
        DeviceBuffer<std::byte> temp(bytes);
        DeviceBuffer<double> sums(m);
        histogram_detail::histogram_weighted_digits(d_values.data(), d_weights.data(), n, m, sums.data(), temp.data(), bytes, nullptr, 1);
        expect_same_bits(test::download(sums.data(), m), want);  // flushed every tile
        histogram_detail::histogram_weighted_digits(d_values.data() + 1, d_weights.data() + 1, n - 1, m, sums.data(), temp.data(), bytes, nullptr);
        expect_same_bits(test::download(sums.data(), m),
                         float64_digits_sums(values.subspan(1), std::span<const double>(weights).subspan(1), m));
        if (m <= histogram_detail::histogram_weighted_digits_library_bins<double>()) {  // the library's float64 path
          const std::size_t library_bytes = histogram_weighted_temp_bytes(n, m);
          DeviceBuffer<std::byte> library_temp(library_bytes);
          histogram_weighted(d_values.data(), d_weights.data(), n, m, sums.data(), library_temp.data(), library_bytes);
          expect_same_bits(test::download(sums.data(), m), want);
        }
      }
    }
  }
  for (std::uint32_t m : {1u, 256u, two_passes}) {
    SCOPED_TRACE(fmt::format("against the 128-bit sums, m = {}", m));
    expect_exact_rung<double>((std::size_t{1} << 20) + 5, m, 20, HistogramDistribution::uniform, 4, "carry_save_digits");
    expect_exact_rung<double>((std::size_t{1} << 20) + 5, m, 20, HistogramDistribution::degenerate, 4, "carry_save_digits");
  }
  expect_ieee_specials<double>(4, "carry_save_digits");
}

// Rung 6, by ranges of bins: bit for bit with the CPU's exact sums (float32's superaccumulator,
// float64's digits) over weights of every finite bit pattern, one range to many (2^20 + 3 bins in
// ranges of up to 2048), values spread and all in one bin (one range's 2^20 elements: its counters
// carried between chunks of 2^19), nothing at all, and Inf and NaN.
TEST(HistogramWeighted, TheRangeDigitsGiveTheRoundedExactSum) {
  const std::size_t n = (std::size_t{1} << 20) + 5;
  std::mt19937_64 random(31);
  std::vector<float> w32(n);
  std::vector<double> w64(n);
  for (std::size_t i = 0; i < n; ++i) {
    do w32[i] = std::bit_cast<float>(static_cast<std::uint32_t>(random()));
    while (!std::isfinite(w32[i]));
    do w64[i] = std::bit_cast<double>(static_cast<std::uint64_t>(random()));
    while (!std::isfinite(w64[i]));
  }
  for (HistogramDistribution d : {HistogramDistribution::uniform, HistogramDistribution::degenerate}) {
    const auto values = input_for(d, n);
    for (std::uint32_t m : {1u, 7u, 256u, 5000u, (1u << 20) + 3}) {
      SCOPED_TRACE(fmt::format("{}, m = {}", histogram_distribution_name(d), m));
      expect_same_bits(exact_rung_sums<float>(values, w32, m, 5, "range_digits"), superaccumulator_sums(values, w32, m));
      expect_same_bits(exact_rung_sums<double>(values, w64, m, 5, "range_digits"), float64_digits_sums(values, w64, m));
    }
  }
  const std::vector<std::int32_t> none;
  for (float s : exact_rung_sums<float>(none, std::vector<float>{}, 300, 5, "range_digits")) EXPECT_EQ(std::bit_cast<std::uint32_t>(s), 0u);
  expect_ieee_specials<float>(5, "range_digits");
  expect_ieee_specials<double>(5, "range_digits");
}

TEST(HistogramWeighted, RefusesBadArguments) {
  const std::size_t n = 1000;
  DeviceBuffer<std::int32_t> values(n);
  DeviceBuffer<double> weights(n), sums(64);
  const std::size_t bytes = histogram_weighted_temp_bytes(n, 64);
  DeviceBuffer<std::byte> temp(bytes);
  EXPECT_THROW(histogram_weighted(values.data(), weights.data(), n, 0, sums.data(), temp.data(), bytes), Error);
  EXPECT_THROW(histogram_weighted(values.data(), weights.data(), n, 64, sums.data(), temp.data(), bytes - 1), Error);
  EXPECT_THROW(histogram_weighted(values.data(), static_cast<const double*>(nullptr), n, 64, sums.data(), temp.data(), bytes), Error);
  EXPECT_THROW(histogram_weighted(values.data(), weights.data(), n, histogram_weighted_max_bins() + 1, sums.data(), temp.data(), bytes),
               Error);  // the sorted path's storage is larger
  EXPECT_THROW(histogram_weighted_temp_bytes(n, 0), Error);
  EXPECT_NO_THROW(histogram_weighted<double>(nullptr, nullptr, 0, 64, sums.data(), nullptr, 0));  // n = 0: sums zeroed
  EXPECT_EQ(test::download(sums.data(), 64), std::vector<double>(64, 0.0));
}

template <class T>
void expect_float_forms_match(std::size_t n) {
  std::vector<T> values(n);
  fill_float_histogram_input<T>(values, 91);
  const auto d_values = test::upload<T>(values);
  for (std::uint32_t m : {1u, 7u, 256u, 70'001u}) {
    SCOPED_TRACE("n = " + std::to_string(n) + ", m = " + std::to_string(m));
    DeviceBuffer<std::uint32_t> counts(m);
    histogram_range<T>(d_values.data(), n, m, T(-1), T(1), counts.data());
    EXPECT_EQ(test::download(counts.data(), m), histogram_range_reference<T>(values, m, T(-1), T(1)));
    const auto edges = uneven_edges<T>(m);
    const auto d_edges = test::upload<T>(edges);
    histogram_edges<T>(d_values.data(), n, d_edges.data(), m, counts.data());
    EXPECT_EQ(test::download(counts.data(), m), histogram_edges_reference<T>(values, edges));
  }
}

TEST(HistogramFloat, RangeAndEdgesMatchTheReference) {
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{1000}, (std::size_t{1} << 24) + 3}) {  // the last: two chunks
    expect_float_forms_match<float>(n);
    expect_float_forms_match<double>(n);
  }
}

// The library makes each bin where it counts it, in each shared-memory path (m + 1 = 2 and 8:
// packed_registers; 9: replicated_resident; 4096: replicated_resident, halfword_shared where the
// edges and their guide take shared memory too; 30 000 and 100 000: halfword_shared, the edges
// mapped; 200 000: mapped), from a start that is not 16-byte
// aligned (a head and a tail of single values), and when every value falls in one bin (halfword's
// 16-bit counters spill past 2^15): the same counts as rung 2's map-then-count and the reference.
template <class T>
void expect_counted_where_read(std::size_t n) {
  std::vector<T> values(n + 1);
  fill_float_histogram_input<T>(values, 29);
  const std::vector<T> same(n + 1, T(0.25));
  for (const std::vector<T>* input : {static_cast<const std::vector<T>*>(&values), &same}) {
    const auto d_values = test::upload<T>(*input);
    const std::span<const T> counted(input->data() + 1, n);  // from element 1: 4 or 8 bytes past a 16-byte boundary
    for (std::uint32_t m : {1u, 7u, 8u, 4095u, 29'999u, 99'999u, 200'000u}) {
      SCOPED_TRACE(fmt::format("n = {}, m = {}, {}", n, m, input == &same ? "one value" : "random"));
      const auto edges = uneven_edges<T>(m);
      const auto d_edges = test::upload<T>(edges);
      DeviceBuffer<std::uint32_t> library(m), mapped(m);
      histogram_range<T>(d_values.data() + 1, n, m, T(-1), T(1), library.data());
      histogram_detail::histogram_range_mapped<T>(d_values.data() + 1, n, m, T(-1), T(1), mapped.data(), nullptr);
      const auto want = histogram_range_reference<T>(counted, m, T(-1), T(1));
      EXPECT_EQ(test::download(library.data(), m), want) << "range";
      EXPECT_EQ(test::download(mapped.data(), m), want) << "range, mapped";
      histogram_edges<T>(d_values.data() + 1, n, d_edges.data(), m, library.data());
      histogram_detail::histogram_edges_mapped<T>(d_values.data() + 1, n, d_edges.data(), m, mapped.data(), nullptr);
      const auto want_edges = histogram_edges_reference<T>(counted, edges);
      EXPECT_EQ(test::download(library.data(), m), want_edges) << "edges";
      EXPECT_EQ(test::download(mapped.data(), m), want_edges) << "edges, mapped";
    }
  }
}

TEST(HistogramFloat, CountedWhereReadAsWhenMapped) {
  expect_counted_where_read<float>((std::size_t{1} << 20) + 3);
  expect_counted_where_read<double>((std::size_t{1} << 20) + 3);
  expect_counted_where_read<float>(5);  // fewer values than a vector's worth past the head
}

// The equal bins' division made from the range's reciprocal (range_rule) gives torch's bins where
// the reciprocal is inexact: each bin's edge and its neighbours among the values, random values
// too, over ranges of awkward widths, one far from zero, and ranges where the library divides.
template <class T>
void expect_awkward_range(std::uint32_t m, T lo, T hi) {
  std::vector<T> values(50'000);
  fill_float_histogram_input<T>(values, 31);
  for (T& v : values) v = lo + (v + T(1)) / T(2) * (hi - lo);
  for (std::uint32_t b = 0; b <= m; ++b) {
    T v = lo + (hi - lo) * static_cast<T>(b) / static_cast<T>(m);
    for (int k = 0; k < 3; ++k) v = std::nextafter(v, -std::numeric_limits<T>::infinity());
    for (int k = 0; k < 7; ++k, v = std::nextafter(v, std::numeric_limits<T>::infinity())) values.push_back(v);
  }
  const auto d_values = test::upload<T>(values);
  DeviceBuffer<std::uint32_t> counts(m);
  histogram_range<T>(d_values.data(), values.size(), m, lo, hi, counts.data());
  EXPECT_EQ(test::download(counts.data(), m), histogram_range_reference<T>(values, m, lo, hi)) << "m " << m << ", [" << lo << ", " << hi << "]";
}

TEST(HistogramFloat, AwkwardRangesGiveTorchsBins) {
  for (std::uint32_t m : {7u, 1000u, 4096u}) {
    expect_awkward_range<float>(m, 0.1f, 0.7f);
    expect_awkward_range<float>(m, -3.3e7f, 1.7e-3f);
    expect_awkward_range<float>(m, 1e6f, 1e6f + 1.0f);
    expect_awkward_range<float>(m, -3e38f, 3e38f);  // the width overflows: divided
    expect_awkward_range<double>(m, 1.0 / 3.0, 2.0);
    expect_awkward_range<double>(m, -0.3, 1e5);
  }
}

// The edges' guide (bin_of_float.hpp) is a hint checked against the edges: edges closer than the
// values' resolution, repeated edges, a span past the largest float and edges far from even give
// edge_bin's bins exactly, the edges themselves and their neighbours among the values.
TEST(HistogramFloat, AwkwardEdgesGiveTheSearchsBins) {
  const float big = std::numeric_limits<float>::max();
  std::vector<std::vector<float>> edge_sets;
  std::vector<float> e;
  for (int k = 0; k <= 1000; ++k) e.push_back(1e6f + 1e-3f * static_cast<float>(k));  // 1000 bins over 16 ulps
  edge_sets.push_back(e);
  edge_sets.push_back({0.0f, 0.0f, 0.0f, 1.0f, 1.0f, 2.0f, 2.0f, 2.0f});             // repeats
  edge_sets.push_back({-big, -1.0f, 0.0f, 1.0f, big});                                // a span of inf
  e.clear();
  for (int k = 0; k <= 120; ++k) e.push_back(std::ldexp(1.0f, k - 60));               // powers of two
  edge_sets.push_back(e);
  edge_sets.push_back({3.0f, 3.0f});                                                  // one bin of width 0
  for (const auto& edges : edge_sets) {
    SCOPED_TRACE(fmt::format("{} edges from {} to {}", edges.size(), edges.front(), edges.back()));
    std::vector<float> values(300'007);
    fill_float_histogram_input<float>(values, 5);
    for (std::size_t i = 0; i < values.size(); ++i) {
      const float edge = edges[i % edges.size()];
      switch (i % 5) {
        case 0: values[i] = edge; break;
        case 1: values[i] = std::nextafter(edge, big); break;
        case 2: values[i] = std::nextafter(edge, -big); break;
        case 3: values[i] = edges.front() + (edges.back() - edges.front()) * (values[i] + 1.5f) / 3.0f; break;
        default: break;  // the input's own values and specials
      }
    }
    const auto m = static_cast<std::uint32_t>(edges.size() - 1);
    const auto d_values = test::upload<float>(values);
    const auto d_edges = test::upload<float>(edges);
    DeviceBuffer<std::uint32_t> counts(m);
    histogram_edges<float>(d_values.data(), values.size(), d_edges.data(), m, counts.data());
    EXPECT_EQ(test::download(counts.data(), m), histogram_edges_reference<float>(values, edges));
  }
}

TEST(HistogramFloat, APerRowInOneCall) {
  // A row of each count, a column, rows longer than a chunk of indices (2^24), empty rows; 1000 rows
  // of 301 counters pass shared memory together: three groups of rows (386 a group on an H100).
  for (auto [rows, cols] : {std::pair<std::size_t, std::size_t>{3, 1}, {7, 1000}, {1000, 7}, {2, (std::size_t{1} << 24) + 3}, {4, 0}}) {
    std::vector<float> values(rows * cols);
    fill_float_histogram_input<float>(values, 17);
    const auto d_values = test::upload<float>(values);
    for (std::uint32_t m : {1u, 5u, 300u}) {
      SCOPED_TRACE(std::to_string(rows) + " × " + std::to_string(cols) + ", m = " + std::to_string(m));
      const auto edges = uneven_edges<float>(m);
      const auto d_edges = test::upload<float>(edges);
      DeviceBuffer<std::uint32_t> counts(rows * m);
      for (bool by_edges : {false, true}) {
        if (by_edges) histogram_edges_rows<float>(d_values.data(), rows, cols, d_edges.data(), m, counts.data());
        else histogram_range_rows<float>(d_values.data(), rows, cols, m, -1.0f, 1.0f, counts.data());
        const auto got = test::download(counts.data(), rows * m);
        for (std::size_t r = 0; r < rows; ++r) {
          const std::span<const float> row(values.data() + r * cols, cols);
          const auto want = by_edges ? histogram_edges_reference<float>(row, edges) : histogram_range_reference<float>(row, m, -1.0f, 1.0f);
          ASSERT_TRUE(std::equal(want.begin(), want.end(), got.begin() + static_cast<std::ptrdiff_t>(r * m)))
              << (by_edges ? "edges" : "range") << ", row " << r;
        }
      }
    }
  }
  DeviceBuffer<float> values(8);
  DeviceBuffer<std::uint32_t> counts(8);
  EXPECT_THROW(histogram_range_rows<float>(values.data(), 0, 8, 4, 0.0f, 1.0f, counts.data()), Error);  // no row
  EXPECT_THROW(histogram_range_rows<float>(values.data(), std::size_t{1} << 20, 1, 1u << 12, 0.0f, 1.0f, counts.data()),
               Error);  // 2^20 rows of 2^12 + 1 bins: past 2^32
}

TEST(HistogramFloat, RefusesBadArguments) {
  DeviceBuffer<float> values(8), edges(5);
  DeviceBuffer<std::uint32_t> counts(4);
  EXPECT_THROW(histogram_range<float>(values.data(), 8, 4, 1.0f, 1.0f, counts.data()), Error);  // lo = hi
  EXPECT_THROW(histogram_range<float>(values.data(), 8, 4, 0.0f, std::numeric_limits<float>::infinity(), counts.data()), Error);
  EXPECT_THROW(histogram_range<float>(values.data(), 8, 0, 0.0f, 1.0f, counts.data()), Error);
  EXPECT_THROW(histogram_range<float>(nullptr, 8, 4, 0.0f, 1.0f, counts.data()), Error);
  EXPECT_THROW(histogram_edges<float>(values.data(), 8, nullptr, 4, counts.data()), Error);
  EXPECT_THROW(histogram_edges<float>(values.data(), std::size_t{1} << 32, edges.data(), 4, counts.data()), Error);
  EXPECT_NO_THROW(histogram_range<float>(nullptr, 0, 4, 0.0f, 1.0f, counts.data()));
  EXPECT_EQ(test::download(counts.data(), 4), std::vector<std::uint32_t>(4, 0));
}

TEST(HistogramWide, TheSameCountsAsThe32BitForm) {
  const std::size_t n = 1'000'003;
  const auto values = input_for(HistogramDistribution::uniform, n);
  const auto d_values = test::upload<std::int32_t>(values);
  for (std::uint32_t m : {1u, 7u, 256u, 70'001u}) {
    SCOPED_TRACE("m = " + std::to_string(m));
    DeviceBuffer<std::uint32_t> narrow(m);
    DeviceBuffer<std::uint64_t> wide(m);
    histogram(d_values.data(), n, m, narrow.data());
    histogram(d_values.data(), n, m, wide.data());
    const auto want = test::download(narrow.data(), m);
    EXPECT_EQ(test::download(wide.data(), m), std::vector<std::uint64_t>(want.begin(), want.end()));
  }
  DeviceBuffer<std::uint64_t> counts(5);
  EXPECT_NO_THROW(histogram(static_cast<const std::int32_t*>(nullptr), 0, 5, counts.data()));  // n = 0: zeros
  EXPECT_EQ(test::download(counts.data(), 5), std::vector<std::uint64_t>(5, 0));
  EXPECT_THROW(histogram(d_values.data(), n, 0, counts.data()), Error);
  EXPECT_THROW(histogram(d_values.data(), n, 5, static_cast<std::uint64_t*>(nullptr)), Error);
}

TEST(HistogramWide, ABinPastTwoToThe32) {
  // 2^32 + 5 values (16 GiB), all 0 but one 3 at the end of the first chunk of 2^32 − 1 and one
  // at the start of the second: bin 0 holds more than a uint32 can.
  const std::size_t n = (std::size_t{1} << 32) + 5;
  std::size_t free = 0, total = 0;
  GPULAB_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  if (free < n * sizeof(std::int32_t) + (std::size_t{1} << 30)) GTEST_SKIP() << "needs 17 GiB of free GPU memory";
  DeviceBuffer<std::int32_t> values(n);
  GPULAB_CUDA_CHECK(cudaMemset(values.data(), 0, n * sizeof(std::int32_t)));
  const std::int32_t three = 3;
  for (std::size_t i : {(std::size_t{1} << 32) - 2, (std::size_t{1} << 32) - 1})
    GPULAB_CUDA_CHECK(cudaMemcpy(values.data() + i, &three, sizeof three, cudaMemcpyHostToDevice));
  DeviceBuffer<std::uint64_t> counts(5);
  histogram(values.data(), n, 5, counts.data());
  EXPECT_EQ(test::download(counts.data(), 5), (std::vector<std::uint64_t>{n - 2, 0, 0, 2, 0}));
}

}  // namespace
