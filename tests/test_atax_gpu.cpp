// Every atax rung (and cuBLAS) on shapes that are 1 wide or 1 tall, odd, non-multiples of every
// tile, square, and the seed's large ones, checked value by value against the double reference
// with the any-order bound, on poisoned outputs; the library's contract.
#include "gpu_test_support.hpp"

#include "atax/atax_problem.hpp"
#include "core/memory.hpp"
#include "lib/launch_limits.hpp"
#include "lib/launch_log.hpp"

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
  std::size_t rung;  // index into atax_rungs()
  AtaxShape shape;
};

std::string_view rung_name(std::size_t i) { return atax_rungs()[i].name; }

void PrintTo(const Case& c, std::ostream* os) { *os << rung_name(c.rung) << " " << c.shape.cols << "x" << c.shape.rows; }

AtaxCase& case_for(AtaxShape s) {
  return static_cast<AtaxCase&>(test::cached_case(std::make_pair(s.cols, s.rows), [&]() -> std::unique_ptr<BenchCase> {
    return std::make_unique<AtaxCase>(make_atax_input(s, 3 + s.cols));
  }));
}

/// A rung's y on the shape's input, read back from a poisoned output.
std::vector<float> run_rung(std::size_t rung, AtaxShape s) {
  const AtaxCase& c = case_for(s);
  Stream stream;
  const DeviceArrays arrays(c, stream.get());
  const OwnedWorkspace ws(c, rung, stream.get());
  arrays.poison(stream.get());
  c.launch(rung, arrays.arrays(), ws.get(), stream.get());
  arrays.download(stream.get(), false);
  stream.synchronize();
  const auto y = as<float>(arrays.host_outputs()[0]);
  return {y.begin(), y.end()};
}

class AtaxLadder : public ::testing::TestWithParam<Case> {};

TEST_P(AtaxLadder, MatchesReferenceWithinTheBound) {
  const Case& c = GetParam();
  const CheckResult r = run_checked(case_for(c.shape), c.rung);
  EXPECT_TRUE(r.ok) << rung_name(c.rung) << ": " << r.detail;
}

std::vector<Case> all_cases() {
  // cols × rows. Tiles: the seed's 1920-float tile and 64 lines, warps of 32, blocks of 256 and
  // 1024, the fused passes' 128..16384 columns; multiples of 4 for the library's 16-byte loads, one
  // vector past a block's width (4100), the widest (16384), panels of one row, each of rung 6's
  // 12 to 20 columns a thread.
  const std::vector<AtaxShape> shapes{{1, 1},       {1000, 1},   {1, 1000},    {31, 33},      {33, 31},
                                      {127, 4097},  {4097, 127}, {511, 600},   {513, 1025},   {1921, 129},
                                      {2000, 3},    {16385, 7},  {4096, 4096}, {8960, 17920}, {17920, 8960},
                                      {128, 5000},  {132, 1},    {4100, 33},   {16384, 300},  {1028, 2000},
                                      {8000, 129},  {10240, 77}};  // (rung 6's 16 and 20 columns a thread)
  std::vector<Case> cases;
  for (std::size_t v = 0; v < atax_rungs().size(); ++v)
    for (const auto& s : shapes) cases.push_back({v, s});
  return cases;
}

// "small_" marks the cases compute-sanitizer runs (scripts/device_run.sh).
std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  const AtaxShape s = info.param.shape;
  const bool small = s.elements() <= 600'000 && !(s.cols == 33 && s.rows == 31) && s.cols != 127 && s.cols != 4097 &&
                     s.cols != 132 && s.cols != 4100 && s.cols != 128 && s.cols != 16385 && s.cols != 1921 && s.cols != 511;
  std::string name = fmt::format("{}{}_{}x{}", small ? "small_" : "", rung_name(info.param.rung), s.cols, s.rows);
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(All, AtaxLadder, ::testing::ValuesIn(all_cases()), case_name);

std::size_t library_rung() { return find_rung(ladder_info(atax_rungs()), "library", "atax"); }

TEST(Atax, SameInputSameBits) {
  for (AtaxShape s : {AtaxShape{4096, 4096}, AtaxShape{16385, 7}}) {
    const auto first = run_rung(library_rung(), s);
    for (int i = 0; i < 5; ++i) {
      const auto again = run_rung(library_rung(), s);
      EXPECT_EQ(std::memcmp(first.data(), again.data(), first.size() * sizeof(float)), 0) << s.cols << "x" << s.rows;
    }
  }
}

// The library takes rung 6 where each SM must take 15 bytes of DRAM a cycle or more (an H200) and
// rung 5 below (an H100): the same bits as the rung it takes.
TEST(Atax, TheLibraryTakesRungSixByTheBytesEachSmMustTake) {
  const double bytes_per_cycle = current_dram_bytes_per_sm_cycle();
  ASSERT_GT(bytes_per_cycle, 1.0);
  const char* taken = bytes_per_cycle >= 15.0 ? "half_blocks" : "fused_cooperative";
  for (AtaxShape s : {AtaxShape{8960, 300}, AtaxShape{5000, 77}}) {
    const auto library = run_rung(library_rung(), s);
    const auto rung = run_rung(find_rung(ladder_info(atax_rungs()), taken, "atax"), s);
    EXPECT_EQ(std::memcmp(library.data(), rung.data(), library.size() * sizeof(float)), 0)
        << s.cols << "x" << s.rows << ": the library is not " << taken << " at " << bytes_per_cycle << " bytes a cycle an SM";
  }
}

// A that does not start 16-byte aligned (cols % 4 == 0): the library must not take 16-byte pieces.
TEST(Atax, UnalignedMatrix) {
  for (AtaxShape s : {AtaxShape{8960, 300}, AtaxShape{1024, 1000}}) {
    const AtaxCase& c = case_for(s);
    const AtaxInput& in = c.input();
    DeviceBuffer<float> shifted(in.a.size() + 1);
    GPULAB_CUDA_CHECK(cudaMemcpy(shifted.data() + 1, in.a.data(), in.a.size() * sizeof(float), cudaMemcpyHostToDevice));
    const DeviceBuffer<float> x = test::upload<float>(in.x);
    const std::size_t bytes = atax_temp_bytes(s.rows, s.cols);
    DeviceBuffer<unsigned char> temp(bytes);
    DeviceBuffer<float> y(s.cols);
    poison_device(y.data(), s.cols * sizeof(float), 0xFF, nullptr);
    atax(shifted.data() + 1, x.data(), s.rows, s.cols, y.data(), temp.data(), bytes);
    const CheckResult r = check_atax_any_order(test::download(y.data(), s.cols), atax_reference(in), s);
    EXPECT_TRUE(r.ok) << s.cols << "x" << s.rows << ": " << r.detail;
  }
}

// `gpulab run` and `gpulab atax run` print each launch: every rung reports its kernels, in order,
// with a time, through lib/launch.cuh.
TEST(Atax, LaunchLogSeesEveryKernel) {
  const AtaxShape s{4096, 300};
  const AtaxCase& c = case_for(s);
  const std::map<std::string, std::size_t> expected{{"seed_tiled", 2}, {"naive", 2}, {"coalesced_two_pass", 3},
                                                    {"fused_single_pass", 2}, {"library", 1}, {"vendor", 0}};
  Stream stream;
  const DeviceArrays arrays(c, stream.get());
  for (const auto& [word, launches] : expected) {
    const std::size_t rung = find_rung(ladder_info(atax_rungs()), word, "atax");
    const OwnedWorkspace ws(c, rung, stream.get());
    LaunchLog log(stream.get());
    c.launch(rung, arrays.arrays(), ws.get(), stream.get());
    stream.synchronize();
    ASSERT_EQ(log.notes().size(), launches) << word;
    for (const auto& n : log.notes()) {
      EXPECT_GT(n.shape.grid.x, 0u) << n.kernel;
      EXPECT_GT(n.resident_blocks, 0u) << n.kernel;
    }
    for (double ms : log.kernel_ms()) EXPECT_GT(ms, 0.0) << word;
  }
}

TEST(Atax, RefusesBadArguments) {
  DeviceBuffer<float> a(16), x(4), y(4);
  const std::size_t bytes = atax_temp_bytes(4, 4);
  DeviceBuffer<unsigned char> temp(bytes);
  // Written before the call that runs: initcheck caught this test reading them uninitialized.
  GPULAB_CUDA_CHECK(cudaMemset(a.data(), 0, 16 * sizeof(float)));
  GPULAB_CUDA_CHECK(cudaMemset(x.data(), 0, 4 * sizeof(float)));
  GPULAB_CUDA_CHECK(cudaMemset(temp.data(), 0, bytes));
  EXPECT_THROW(atax(nullptr, x.data(), 4, 4, y.data(), temp.data(), bytes), Error);
  EXPECT_THROW(atax(a.data(), x.data(), 0, 4, y.data(), temp.data(), bytes), Error);
  EXPECT_THROW(atax(a.data(), x.data(), 4, 4, y.data(), temp.data(), bytes - 1), Error);
  EXPECT_NO_THROW(atax(a.data(), x.data(), 4, 4, y.data(), temp.data(), bytes));
}

}  // namespace
