// Every histogram rung (and the vendor) × distribution × awkward n × m, exact against the CPU
// reference on poisoned counts; misaligned inputs for the vectorised rungs; the library's
// contract.
#include "gpu_test_support.hpp"

#include "histogram/histogram_cpu.hpp"
#include "histogram/histogram_ladder.hpp"

#include <gpulab/error.hpp>
#include <gpulab/histogram.hpp>

#include <fmt/format.h>

#include <map>
#include <tuple>
#include <vector>

using namespace gpulab;

namespace {

struct Case {
  std::size_t variant;  // index into histogram_variants()
  HistogramDistribution dist;
  std::size_t n;
  std::uint32_t m;
  unsigned block = 256;
  std::size_t offset = 0;  // values the input starts past a 256-byte boundary
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << "rung " << histogram_variants()[c.variant].id << " " << histogram_distribution_name(c.dist) << " n=" << c.n
      << " m=" << c.m << " block=" << c.block << " offset=" << c.offset;
}

/// Inputs on the host and the device, made once per (distribution, n, offset) and kept: the
/// largest (2^25 values) would otherwise be generated and copied hundreds of times.
struct Input {
  std::vector<std::int32_t> host;
  DeviceBuffer<std::int32_t> device;
};
const Input& input_for(HistogramDistribution d, std::size_t n, std::size_t offset) {
  static std::map<std::tuple<HistogramDistribution, std::size_t, std::size_t>, Input> cache;
  auto key = std::make_tuple(d, n, offset);
  auto it = cache.find(key);
  if (it == cache.end()) {
    std::vector<std::int32_t> host(n + offset);
    fill_histogram_input(host, d, 7 + n);
    DeviceBuffer<std::int32_t> device = test::upload<std::int32_t>(host);
    it = cache.emplace(key, Input{std::move(host), std::move(device)}).first;
  }
  return it->second;
}

const std::vector<std::uint32_t>& reference_for(const Case& c) {
  static std::map<std::tuple<HistogramDistribution, std::size_t, std::size_t, std::uint32_t>, std::vector<std::uint32_t>> cache;
  auto key = std::make_tuple(c.dist, c.n, c.offset, c.m);
  auto it = cache.find(key);
  if (it == cache.end()) {
    const Input& in = input_for(c.dist, c.n, c.offset);
    it = cache.emplace(key, histogram_reference(std::span<const std::int32_t>(in.host).subspan(c.offset), c.m)).first;
  }
  return it->second;
}

/// Runs a variant on poisoned counts and returns what it wrote.
std::vector<std::uint32_t> run_variant(const HistogramVariant& v, const std::int32_t* values, std::size_t n,
                                       std::uint32_t m, unsigned block) {
  const std::size_t ws_bytes = v.workspace_bytes(n, m, block);
  DeviceBuffer<unsigned char> ws(ws_bytes);
  DeviceBuffer<std::uint32_t> counts(m);
  poison_device(counts.data(), m * sizeof(std::uint32_t), 0xFF, nullptr);
  v.run(values, n, m, counts.data(), ws.data(), ws_bytes, block, nullptr);
  std::vector<std::uint32_t> out(m);
  GPULAB_CUDA_CHECK(cudaMemcpy(out.data(), counts.data(), m * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
  return out;
}

class HistogramLadder : public ::testing::TestWithParam<Case> {};

TEST_P(HistogramLadder, MatchesReferenceExactly) {
  GPULAB_REQUIRE_GPU();
  const Case& c = GetParam();
  const HistogramVariant& v = histogram_variants()[c.variant];
  if (!v.supports(c.m)) GTEST_SKIP() << v.name << " cannot count " << c.m << " bins on this device";
  const Input& in = input_for(c.dist, c.n, c.offset);
  const auto got = run_variant(v, in.device.data() + c.offset, c.n, c.m, c.block);
  const CheckResult r = check_histogram(got, reference_for(c));
  EXPECT_TRUE(r.ok) << v.id << " " << v.name << ": " << r.detail;
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  const std::size_t variants = histogram_variants().size();
  const std::vector<std::size_t> sizes{0, 1, 31, 33, 1023, 1025, 65535, 65537, std::size_t{1} << 25};
  const std::vector<std::uint32_t> bins{1, 2, 7, 8, 255, 256, 4096, 65536, 1u << 20};
  for (std::size_t v = 0; v < variants; ++v) {
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

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  const Case& c = info.param;
  return fmt::format("rung{}_{}_n{}_m{}_b{}_off{}", histogram_variants()[c.variant].id,
                     histogram_distribution_name(c.dist), c.n, c.m, c.block, c.offset);
}

INSTANTIATE_TEST_SUITE_P(All, HistogramLadder, ::testing::ValuesIn(all_cases()), case_name);

TEST(Histogram, RefusesBadArguments) {
  GPULAB_REQUIRE_GPU();
  DeviceBuffer<std::uint32_t> counts(8);
  DeviceBuffer<std::int32_t> values(8);
  EXPECT_THROW(histogram(values.data(), 8, 0, counts.data()), Error);
  EXPECT_THROW(histogram(nullptr, 8, 8, counts.data()), Error);
  EXPECT_THROW(histogram(values.data(), 8, 8, nullptr), Error);
  EXPECT_THROW(histogram(values.data(), std::size_t{1} << 32, 8, counts.data()), Error);
  EXPECT_NO_THROW(histogram(nullptr, 0, 8, counts.data()));
}

TEST(Histogram, PicksItsPathByBins) {
  GPULAB_REQUIRE_GPU();
  EXPECT_EQ(histogram_path_name(1), "packed_registers");
  EXPECT_EQ(histogram_path_name(8), "packed_registers");
  EXPECT_EQ(histogram_path_name(9), "replicated_shared");
  EXPECT_EQ(histogram_path_name(256), "replicated_shared");
  int device = 0, major = 0, optin = 0;
  GPULAB_CUDA_CHECK(cudaGetDevice(&device));
  GPULAB_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  GPULAB_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (optin >= 128 * 1024) {
    EXPECT_EQ(histogram_path_name(65536), "halfword_shared");
  }
  if (major >= 9) {
    EXPECT_EQ(histogram_path_name(1u << 20), "cluster_shared");
    EXPECT_EQ(histogram_path_name(0xFFFFFFFFu), "cluster_shared");
  }
}

// Counts near the 32-bit limit: 2^32 − 1 values in one bin on a 16 GiB input is too much for a
// test, but a bin count past 2^31 (where a signed counter would turn negative) is affordable.
TEST(HistogramHuge, CountsPast2To31InOneBin) {
  GPULAB_REQUIRE_GPU();
  const std::size_t n = (std::size_t{1} << 31) + 7;
  require_device_bytes(n * 4 + (64u << 20), "huge histogram test");
  DeviceBuffer<std::int32_t> values(n);
  GPULAB_CUDA_CHECK(cudaMemset(values.data(), 0, n * 4));  // every value 0 → bin 0
  for (const auto& v : histogram_variants()) {
    for (std::uint32_t m : {1u, 8u, 256u}) {
      if (!v.supports(m)) continue;
      const auto got = run_variant(v, values.data(), n, m, 1024);
      std::vector<std::uint32_t> want(m, 0);
      want[0] = static_cast<std::uint32_t>(n);
      const CheckResult r = check_histogram(got, want);
      EXPECT_TRUE(r.ok) << v.id << " " << v.name << " m=" << m << ": " << r.detail;
    }
  }
}

}  // namespace
