#include "core/random.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

TEST(Random, ReproducibleAndSeedDependent) {
  std::vector<float> a(1000), b(1000), c(1000);
  gpulab::fill_random<float>(a, 7);
  gpulab::fill_random<float>(b, 7);
  gpulab::fill_random<float>(c, 8);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

TEST(Random, FloatsInMinusOneOne) {
  std::vector<double> d(100000);
  gpulab::fill_random<double>(d, 1);
  const auto [lo, hi] = std::minmax_element(d.begin(), d.end());
  EXPECT_GE(*lo, -1.0);
  EXPECT_LT(*hi, 1.0);
  EXPECT_LT(*lo, -0.99);  // covers the range
  EXPECT_GT(*hi, 0.99);
}

TEST(Random, IntsCoverTheWholeRange) {
  std::vector<std::int32_t> v(100000);
  gpulab::fill_random<std::int32_t>(v, 1);
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  EXPECT_LT(*lo, -2000000000);
  EXPECT_GT(*hi, 2000000000);
}
