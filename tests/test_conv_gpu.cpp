// Every rung of the conv ladder on awkward sizes, every border rule, several filters and both row
// layouts, through the harness's checked run (outputs poisoned, every byte and the padding
// compared with the CPU's); then the library's contract as a user calls it.
#include "gpu_test_support.hpp"

#include "conv/conv_batch.hpp"
#include "conv/conv_cpu.hpp"
#include "conv/conv_problem.hpp"
#include "conv/filter.hpp"

#include <gpulab/conv.hpp>
#include <gpulab/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
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

TEST_P(ConvLadder, MatchesReferenceByteForByte) { test::expect_rung_passes(case_for(GetParam()), ladder_info(conv_rungs()), GetParam().rung); }

std::vector<Case> all_cases() {
  // 16 × 5: one run that starts and ends its row; 33: a whole run a pixel short of the row's end.
  const std::pair<std::size_t, std::size_t> sizes[] = {{1, 1},  {1, 7},   {7, 1},    {2, 2},     {33, 9},      {32, 8},
                                                       {16, 5}, {4097, 3}, {3, 4097}, {1920, 1080}, {1001, 333}};
  std::vector<Case> cases;
  for (std::size_t r = 0; r < conv_rungs().size(); ++r)
    for (const auto& [w, h] : sizes)
      for (Border b : {Border::replicate, Border::zero, Border::mirror})
        // Two-channel lanes: sharpen (divisor 1), gaussian (16), a negative divisor that is not a
        // power of two, and the largest weights they take (magnitudes summing to 128) with a
        // divisor of 3 and of 128; the last filter's weights are too large for them (skipped).
        for (const char* f : {"sharpen", "gaussian", "1,-2,3,-4,5,-6,7,-8,9/-3", "-8,-8,-8,-8,64,-8,-8,-8,-8/3",
                              "16,16,16,16,0,16,16,16,16/128", "-3,7,-100,2,1,9,-1,-4,5/-7"})
          for (bool aligned : {false, true}) cases.push_back({r, w, h, b, f, aligned});
  return cases;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  const Case& c = info.param;
  // Under the sanitizers: the two small sizes with a filter of each kind (lanes with a divisor of 1,
  // lanes dividing, too large for lanes).
  const bool small = ((c.width == 33 && c.height == 9) || (c.width == 1 && c.height == 7)) &&
                     (c.filter == "sharpen" || c.filter.starts_with("1,-2") || c.filter.starts_with("-3,7"));
  std::string name = fmt::format("{}{}_{}x{}_{}_{}_{}", small ? "small_" : "", conv_rungs()[c.rung].name, c.width, c.height,
                                 border_name(c.border), c.filter, c.aligned ? "aligned" : "packed");
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name + "_" + std::to_string(info.index);
}

INSTANTIATE_TEST_SUITE_P(All, ConvLadder, ::testing::ValuesIn(all_cases()), case_name);

// 2^22 pixels on 16-byte-aligned rows: the library's window paths, two channels a register
// (gaussian) and one (weights too large for the lanes); the ladder's cases above are smaller and
// take its tile path.
TEST(ConvLibrary, LargeAlignedImagesTakeTheWindowPathsAndMatch) {
  for (const char* filter : {"1,2,1,2,4,2,1,2,1/16", "-3,7,-100,2,1,9,-1,-4,5/-7"})
    for (Border border : {Border::replicate, Border::zero, Border::mirror}) {
      ConvCase c(generate_image(2048, 2048, 11), parse_filter(filter), border, 2048 * 3 + 128);
      c.compute_reference();
      const std::size_t library = find_rung(ladder_info(conv_rungs()), "library", "conv");
      const CheckResult r = run_checked(c, library);
      EXPECT_TRUE(r.ok) << filter << " " << border_name(border) << ": " << r.detail;
    }
}

// Rows off 16-byte boundaries: the lanes realigned (gaussian) or, weights too large for them, from
// 2^24 pixels the window on aligned copies in gpulab's pool: 4097 × 4097 packed (12291-byte rows),
// and 4096 × 4100 on rows one byte longer than a packed row; both filter kinds, every border.
TEST(ConvLibrary, LargeUnalignedImagesMatch) {
  for (auto [width, pitch] : {std::pair<std::size_t, std::size_t>{4097, 4097 * 3}, {4096, 4096 * 3 + 1}})
    for (const char* filter : {"1,2,1,2,4,2,1,2,1/16", "-3,7,-100,2,1,9,-1,-4,5/-7"})
      for (Border border : {Border::replicate, Border::zero, Border::mirror}) {
        ConvCase c(generate_image(width, 4100, 13), parse_filter(filter), border, pitch);
        c.compute_reference();
        const std::size_t library = find_rung(ladder_info(conv_rungs()), "library", "conv");
        const CheckResult r = run_checked(c, library);
        EXPECT_TRUE(r.ok) << width << " pitch " << pitch << " " << filter << " " << border_name(border) << ": " << r.detail;
      }
}

