// Every rung (and the vendor) × type × awkward size, checked against the CPU reference with the
// rung's own derived tolerance, on poisoned outputs.
#include "gpu_test_support.hpp"

#include "core/dtype.hpp"
#include "core/random.hpp"
#include "core/sizes.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <vector>

using namespace gpulab;

namespace {

struct Case {
  DType type;
  std::size_t variant;  // index into reduce_variants<T>()
  std::size_t n;
  unsigned block;
  std::size_t offset = 0;  // elements the input starts past a 256-byte boundary
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << dtype_name(c.type) << " rung " << reduce_variants<float>()[c.variant].id << " n=" << c.n
      << " block=" << c.block << " offset=" << c.offset;
}

template <class T>
void check_case(const Case& c) {
  const ReduceVariant<T>& v = reduce_variants<T>()[c.variant];
  std::vector<T> host(c.n + c.offset);
  fill_random<T>(host, 1000 + c.n);
  const std::span<const T> input(host.data() + c.offset, c.n);
  const auto ref = reduce_reference(input);
  const DeviceBuffer<T> d_in = test::upload<T>(host);
  const T got = test::run_reduce_variant(v, d_in.data() + c.offset, c.n, c.block);
  const CheckResult r = check_reduce(got, ref, v.depth(c.n, c.block));
  EXPECT_TRUE(r.ok) << v.id << " " << v.name << " n=" << c.n << " block=" << c.block << ": " << r.detail;
}

class ReduceLadder : public ::testing::TestWithParam<Case> {};

TEST_P(ReduceLadder, MatchesReference) {
  GPULAB_REQUIRE_GPU();
  visit_dtype(GetParam().type, [&](auto t) { check_case<decltype(t)>(GetParam()); });
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  const std::size_t variants = reduce_variants<float>().size();
  const std::vector<std::size_t> sizes{0, 1, 2, 31, 32, 33, 63, 65, 1023, 1025, 4097, 65537,
                                       (1u << 20) - 1, (1u << 20) + 1, 1000003, (1u << 24) + 1};
  for (DType t : {DType::int32, DType::float32, DType::float64})
    for (std::size_t v = 0; v < variants; ++v) {
      for (std::size_t n : sizes) cases.push_back({t, v, n, 256});
      // The seeds' block sizes (003: 64, 000: 1024) and the smallest, at the seeds' sizes.
      cases.push_back({t, v, 1u << 20, 1024});
      cases.push_back({t, v, (1u << 24) - 1, 64});
      cases.push_back({t, v, 777, 32});
      // Inputs that do not start on a 16-byte boundary (the vectorised rungs' head path).
      for (std::size_t offset : {1u, 2u, 3u})
        for (std::size_t n : {1u, 3u, 5u, 1000u})
          cases.push_back({t, v, n, 128, offset});
    }
  return cases;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  const Case& c = info.param;
  const auto name = std::string(reduce_variants<float>()[c.variant].id);
  return fmt::format("{}_rung{}_n{}_b{}_off{}", dtype_name(c.type), name, c.n, c.block, c.offset);
}

INSTANTIATE_TEST_SUITE_P(All, ReduceLadder, ::testing::ValuesIn(all_cases()), case_name);

// Sizes past 2^30 elements (and past 2^31 for int32, where 32-bit indices would wrap): every
// rung on one shared input per type. Named "Huge" so the sanitizer run can leave it out.
template <class T>
void check_huge(std::size_t n) {
  require_device_bytes(n * sizeof(T) + (n / 32 + 1024) * sizeof(T), "huge reduce test");
  PinnedBuffer<T> host(n);
  fill_random(host.span(), 99);
  const auto ref = reduce_reference(std::span<const T>(host.data(), n));
  const DeviceBuffer<T> d_in = test::upload<T>(host.span());
  for (const auto& v : reduce_variants<T>()) {
    const unsigned block = 256;
    const CheckResult r = check_reduce(test::run_reduce_variant(v, d_in.data(), n, block), ref, v.depth(n, block));
    EXPECT_TRUE(r.ok) << v.id << " " << v.name << " n=" << n << ": " << r.detail;
  }
}

TEST(ReduceLadderHuge, Float32Past2To30) {
  GPULAB_REQUIRE_GPU();
  check_huge<float>((std::size_t{1} << 30) + 3);
}

TEST(ReduceLadderHuge, Int32Past2To31) {
  GPULAB_REQUIRE_GPU();
  check_huge<std::int32_t>((std::size_t{1} << 31) + 5);
}

}  // namespace
