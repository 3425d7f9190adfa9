// The matrix problems' CPU side: shapes as written, the reference operations, and the exact check
// that every GPU rung goes through (elements and padding).
#include "matrix/matrix_cpu.hpp"

#include <gpulab/error.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

using namespace gpulab;

namespace {

HostMatrix random_matrix(MatrixShape s, std::size_t pitch, std::uint64_t seed) {
  HostMatrix m(s, pitch);
  fill_matrix_random(m, seed);
  return m;
}

std::span<const std::byte> bytes_of(const HostMatrix& m) { return {m.bytes(), m.size_bytes()}; }

TEST(MatrixShapeParse, ReadsRowsByColsWithSizes) {
  EXPECT_EQ(parse_matrix_shape("16383x16385"), (MatrixShape{16383, 16385}));
  EXPECT_EQ(parse_matrix_shape("1x2^26"), (MatrixShape{1, std::size_t{1} << 26}));
  EXPECT_EQ(parse_matrix_shape("2^31-1x1"), (MatrixShape{0x7FFFFFFF, 1}));
  for (const char* bad : {"", "x", "12", "0x5", "5x0", "5x", "x5", "2^31x1", "axb", "4x4x4", "-1x3"})
    EXPECT_FALSE(parse_matrix_shape(bad)) << bad;
}

TEST(MatrixCpu, PaddingIsMarkedAndValuesAreNeverZero) {
  const HostMatrix m = random_matrix({50, 3}, 20, 1);
  for (std::size_t i = 0; i < 50; ++i) {
    for (std::size_t j = 0; j < 3; ++j) EXPECT_NE(m.row(i)[j], 0.f);
    for (std::size_t b = 12; b < 20; ++b) EXPECT_EQ(m.bytes()[i * 20 + b], std::byte{kPaddingByte});
  }
  EXPECT_THROW(HostMatrix(MatrixShape{2, 5}, 16), Error);  // pitch below the row
  EXPECT_THROW(HostMatrix(MatrixShape{2, 5}, 22), Error);  // pitch not a multiple of 4
}

TEST(MatrixCpu, TransposeTwiceGivesBackTheMatrixAndMovesEveryElement) {
  for (MatrixShape s : {MatrixShape{1, 1}, MatrixShape{1, 70}, MatrixShape{70, 1}, MatrixShape{33, 65}}) {
    const HostMatrix a = random_matrix(s, s.cols * 4 + 8, 2);
    HostMatrix t({s.cols, s.rows}, s.rows * 4 + 4), back(s, s.cols * 4 + 8);
    transpose_cpu(a, t, false);
    for (std::size_t i = 0; i < s.rows; ++i)
      for (std::size_t j = 0; j < s.cols; ++j) ASSERT_EQ(t.row(j)[i], a.row(i)[j]);
    transpose_cpu(t, back, true);
    EXPECT_TRUE(check_matrix_bits(bytes_of(back), a).ok);
  }
}

TEST(MatrixCpu, AddRoundsOnceAsFma) {
  const MatrixShape s{17, 9};
  const HostMatrix a = random_matrix(s, 36, 3), b = random_matrix(s, 36, 4);
  HostMatrix c(s, 36);
  add_cpu(2.5f, a, -0.75f, b, c, true);
  for (std::size_t i = 0; i < s.rows; ++i)
    for (std::size_t j = 0; j < s.cols; ++j) EXPECT_EQ(c.row(i)[j], std::fma(2.5f, a.row(i)[j], -0.75f * b.row(i)[j]));
  EXPECT_TRUE(check_add_within_rounding(bytes_of(c), 2.5f, a, -0.75f, b).ok);
}

TEST(MatrixCpu, ZeroTriangleOfRectangularMatrices) {
  for (Triangle part : {Triangle::upper, Triangle::lower})
    for (MatrixShape s : {MatrixShape{3, 7}, MatrixShape{7, 3}, MatrixShape{1, 5}, MatrixShape{5, 1}}) {
      const HostMatrix a = random_matrix(s, s.cols * 4, 5);
      HostMatrix m(s, s.cols * 4);
      m.copy_from(a);
      zero_triangle_cpu(m, part, false);
      for (std::size_t i = 0; i < s.rows; ++i)
        for (std::size_t j = 0; j < s.cols; ++j) {
          const bool zeroed = part == Triangle::upper ? j > i : j < i;
          EXPECT_EQ(m.row(i)[j], zeroed ? 0.f : a.row(i)[j]) << i << "," << j;
        }
    }
}

TEST(MatrixCheck, FindsAChangedElementAndAWrittenPaddingByte) {
  const HostMatrix want = random_matrix({4, 3}, 16, 6);
  std::vector<std::byte> got(bytes_of(want).begin(), bytes_of(want).end());
  EXPECT_TRUE(check_matrix_bits(got, want).ok);
  std::memset(got.data() + 2 * 16 + 4, 0, 4);  // element (2, 1)
  CheckResult r = check_matrix_bits(got, want);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.detail.find("element (2, 1)"), std::string::npos) << r.detail;
  got.assign(bytes_of(want).begin(), bytes_of(want).end());
  got[1 * 16 + 13] = std::byte{0};  // the padding of row 1
  r = check_matrix_bits(got, want);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.detail.find("padding of row 1"), std::string::npos) << r.detail;
  EXPECT_FALSE(check_add_within_rounding(got, 1.f, want, 0.f, want).ok);
  got.pop_back();
  EXPECT_FALSE(check_matrix_bits(got, want).ok);  // a short output
}

TEST(MatrixCheck, RoundingBoundAllowsTwoRoundingsNotThreeUlps) {
  HostMatrix a({1, 1}, 4), b({1, 1}, 4), c({1, 1}, 4);
  a.row(0)[0] = 0.75f;
  b.row(0)[0] = 0.5f;  // exact sum 1.25, ulp 2^-23; two roundings allow 2u(0.75 + 0.5) = 1.25 * 2^-23
  c.row(0)[0] = std::nextafter(1.25f, 2.f);
  EXPECT_TRUE(check_add_within_rounding(bytes_of(c), 1.f, a, 1.f, b).ok);
  c.row(0)[0] = std::nextafter(std::nextafter(1.25f, 2.f), 2.f);
  EXPECT_FALSE(check_add_within_rounding(bytes_of(c), 1.f, a, 1.f, b).ok);
}

}  // namespace
