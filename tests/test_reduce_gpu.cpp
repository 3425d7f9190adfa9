// Every reduction rung (and the vendor) × type × awkward size, through the harness's checked run
// (poisoned output, guard band, the rung's own derived tolerance); the library's contract as a user
// calls it.
#include "gpu_test_support.hpp"

#include "core/dtype.hpp"
#include "core/memory.hpp"
#include "core/random.hpp"
#include "reduce/reduce_problem.hpp"

#include <gpulab/reduce.hpp>

#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <tuple>
#include <vector>

using namespace gpulab;

namespace {

struct Case {
  DType type;
  std::size_t rung;  // index into reduce_rungs<T>()
  std::size_t n;
  unsigned block;
  std::size_t offset = 0;  // elements the input starts past a 256-byte boundary
};

std::string_view rung_name(std::size_t i) { return reduce_rungs<float>()[i].name; }

void PrintTo(const Case& c, std::ostream* os) {
  *os << dtype_name(c.type) << " " << rung_name(c.rung) << " n=" << c.n << " block=" << c.block << " offset=" << c.offset;
}

BenchCase& case_for(const Case& c) {
  return test::cached_case(std::make_tuple(c.type, c.n, c.block, c.offset), [&]() -> std::unique_ptr<BenchCase> {
    return visit_dtype(c.type, [&](auto t) -> std::unique_ptr<BenchCase> {
      return std::make_unique<ReduceCase<decltype(t)>>(ReduceCaseSpec{c.n, c.block, 1000 + c.n, c.offset});
    });
  });
}

class ReduceLadder : public ::testing::TestWithParam<Case> {};

TEST_P(ReduceLadder, MatchesReference) {
  const Case& c = GetParam();
  const CheckResult r = run_checked(case_for(c), c.rung);
  EXPECT_TRUE(r.ok) << rung_name(c.rung) << " n=" << c.n << " block=" << c.block << ": " << r.detail;
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  const std::vector<std::size_t> sizes{0, 1, 2, 31, 32, 33, 63, 65, 1023, 1025, 4097, 65537,
                                       (1u << 20) - 1, (1u << 20) + 1, 1000003, (1u << 24) + 1};
  for (DType t : {DType::int32, DType::float32, DType::float64})
    for (std::size_t v = 0; v < reduce_rungs<float>().size(); ++v) {
      for (std::size_t n : sizes) cases.push_back({t, v, n, 256});
      // The seeds' block sizes (003: 64, 000: 1024) and the smallest, at the seeds' sizes.
      cases.push_back({t, v, 1u << 20, 1024});
      cases.push_back({t, v, (1u << 24) - 1, 64});
      cases.push_back({t, v, 777, 32});
      // Inputs that do not start on a 16-byte boundary (the vectorised rungs' head path).
      for (std::size_t offset : {1u, 2u, 3u})
        for (std::size_t n : {1u, 3u, 5u, 1000u}) cases.push_back({t, v, n, 128, offset});
    }
  return cases;
}

// "small_" marks the cases compute-sanitizer runs (scripts/device_run.sh).
std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  const Case& c = info.param;
  const bool small = (c.n == 33 || c.n == 1025) ? c.block == 256 : (c.n == 777 || c.offset == 1);
  std::string name = fmt::format("{}{}_{}_n{}_b{}_off{}", small ? "small_" : "", dtype_name(c.type), rung_name(c.rung),
                                 c.n, c.block, c.offset);
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(All, ReduceLadder, ::testing::ValuesIn(all_cases()), case_name);

// Sizes past 2^30 elements (and past 2^31 for int32, where 32-bit indices would wrap): every rung on
// one shared input per type.
template <class T>
void check_huge(std::size_t n) {
  require_device_bytes(n * sizeof(T) + (n / 32 + 1024) * sizeof(T), "huge reduce test");
  ReduceCase<T> c({n, 256, 99});
  c.compute_reference();
  Stream stream;
  const DeviceArrays arrays(c, stream.get());
  for (std::size_t r = 0; r < reduce_rungs<T>().size(); ++r) {
    const OwnedWorkspace ws(c, r, stream.get());
    const CheckResult result = run_checked(c, r, arrays, ws.get(), stream.get());
    EXPECT_TRUE(result.ok) << reduce_rungs<T>()[r].name << " n=" << n << ": " << result.detail;
  }
}

TEST(ReduceLadderHuge, Float32Past2To30) { check_huge<float>((std::size_t{1} << 30) + 3); }
TEST(ReduceLadderHuge, Int32Past2To31) { check_huge<std::int32_t>((std::size_t{1} << 31) + 5); }

// ---- the public gpulab::reduce_sum, as a user calls it ------------------------------------------------

DeviceBuffer<unsigned char> zeroed_temp(std::size_t bytes) {
  DeviceBuffer<unsigned char> t(bytes);
  GPULAB_CUDA_CHECK(cudaMemset(t.data(), 0, bytes));
  return t;
}

template <class T>
T read_back(const T* d) {
  T v;
  GPULAB_CUDA_CHECK(cudaMemcpy(&v, d, sizeof(T), cudaMemcpyDeviceToHost));
  return v;
}

TEST(ReduceSum, DeterministicSameBitsEveryCall) {
  const std::size_t n = (std::size_t{1} << 24) + 3;
  std::vector<float> host(n);
  fill_random<float>(host, 11);
  auto d_in = test::upload<float>(host);
  DeviceBuffer<float> out(1);
  const std::size_t bytes = reduce_sum_temp_bytes<float>(n);
  auto temp_a = zeroed_temp(bytes), temp_b = zeroed_temp(bytes);
  reduce_sum(d_in.data(), n, out.data(), temp_a.data(), bytes);
  const float first = read_back(out.data());
  for (int i = 0; i < 50; ++i) {
    reduce_sum(d_in.data(), n, out.data(), (i % 2 ? temp_a : temp_b).data(), bytes);
    const float again = read_back(out.data());
    ASSERT_EQ(std::memcmp(&again, &first, sizeof(float)), 0) << "run " << i << ": " << again << " vs " << first;
  }
}

TEST(ReduceSum, ReusesTemporaryStorageAcrossSizesOnAStream) {
  Stream stream;
  const std::size_t max_n = 3'000'017;
  std::vector<double> host(max_n);
  fill_random<double>(host, 12);
  auto d_in = test::upload<double>(host);
  const std::size_t bytes = reduce_sum_temp_bytes<double>(max_n);
  auto temp = zeroed_temp(bytes);
  DeviceBuffer<double> out(1);
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{4096}, std::size_t{65537}, max_n}) {
    poison_device(out.data(), sizeof(double), 0xFF, stream.get());
    reduce_sum(d_in.data(), n, out.data(), temp.data(), bytes, stream.get());
    stream.synchronize();
    const auto ref = reduce_reference(std::span<const double>(host.data(), n));
    const CheckResult r = check_reduce(read_back(out.data()), ref, reduce_sum_accumulation_depth<double>(n));
    EXPECT_TRUE(r.ok) << "n=" << n << ": " << r.detail;
    // The contract: each call leaves the temporary storage zero-filled.
    std::vector<unsigned char> t(bytes);
    GPULAB_CUDA_CHECK(cudaMemcpy(t.data(), temp.data(), bytes, cudaMemcpyDeviceToHost));
    EXPECT_EQ(std::memcmp(t.data(), std::vector<unsigned char>(4, 0).data(), 4), 0) << "n=" << n;
  }
}

TEST(ReduceSum, Int32WrapsLikeTheReference) {
  std::vector<std::int32_t> host(100000, 2'000'000'000);
  auto d_in = test::upload<std::int32_t>(host);
  const std::size_t bytes = reduce_sum_temp_bytes<std::int32_t>(host.size());
  auto temp = zeroed_temp(bytes);
  DeviceBuffer<std::int32_t> out(1);
  reduce_sum(d_in.data(), host.size(), out.data(), temp.data(), bytes);
  EXPECT_EQ(read_back(out.data()), reduce_reference<std::int32_t>(host).value);
}

TEST(ReduceSum, RefusesBadArguments) {
  const std::size_t n = 1 << 20;
  DeviceBuffer<float> in(n), out(1);
  const std::size_t bytes = reduce_sum_temp_bytes<float>(n);
  auto temp = zeroed_temp(bytes);
  EXPECT_THROW(reduce_sum(in.data(), n, out.data(), temp.data(), bytes - 1), Error);
  EXPECT_THROW(reduce_sum<float>(nullptr, n, out.data(), temp.data(), bytes), Error);
  EXPECT_THROW(reduce_sum(in.data(), n, static_cast<float*>(nullptr), temp.data(), bytes), Error);
  EXPECT_THROW(reduce_sum(in.data(), n, out.data(), nullptr, bytes), Error);
  EXPECT_NO_THROW(reduce_sum<float>(nullptr, 0, out.data(), temp.data(), bytes));
  GPULAB_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(read_back(out.data()), 0.0f);
}

TEST(ReduceSum, TemporaryStorageIsSmall) {
  // The partials of one resident grid: a few KiB whatever n is.
  EXPECT_LT(reduce_sum_temp_bytes<double>(std::size_t{1} << 34), std::size_t{64} << 10);
  EXPECT_LE(reduce_sum_temp_bytes<float>(1), reduce_sum_temp_bytes<float>(std::size_t{1} << 30));
}

}  // namespace
