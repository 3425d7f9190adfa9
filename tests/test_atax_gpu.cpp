// Every atax rung (and cuBLAS) on shapes that are 1 wide or 1 tall, odd, non-multiples of every
// tile, square, and the seed's large ones, checked value by value against the double reference
// with the any-order bound, on poisoned outputs; the library's contract.
#include "gpu_test_support.hpp"

#include "atax/atax_bench.hpp"
#include "atax/atax_cpu.hpp"
#include "atax/atax_ladder.hpp"
#include "atax/atax_launch_log.hpp"

#include <gpulab/atax.hpp>
#include <gpulab/error.hpp>

#include <fmt/format.h>

#include <cstring>
#include <map>
#include <string>
#include <utility>

using namespace gpulab;

namespace {

struct Case {
  std::size_t variant;
  AtaxShape shape;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << "rung " << atax_variants()[c.variant].id << " " << c.shape.cols << "x" << c.shape.rows;
}

struct Prepared {
  AtaxInput in;
  AtaxReference ref;
  DeviceBuffer<float> a, x;
};

const Prepared& prepared(AtaxShape s) {
  static std::map<std::pair<std::uint32_t, std::uint32_t>, Prepared> cache;
  const auto key = std::make_pair(s.cols, s.rows);
  auto it = cache.find(key);
  if (it == cache.end()) {
    AtaxInput in = make_atax_input(s, 3 + s.cols);
    AtaxReference ref = atax_reference(in);
    DeviceBuffer<float> a = test::upload<float>(in.a), x = test::upload<float>(in.x);
    it = cache.emplace(key, Prepared{std::move(in), std::move(ref), std::move(a), std::move(x)}).first;
  }
  return it->second;
}

std::vector<float> run_variant(const AtaxVariant& v, const Prepared& p) {
  const AtaxShape s = p.in.shape;
  const std::size_t ws_bytes = v.workspace_bytes(s.rows, s.cols);
  DeviceBuffer<unsigned char> ws(ws_bytes);
  DeviceBuffer<float> y(s.cols);
  poison_device(y.data(), s.cols * sizeof(float), 0xFF, nullptr);
  v.run(p.a.data(), p.x.data(), s.rows, s.cols, y.data(), ws.data(), ws_bytes, nullptr);
  std::vector<float> out(s.cols);
  GPULAB_CUDA_CHECK(cudaMemcpy(out.data(), y.data(), s.cols * sizeof(float), cudaMemcpyDeviceToHost));
  return out;
}

class AtaxLadder : public ::testing::TestWithParam<Case> {};

TEST_P(AtaxLadder, MatchesReferenceWithinTheBound) {
  GPULAB_REQUIRE_GPU();
  const Case& c = GetParam();
  const AtaxVariant& v = atax_variants()[c.variant];
  const Prepared& p = prepared(c.shape);
  const CheckResult r = check_atax_any_order(run_variant(v, p), p.ref, c.shape);
  EXPECT_TRUE(r.ok) << v.id << " " << v.name << ": " << r.detail;
}

std::vector<Case> all_cases() {
  // cols × rows. Tiles: the seed's 1920-float tile and 64 lines, warps of 32, blocks of 256 and
  // 1024, the fused passes' 128..16384 columns; multiples of 4 for rung 5's 16-byte loads, one
  // vector past a block's width (4100), the widest (16384), panels of one row.
  const std::vector<AtaxShape> shapes{{1, 1},       {1000, 1},   {1, 1000},    {31, 33},      {33, 31},
                                      {127, 4097},  {4097, 127}, {511, 600},   {513, 1025},   {1921, 129},
                                      {2000, 3},    {16385, 7},  {4096, 4096}, {8960, 17920}, {17920, 8960},
                                      {128, 5000},  {132, 1},    {4100, 33},   {16384, 300},  {1028, 2000}};
  std::vector<Case> cases;
  for (std::size_t v = 0; v < atax_variants().size(); ++v)
    for (const auto& s : shapes) cases.push_back({v, s});
  return cases;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return fmt::format("rung{}_{}x{}", atax_variants()[info.param.variant].id, info.param.shape.cols, info.param.shape.rows);
}

INSTANTIATE_TEST_SUITE_P(All, AtaxLadder, ::testing::ValuesIn(all_cases()), case_name);

TEST(Atax, SameInputSameBits) {
  GPULAB_REQUIRE_GPU();
  for (AtaxShape s : {AtaxShape{4096, 4096}, AtaxShape{16385, 7}}) {
    const Prepared& p = prepared(s);
    const AtaxVariant& library = *find_atax_variant("5");
    const auto first = run_variant(library, p);
    for (int i = 0; i < 5; ++i) {
      const auto again = run_variant(library, p);
      EXPECT_EQ(std::memcmp(first.data(), again.data(), first.size() * sizeof(float)), 0) << s.cols << "x" << s.rows;
    }
  }
}

// A that does not start 16-byte aligned (cols % 4 == 0): the library must not take 16-byte pieces.
TEST(Atax, UnalignedMatrix) {
  GPULAB_REQUIRE_GPU();
  for (AtaxShape s : {AtaxShape{8960, 300}, AtaxShape{1024, 1000}}) {
    const Prepared& p = prepared(s);
    DeviceBuffer<float> shifted(p.in.a.size() + 1);
    GPULAB_CUDA_CHECK(cudaMemcpy(shifted.data() + 1, p.a.data(), p.in.a.size() * sizeof(float), cudaMemcpyDeviceToDevice));
    const std::size_t bytes = atax_temp_bytes(s.rows, s.cols);
    DeviceBuffer<unsigned char> temp(bytes);
    DeviceBuffer<float> y(s.cols);
    poison_device(y.data(), s.cols * sizeof(float), 0xFF, nullptr);
    atax(shifted.data() + 1, p.x.data(), s.rows, s.cols, y.data(), temp.data(), bytes);
    std::vector<float> out(s.cols);
    GPULAB_CUDA_CHECK(cudaMemcpy(out.data(), y.data(), s.cols * sizeof(float), cudaMemcpyDeviceToHost));
    const CheckResult r = check_atax_any_order(out, p.ref, s);
    EXPECT_TRUE(r.ok) << s.cols << "x" << s.rows << ": " << r.detail;
  }
}

// `gpulab atax run` prints each launch: every rung reports its kernels, in order, with a time.
TEST(Atax, LaunchLogSeesEveryKernel) {
  GPULAB_REQUIRE_GPU();
  const AtaxShape s{4096, 300};
  const Prepared& p = prepared(s);
  const std::map<std::string, std::size_t> expected{{"1", 2}, {"2", 2}, {"3", 3}, {"4", 2}, {"5", 1}, {"vendor", 0}};
  for (const auto& [id, launches] : expected) {
    const AtaxVariant& v = *find_atax_variant(id);
    const std::size_t ws_bytes = v.workspace_bytes(s.rows, s.cols);
    DeviceBuffer<unsigned char> ws(ws_bytes);
    DeviceBuffer<float> y(s.cols);
    atax_detail::LaunchLog log(nullptr);
    v.run(p.a.data(), p.x.data(), s.rows, s.cols, y.data(), ws.data(), ws_bytes, nullptr);
    GPULAB_CUDA_CHECK(cudaDeviceSynchronize());
    ASSERT_EQ(log.notes().size(), launches) << "rung " << id;
    for (const auto& n : log.notes()) {
      EXPECT_GT(n.grid.x, 0u) << n.kernel;
      EXPECT_GT(n.resident_blocks, 0u) << n.kernel;
    }
    for (double ms : log.kernel_ms()) EXPECT_GT(ms, 0.0) << "rung " << id;
  }
}

TEST(Atax, RefusesBadArguments) {
  GPULAB_REQUIRE_GPU();
  DeviceBuffer<float> a(16), x(4), y(4);
  const std::size_t bytes = atax_temp_bytes(4, 4);
  DeviceBuffer<unsigned char> temp(bytes);
  EXPECT_THROW(atax(nullptr, x.data(), 4, 4, y.data(), temp.data(), bytes), Error);
  EXPECT_THROW(atax(a.data(), x.data(), 0, 4, y.data(), temp.data(), bytes), Error);
  EXPECT_THROW(atax(a.data(), x.data(), 4, 4, y.data(), temp.data(), bytes - 1), Error);
  EXPECT_NO_THROW(atax(a.data(), x.data(), 4, 4, y.data(), temp.data(), bytes));
}

}  // namespace
