// The conv problem's CPU side: filters as people write them, the border rules and the rounding
// every rung shares, the reference on images small enough to work out by hand, the exact check,
// and image files in and out (and their errors).
#include "conv/conv_batch.hpp"
#include "conv/conv_cpu.hpp"
#include "conv/conv_math.hpp"
#include "conv/filter.hpp"
#include "conv/image.hpp"

#include <gpulab/error.hpp>

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

using namespace gpulab;

TEST(ConvFilter, ParsesNamesIntegersAndDivisors) {
  const Filter3x3 g = parse_filter("gaussian");
  EXPECT_EQ(g.divisor, 16);
  EXPECT_EQ(g.k[4], 4);
  const Filter3x3 e = parse_filter("-1,-1,-1,-1,8,-1,-1,-1,-1");
  EXPECT_EQ(e.divisor, 1);
  EXPECT_EQ(e.k[0], -1);
  EXPECT_EQ(e.k[4], 8);
  const Filter3x3 b = parse_filter("1,2,1,2,4,2,1,2,1/16");
  EXPECT_EQ(filter_text(b), "1,2,1,2,4,2,1,2,1/16");
  EXPECT_EQ(parse_filter(" 1, 2,1,2,4,2,1,2,1 /-16").divisor, -16);
  for (const char* bad : {"", "blur", "1,2,3", "1,2,3,4,5,6,7,8,9,10", "1,2,x,4,5,6,7,8,9", "1,1,1,1,1,1,1,1,1/0",
                          "1,1,1,1,1,1,1,1,1/", "4194305,0,0,0,0,0,0,0,0", "1,1,1,1,1,1,1,1,1/2/3"})
    EXPECT_THROW(parse_filter(bad), Error) << bad;
  EXPECT_NO_THROW(parse_filter("4194304,0,0,0,0,0,0,0,0"));  // 2^22: the largest weight sum
}

TEST(ConvMath, BorderRules) {
  using conv_math::border_index;
  EXPECT_EQ(border_index(-1, 5, Border::replicate), 0);
  EXPECT_EQ(border_index(5, 5, Border::replicate), 4);
  EXPECT_EQ(border_index(-1, 5, Border::zero), -1);
  EXPECT_EQ(border_index(5, 5, Border::zero), -1);
  EXPECT_EQ(border_index(-1, 5, Border::mirror), 1);
  EXPECT_EQ(border_index(5, 5, Border::mirror), 3);
  EXPECT_EQ(border_index(-1, 1, Border::mirror), 0);  // one pixel: nothing to reflect
  EXPECT_EQ(border_index(1, 1, Border::mirror), 0);
  EXPECT_EQ(border_index(2, 5, Border::mirror), 2);
}

TEST(ConvMath, RoundsHalfAwayFromZeroAndClamps) {
  using conv_math::round_clamp;
  EXPECT_EQ(round_clamp(3, 2), 2);    // 1.5 → 2
  EXPECT_EQ(round_clamp(5, 4), 1);    // 1.25 → 1
  EXPECT_EQ(round_clamp(7, 4), 2);    // 1.75 → 2
  EXPECT_EQ(round_clamp(-3, 2), 0);   // −1.5 → −2 → clamped
  EXPECT_EQ(round_clamp(-6, -4), 2);  // 1.5 → 2
  EXPECT_EQ(round_clamp(255 * 9, 9), 255);
  EXPECT_EQ(round_clamp(4000, 1), 255);
  EXPECT_EQ(round_clamp(255 * (1 << 22), 1 << 22), 255);  // the largest sums do not overflow
  EXPECT_EQ(round_clamp(255 * (1 << 22) - (1 << 21), 1 << 22), 255);
  EXPECT_EQ(round_clamp(8 * 100 + 8, 16), 51);  // 50.5 → 51
  // The kernels' form (a multiply-high for the division) gives the same bytes, divisors of every
  // magnitude and sign, sums up to the largest allowed.
  for (int d : {1, -1, 2, 3, 7, -7, 9, 16, 255, 1000, -65537, 1 << 21, -(1 << 22)}) {
    const UnsignedDivider twice = conv_math::twice_divisor(d);
    for (long s = -(255L << 22); s <= (255L << 22); s += 999983)
      ASSERT_EQ(round_clamp(static_cast<int>(s), d, twice), round_clamp(static_cast<int>(s), d)) << s << " / " << d;
    for (int s = -5000; s <= 5000; ++s) ASSERT_EQ(round_clamp(s, d, twice), round_clamp(s, d)) << s << " / " << d;
  }
  using conv_math::truncate_clamp;                // NPP's rule
  EXPECT_EQ(truncate_clamp(7, 4), 1);
  EXPECT_EQ(truncate_clamp(-7, -4), 1);
  EXPECT_EQ(truncate_clamp(-7, 4), 0);
  EXPECT_EQ(truncate_clamp(4000, 3), 255);
}

TEST(ConvReference, MatchesHandWorkedPixels) {
  RgbImage in = make_image(3, 2);
  const std::uint8_t values[2][3] = {{10, 20, 30}, {40, 50, 60}};  // channel 0; channels 1, 2 = 0, 255
  for (std::size_t y = 0; y < 2; ++y)
    for (std::size_t x = 0; x < 3; ++x) {
      in.row(y)[3 * x] = values[y][x];
      in.row(y)[3 * x + 1] = 0;
      in.row(y)[3 * x + 2] = 255;
    }
  RgbImage out = make_image(3, 2);
  conv_cpu(in, out, parse_filter("box"), Border::replicate, false);
  // Pixel (0, 0), replicate: rows {10,10,20}, {10,10,20}, {40,40,50} → 210 / 9 = 23.3 → 23.
  EXPECT_EQ(out.row(0)[0], 23);
  EXPECT_EQ(out.row(0)[1], 0);
  EXPECT_EQ(out.row(0)[2], 255);
  conv_cpu(in, out, parse_filter("box"), Border::zero, false);
  // Zero border: 10+20+40+50 = 120 / 9 = 13.3 → 13.
  EXPECT_EQ(out.row(0)[0], 13);
  EXPECT_EQ(out.row(0)[2], 113);  // 4·255/9 = 113.3
  conv_cpu(in, out, parse_filter("box"), Border::mirror, false);
  // Mirror, pixel (0, 0): x −1 → 1, y −1 → 1: rows {50,40,50}, {20,10,20}, {50,40,50} → 330/9 = 36.7 → 37.
  EXPECT_EQ(out.row(0)[0], 37);
  conv_cpu(in, out, parse_filter("sharpen"), Border::replicate, false);
  // Pixel (1, 1) = 50: 5·50 − 40 − 60 − 20 − 50 = 80.
  EXPECT_EQ(out.row(1)[3], 80);
  RgbImage parallel = make_image(3, 2, 16);
  conv_cpu(in, parallel, parse_filter("sharpen"), Border::replicate, true);
  EXPECT_TRUE(check_image(parallel.bytes, 16, out, 0).ok);
}

TEST(ConvCheck, FindsDifferingBytesAndWrittenPadding) {
  const RgbImage want = generate_image(40, 7, 3);
  std::vector<std::uint8_t> got(7 * 128, 0xFF);
  for (std::size_t y = 0; y < 7; ++y) std::copy(want.row(y), want.row(y) + 120, got.begin() + static_cast<long>(y * 128));
  EXPECT_TRUE(check_image(got, 128, want, 0xFF).ok);
  got[3 * 128 + 3 * 5 + 2] ^= 1;
  CheckResult r = check_image(got, 128, want, 0xFF);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.detail.find("x 5, y 3, channel 2"), std::string::npos) << r.detail;
  got[3 * 128 + 3 * 5 + 2] ^= 1;
  got[2 * 128 + 125] = 0;
  r = check_image(got, 128, want, 0xFF);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.detail.find("padding"), std::string::npos) << r.detail;
  EXPECT_FALSE(check_image(std::span(got).first(100), 128, want, 0xFF).ok);
}

TEST(ConvImage, RoundTripsThroughPngAndPpmAndRefusesBadFiles) {
  const auto dir = std::filesystem::temp_directory_path() / "gpulab_conv_test";
  std::filesystem::create_directories(dir);
  const RgbImage image = generate_image(17, 9, 5);
  for (const char* name : {"a.png", "a.ppm"}) {
    const std::string path = (dir / name).string();
    save_image(path, image);
    const RgbImage back = load_image(path);
    EXPECT_EQ(back.width, 17u);
    EXPECT_EQ(back.height, 9u);
    EXPECT_EQ(back.bytes, image.bytes) << name;
  }
  EXPECT_THROW(load_image((dir / "missing.png").string()), Error);
  std::ofstream((dir / "junk.png").string()) << "not an image";
  EXPECT_THROW(load_image((dir / "junk.png").string()), Error);
  std::ofstream((dir / "short.ppm").string()) << "P6\n100 100\n255\nabc";  // truncated pixels
  EXPECT_THROW(load_image((dir / "short.ppm").string()), Error);
  EXPECT_THROW(make_image(0, 5), Error);
  EXPECT_THROW(make_image((1u << 20) + 1, 1), Error);
  std::filesystem::remove_all(dir);
}

TEST(ConvBatch, MemoryKindsByName) {
  for (HostMemory m : {HostMemory::pageable, HostMemory::pinned, HostMemory::registered, HostMemory::managed})
    EXPECT_EQ(parse_host_memory(host_memory_name(m)), m);
  EXPECT_FALSE(parse_host_memory("unified").has_value());
  EXPECT_FALSE(parse_host_memory("").has_value());
}