// The realigned lanes with the input and the output each at its own offset and pitch (every row at
// another alignment, the two images' alignments unrelated): every byte of each row as the CPU's,
// nothing written before, between or after the rows.
TEST(ConvLibrary, RowsAtAnyOffsetAndPitchMatch) {
  constexpr std::size_t width = 1001, height = 200;  // 200 200 pixels: the lanes' size
  constexpr std::uint8_t poison = 0xA5;
  struct Layout {
    std::size_t in_offset, in_pitch, out_offset, out_pitch;
  };
  const RgbImage image = generate_image(width, height, 17);
  for (const Layout& l : {Layout{1, 3003, 6, 3011}, Layout{13, 3005, 0, 3003}, Layout{0, 3008, 3, 3003}, Layout{7, 3019, 9, 3013}})
    for (const char* filter : {"sharpen", "1,2,1,2,4,2,1,2,1/16", "-8,-8,-8,-8,64,-8,-8,-8,-8/3"})
      for (Border border : {Border::replicate, Border::zero, Border::mirror}) {
        std::vector<std::uint8_t> in(l.in_offset + l.in_pitch * height, 0);
        for (std::size_t y = 0; y < height; ++y) std::copy_n(image.row(y), 3 * width, in.data() + l.in_offset + y * l.in_pitch);
        const std::size_t out_bytes = l.out_offset + l.out_pitch * height + 16;
        const DeviceBuffer<std::uint8_t> in_dev = test::upload(std::span<const std::uint8_t>(in));
        DeviceBuffer<std::uint8_t> out_dev(out_bytes);
        GPULAB_CUDA_CHECK(cudaMemset(out_dev.data(), poison, out_bytes));
        const Filter3x3 f = parse_filter(filter);
        conv3x3(in_dev.data() + l.in_offset, l.in_pitch, out_dev.data() + l.out_offset, l.out_pitch, width, height, f, border);
        const std::vector<std::uint8_t> out = test::download(out_dev.data(), out_bytes);
        RgbImage want = make_image(width, height);
        conv_cpu(image, want, f, border, true);
        const auto what = fmt::format("in +{} pitch {}, out +{} pitch {}, {} {}", l.in_offset, l.in_pitch, l.out_offset, l.out_pitch,
                                      filter, border_name(border));
        const CheckResult r = check_image(std::span(out).subspan(l.out_offset, l.out_pitch * height), l.out_pitch, want, poison);
        EXPECT_TRUE(r.ok) << what << ": " << r.detail;
        EXPECT_TRUE(std::all_of(out.begin(), out.begin() + static_cast<long>(l.out_offset), [](std::uint8_t b) { return b == poison; }))
            << what << ": bytes before the image were written";
        EXPECT_TRUE(std::all_of(out.end() - 16, out.end(), [](std::uint8_t b) { return b == poison; }))
            << what << ": bytes after the image were written";
      }
}

// `conv batch`: three images of different sizes (one repeated) through every memory kind and two
// streams; every result checked by the batch itself, then the files it wrote read back and
// compared with the CPU's again.
TEST(ConvBatch, EveryMemoryKindGivesTheCpuBytes) {
  const auto dir = std::filesystem::temp_directory_path() / "gpulab_conv_batch_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "in");
  BatchOptions o;
  const std::pair<std::size_t, std::size_t> sizes[] = {{37, 5}, {300, 300}, {1, 1}};
  for (std::size_t i = 0; i < 3; ++i) {
    o.files.push_back((dir / "in" / fmt::format("im{}.{}", i, i == 1 ? "png" : "ppm")).string());
    save_image(o.files.back(), generate_image(sizes[i].first, sizes[i].second, 7 + i));
  }
  o.files.push_back(o.files[1]);  // a repeated file: its result gets a name of its own
  o.out_dir = (dir / "out").string();
  o.streams = 2;
  o.reps = 1;
  o.format = "ppm";
  o.filter = parse_filter("1,2,1,2,4,2,1,2,1/16");
  o.border = Border::mirror;
  o.memories = {HostMemory::pageable, HostMemory::pinned, HostMemory::registered, HostMemory::managed};
  std::ostringstream log;
  EXPECT_EQ(conv_batch(o, log), 0) << log.str();
  EXPECT_NE(log.str().find("every result of every memory kind checked"), std::string::npos) << log.str();
  for (const char* name : {"im0.ppm", "im1.ppm", "im2.ppm", "im1-4.ppm"}) {
    const std::string written = (dir / "out" / name).string();
    ASSERT_TRUE(std::filesystem::exists(written)) << written;
    const RgbImage got = load_image(written);
    const RgbImage in = load_image(o.files[name[2] - '0']);
    RgbImage want = make_image(in.width, in.height);
    conv_cpu(in, want, o.filter, o.border, false);
    EXPECT_TRUE(check_image(got.bytes, got.pitch, want, 0).ok) << name;
  }
  std::filesystem::remove_all(dir);
}

TEST(ConvBatch, RefusesMissingFiles) {
  BatchOptions o;
  o.files = {"/nonexistent/image.png"};
  o.out_dir = (std::filesystem::temp_directory_path() / "gpulab_conv_batch_missing").string();
  o.memories = {HostMemory::pinned};
  std::ostringstream log;
  EXPECT_THROW(conv_batch(o, log), Error);
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
