// Every rung of the conv ladder on awkward sizes, every border rule, several filters and both row
// layouts, through the harness's checked run (outputs poisoned, every byte and the padding
// compared with the CPU's); then the library's contract as a user calls it.
#include "gpu_test_support.hpp"

#include "conv/conv_problem.hpp"
#include "conv/filter.hpp"

#include <gpulab/conv.hpp>
#include <gpulab/error.hpp>

#include <fmt/format.h>

#include <tuple>

using namespace gpulab;

namespace {

struct Case {
  std::size_t rung;
  std::size_t width, height;
  Border border;
  std::string filter;
  bool aligned;  // rows on 128 bytes, else packed
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << conv_rungs()[c.rung].name << " " << c.width << "x" << c.height << " " << border_name(c.border) << " " << c.filter
      << (c.aligned ? " aligned" : " packed");
}

BenchCase& case_for(const Case& c) {
  const auto key = std::make_tuple(c.width, c.height, static_cast<int>(c.border), c.filter, c.aligned);
  return test::cached_case(key, [&]() -> std::unique_ptr<BenchCase> {
    const std::size_t pitch = c.aligned ? (3 * c.width + 127) / 128 * 128 : 0;
    return std::make_unique<ConvCase>(generate_image(c.width, c.height, c.width * 31 + c.height), parse_filter(c.filter),
                                      c.border, pitch);
  });
}

class ConvLadder : public ::testing::TestWithParam<Case> {};

TEST_P(ConvLadder, MatchesReferenceByteForByte) {
  const Case& c = GetParam();
  BenchCase& bench_case = case_for(c);
  if (auto why = bench_case.unsupported(c.rung)) GTEST_SKIP() << *why;
  const CheckResult r = run_checked(bench_case, c.rung);
  EXPECT_TRUE(r.ok) << r.detail;
}

std::vector<Case> all_cases() {
  const std::pair<std::size_t, std::size_t> sizes[] = {{1, 1},  {1, 7},   {7, 1},    {2, 2},     {33, 9},
                                                       {32, 8}, {4097, 3}, {3, 4097}, {1920, 1080}, {1001, 333}};
  std::vector<Case> cases;
  for (std::size_t r = 0; r < conv_rungs().size(); ++r)
    for (const auto& [w, h] : sizes)
      for (Border b : {Border::replicate, Border::zero, Border::mirror})
        for (const char* f : {"sharpen", "gaussian", "-3,7,-100,2,1,9,-1,-4,5/-7"})
          for (bool aligned : {false, true}) cases.push_back({r, w, h, b, f, aligned});
  return cases;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  const Case& c = info.param;
  const bool small = (c.width == 33 && c.height == 9) || (c.width == 1 && c.height == 7);
  std::string name = fmt::format("{}{}_{}x{}_{}_{}_{}", small ? "small_" : "", conv_rungs()[c.rung].name, c.width, c.height,
                                 border_name(c.border), c.filter, c.aligned ? "aligned" : "packed");
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name + "_" + std::to_string(info.index);
}

INSTANTIATE_TEST_SUITE_P(All, ConvLadder, ::testing::ValuesIn(all_cases()), case_name);

// 2^22 pixels on 16-byte-aligned rows: the library's sliding-window path (the ladder's cases above
// are smaller and take its tile path).
TEST(ConvLibrary, LargeAlignedImagesTakeTheWindowPathAndMatch) {
  for (Border border : {Border::replicate, Border::zero, Border::mirror}) {
    ConvCase c(generate_image(2048, 2048, 11), parse_filter("1,2,1,2,4,2,1,2,1/16"), border, 2048 * 3 + 128);
    c.compute_reference();
    const std::size_t library = find_rung(ladder_info(conv_rungs()), "library", "conv");
    const CheckResult r = run_checked(c, library);
    EXPECT_TRUE(r.ok) << border_name(border) << ": " << r.detail;
  }
}

TEST(ConvLibrary, BadArgumentsThrow) {
  DeviceBuffer<std::uint8_t> buf(3 * 64 * 64 * 2);
  std::uint8_t* in = buf.data();
  std::uint8_t* out = in + 3 * 64 * 64;
  const Filter3x3 f = parse_filter("sharpen");
  Filter3x3 zero = f;
  zero.divisor = 0;
  EXPECT_THROW(conv3x3(in, 192, out, 192, 64, 64, zero), Error);
  EXPECT_THROW(conv3x3(in, 191, out, 192, 64, 64, f), Error);
  EXPECT_THROW(conv3x3(nullptr, 192, out, 192, 64, 64, f), Error);
  EXPECT_THROW(conv3x3(in, 192, in + 192, 192, 64, 64, f), Error);  // overlap
  EXPECT_THROW(conv3x3(in, 192, out, 192, 0, 64, f), Error);
  EXPECT_THROW(conv3x3(in, 192, out, 192, 64, (1u << 20) + 1, f), Error);
  Filter3x3 huge = f;
  huge.k[0] = 1 << 23;
  EXPECT_THROW(conv3x3(in, 192, out, 192, 64, 64, huge), Error);
  EXPECT_NO_THROW(conv3x3(in, 192, out, 192, 64, 64, f));
  GPULAB_CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace
