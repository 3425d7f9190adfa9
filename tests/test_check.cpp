#include "core/check.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace gpulab;

TEST(Check, ToleranceIsGammaKTimesSumAbsPlusReferenceError) {
  const double u = unit_roundoff<float>();
  EXPECT_DOUBLE_EQ(u, std::ldexp(1.0, -24));
  EXPECT_DOUBLE_EQ(unit_roundoff<double>(), std::ldexp(1.0, -53));
  const double k = 100, sum_abs = 1000;
  const double expected = k * u / (1 - k * u) * sum_abs + 2 * std::ldexp(1.0, -53) * sum_abs;
  EXPECT_DOUBLE_EQ(float_tolerance(100, u, sum_abs), expected);
  // Deeper accumulation allows more error; the bound is monotone in k.
  EXPECT_LT(float_tolerance(10, u, sum_abs), float_tolerance(11, u, sum_abs));
  // Past k·u ≥ 1 the classical bound is void: anything finite passes, never NaN/Inf.
  EXPECT_TRUE(std::isinf(float_tolerance(std::size_t{1} << 25, u, 1.0)));
  // A sum of zeros is exact however deep: the tolerance is 0, not ∞·0 (a NaN nothing passes).
  EXPECT_EQ(float_tolerance(std::size_t{1} << 25, u, 0.0), 0.0);
  EXPECT_TRUE(check_float(0.0, 0.0, 0.0, std::size_t{1} << 25, u).ok);
}

TEST(Check, FloatPassesWithinAndFailsBeyondTheBound) {
  const double u = unit_roundoff<float>();
  const double tol = float_tolerance(10, u, 1.0);
  EXPECT_TRUE(check_float(0.5 + 0.9 * tol, 0.5, 1.0, 10, u).ok);
  const CheckResult bad = check_float(0.5 + 1.1 * tol, 0.5, 1.0, 10, u);
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.detail.find("tolerance"), std::string::npos);
  EXPECT_NEAR(bad.error, 1.1 * tol, 1e-12);
}

TEST(Check, NanAndInfNeverPass) {
  const double u = unit_roundoff<float>();
  EXPECT_FALSE(check_float(std::numeric_limits<double>::quiet_NaN(), 0.0, 1.0, std::size_t{1} << 30, u).ok);
  EXPECT_FALSE(check_float(std::numeric_limits<double>::infinity(), 0.0, 1.0, std::size_t{1} << 30, u).ok);
  EXPECT_FALSE(check_float(-std::numeric_limits<double>::infinity(), 0.0, 1.0, 1, u).ok);
}

TEST(Check, ExactIntegers) {
  EXPECT_TRUE(check_exact(-5, -5).ok);
  const CheckResult r = check_exact(4, 5);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, 1.0);
  EXPECT_EQ(r.detail, "got 4, expected 5");
}
