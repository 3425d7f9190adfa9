// The SGEMM problem's CPU side: shapes, the double reference against a brute-force sum, and the
// checks — that each can fail: a wrong element, one just past the bound, a NaN, written padding,
// an error in a row the sampled check does not see (the randomized products catch it).
#include "sgemm/sgemm_cpu.hpp"
#include "sgemm/sgemm_ozaki.hpp"
#include "sgemm/sgemm_paths.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <random>
#include <set>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

using namespace gpulab;

namespace {

/// Every element in double, the slow obvious way.
std::vector<double> brute_force(const SgemmInput& in) {
  const auto [m, n, k] = in.shape;
  std::vector<double> c(m * n);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      double s = 0;
      for (std::size_t p = 0; p < k; ++p) s += static_cast<double>(in.a[i * in.lda + p]) * in.b[p * in.ldb + j];
      c[i * n + j] = in.alpha * s + (in.beta == 0 ? 0.0 : in.beta * static_cast<double>(in.c[i * in.ldc + j]));
    }
  return c;
}

/// What an exact computation rounded once to float would give, padding as the input's (NaN bits).
std::vector<float> rounded(const SgemmInput& in, const std::vector<double>& exact) {
  std::vector<float> c = in.c;
  for (std::size_t i = 0; i < in.shape.m; ++i)
    for (std::size_t j = 0; j < in.shape.n; ++j) c[i * in.ldc + j] = static_cast<float>(exact[i * in.shape.n + j]);
  return c;
}

}  // namespace

TEST(SgemmShape, Parses) {
  EXPECT_EQ(parse_sgemm_shape("5000x3000x700"), (SgemmShape{5000, 3000, 700}));
  EXPECT_EQ(parse_sgemm_shape("4097"), (SgemmShape{4097, 4097, 4097}));
  EXPECT_EQ(parse_sgemm_shape("64x64x2^20"), (SgemmShape{64, 64, 1u << 20}));
  EXPECT_EQ(parse_sgemm_shape("2^16x64x64"), (SgemmShape{65536, 64, 64}));
  EXPECT_EQ(parse_sgemm_shape("3x5x0"), (SgemmShape{3, 5, 0}));  // k = 0: C = beta C
  for (const char* bad : {"", "0", "0x5x5", "5x0x5", "5x5", "5x5x5x5", "ax5x5", "5x5x", "2^31x1x1", "1x1x2^31", "-1x2x3"})
    EXPECT_FALSE(parse_sgemm_shape(bad)) << bad;
  EXPECT_EQ(sgemm_shape_name({5000, 3000, 700}), "5000x3000x700");
}

TEST(SgemmForm, ParsesAndStoresOperandsTransposedWithNaNPadding) {
  EXPECT_EQ(parse_sgemm_form("NN"), (SgemmForm{false, false}));
  EXPECT_EQ(parse_sgemm_form("nt"), (SgemmForm{false, true}));
  EXPECT_EQ(parse_sgemm_form("TN"), (SgemmForm{true, false}));
  EXPECT_EQ(parse_sgemm_form("TT"), (SgemmForm{true, true}));
  for (const char* bad : {"", "N", "NNN", "NX", "tx", "T N"}) EXPECT_FALSE(parse_sgemm_form(bad)) << bad;
  EXPECT_EQ(sgemm_form_name({true, false}), "TN");
  // A 2 × 3 matrix with a row pitch of 4, stored transposed with one float of padding: 3 rows of
  // 2 values, each but the last followed by a NaN.
  const std::vector<float> x{1, 2, 3, -1, 4, 5, 6};
  const std::vector<float> t = stored_transposed(x, 2, 3, 4, 1);
  ASSERT_EQ(t.size(), 8u);
  const std::vector<std::size_t> values{0, 1, 3, 4, 6, 7}, padding{2, 5};
  const std::vector<float> want{1, 4, 2, 5, 3, 6};
  for (std::size_t i = 0; i < values.size(); ++i) EXPECT_EQ(t[values[i]], want[i]);
  for (std::size_t p : padding) EXPECT_TRUE(std::isnan(t[p]));
  // An input's operands in a form: the transposed one stored with the input's padding, the other as it is.
  const SgemmInput in = make_sgemm_input({3, 5, 7}, 2, 1.f, 0.f, 9);
  const SgemmStored tn = stored_operands(in, {true, false});
  EXPECT_EQ(tn.lda, 3u + 2u);
  const std::vector<float> a_t = stored_transposed(in.a, 3, 7, in.lda, 2);
  EXPECT_EQ(tn.ldb, in.ldb);
  ASSERT_EQ(tn.a.size(), a_t.size());
  ASSERT_EQ(tn.b.size(), in.b.size());
  // (NaN padding: bits compared, not values)
  EXPECT_EQ(std::memcmp(tn.a.data(), a_t.data(), a_t.size() * sizeof(float)), 0);
  EXPECT_EQ(std::memcmp(tn.b.data(), in.b.data(), in.b.size() * sizeof(float)), 0);
}

TEST(SgemmInput, PadsRowsWithNaNsAndFillsValuesInRange) {
  const SgemmInput in = make_sgemm_input({3, 5, 7}, 2, 1.f, 0.f, 9);
  EXPECT_EQ(in.lda, 9u);
  EXPECT_EQ(in.ldb, 7u);
  EXPECT_EQ(in.ldc, 7u);
  ASSERT_EQ(in.a.size(), 2u * 9 + 7);  // no padding after the last row of A or B
  EXPECT_EQ(in.b.size(), 6u * 7 + 5);
  EXPECT_EQ(in.c.size(), 3u * 7);
  for (std::size_t i = 0; i < 3; ++i) {
    for (std::size_t p = 0; p < 7; ++p) {
      EXPECT_GE(in.a[i * 9 + p], -1.f);
      EXPECT_LT(in.a[i * 9 + p], 1.f);
    }
    if (i < 2) {
      EXPECT_TRUE(std::isnan(in.a[i * 9 + 7]) && std::isnan(in.a[i * 9 + 8]));
    }
  }
  auto same_bits = [](const std::vector<float>& x, const std::vector<float>& y) {
    return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0;
  };
  EXPECT_TRUE(same_bits(make_sgemm_input({3, 5, 7}, 2, 1.f, 0.f, 9).b, in.b));    // reproducible
  EXPECT_FALSE(same_bits(make_sgemm_input({3, 5, 7}, 2, 1.f, 0.f, 10).b, in.b));  // and seeded
}

TEST(SgemmInput, WideExponentsSpreadTheMagnitudesBothWays) {
  const SgemmInput in = make_sgemm_input({64, 64, 64}, 0, 1.f, 0.f, 9, 20);
  float smallest = 1.f, largest = 0.f;
  for (float x : in.a) {
    if (x == 0.f) continue;
    smallest = std::min(smallest, std::fabs(x)), largest = std::max(largest, std::fabs(x));
    EXPECT_LT(std::fabs(x), 0x1p20f);
  }
  EXPECT_GT(largest, 0x1p15f);   // 4096 values, exponents spread over ±20: both ends are reached
  EXPECT_LT(smallest, 0x1p-15f);
  EXPECT_EQ(in.exponents, 20);
  EXPECT_EQ(make_sgemm_input({64, 64, 64}, 0, 1.f, 0.f, 9, 0).a[5], make_sgemm_input({64, 64, 64}, 0, 1.f, 0.f, 9).a[5]);
}

TEST(SgemmReference, MatchesBruteForceEverywhere) {
  for (float beta : {0.f, -1.5f}) {
    const SgemmInput in = make_sgemm_input({13, 17, 19}, 3, 0.75f, beta, 4);
    const SgemmReference ref = sgemm_reference(in, 4);
    ASSERT_TRUE(ref.full());
    const std::vector<double> want = brute_force(in);
    for (std::size_t i = 0; i < 13; ++i)
      for (std::size_t j = 0; j < 17; ++j) EXPECT_NEAR(ref.row_c[i * 17 + j], want[i * 17 + j], 1e-12);
  }
}

TEST(SgemmReference, SampledRowsAndColumnsMatchBruteForce) {
  const SgemmInput in = make_sgemm_input({150, 140, 30}, 1, 1.f, 2.f, 5);
  const SgemmReference ref = sgemm_reference(in, 5, true);
  ASSERT_FALSE(ref.full());
  EXPECT_TRUE(std::set<std::size_t>(ref.rows.begin(), ref.rows.end()).count(149));  // the last row
  EXPECT_TRUE(std::set<std::size_t>(ref.cols.begin(), ref.cols.end()).count(139));  // the last column
  const std::vector<double> want = brute_force(in);
  for (std::size_t r = 0; r < ref.rows.size(); ++r)
    for (std::size_t j = 0; j < 140; ++j) EXPECT_NEAR(ref.row_c[r * 140 + j], want[ref.rows[r] * 140 + j], 1e-12);
  for (std::size_t c = 0; c < ref.cols.size(); ++c)
    for (std::size_t i = 0; i < 150; ++i) EXPECT_NEAR(ref.col_c[c * 150 + i], want[i * 140 + ref.cols[c]], 1e-12);
}

TEST(SgemmCheck, PassesARoundedExactResultAndTheBaseline) {
  for (bool sampled : {false, true}) {
    const SgemmInput in = make_sgemm_input({150, 140, 300}, 1, -0.5f, 0.25f, 6);
    const SgemmReference ref = sgemm_reference(in, 6, sampled);
    const CheckResult r = check_sgemm(rounded(in, brute_force(in)), in, ref, SgemmMath::fp32);
    EXPECT_TRUE(r.ok) << r.detail;
    EXPECT_GT(r.error, 0.0);
    EXPECT_LE(r.error, r.tolerance);
    const CheckResult b = check_sgemm(sgemm_openmp(in), in, ref, SgemmMath::fp32, 2);
    EXPECT_TRUE(b.ok) << b.detail;
  }
}

TEST(SgemmCheck, KZeroIsBetaC) {
  const SgemmInput in = make_sgemm_input({4, 6, 0}, 0, 3.f, -2.f, 7);
  const SgemmReference ref = sgemm_reference(in, 7);
  std::vector<float> c = in.c;
  for (float& v : c) v *= -2.f;
  EXPECT_TRUE(check_sgemm(c, in, ref, SgemmMath::fp32).ok);
  c[5] += 1e-6f;  // with k = 0 the bound is 2 roundings of beta·c: a 1e-6 error is far past it
  EXPECT_FALSE(check_sgemm(c, in, ref, SgemmMath::fp32).ok);
}

TEST(SgemmCheck, CatchesAWrongElementANaNAndWrittenPadding) {
  const SgemmInput in = make_sgemm_input({70, 66, 130}, 2, 1.f, 0.f, 8);
  const SgemmReference ref = sgemm_reference(in, 8);
  const std::vector<double> exact = brute_force(in);
  const std::vector<float> good = rounded(in, exact);
  ASSERT_TRUE(check_sgemm(good, in, ref, SgemmMath::fp32).ok);

  // Just past the bound: 2x the factor times the element's scale.
  const std::size_t i = 69, j = 65;
  std::vector<float> c = good;
  const double tol = sgemm_error_factor(SgemmMath::fp32, 130) * ref.row_s[i * 66 + j];
  c[i * in.ldc + j] = static_cast<float>(exact[i * 66 + j] + 2 * tol);
  CheckResult r = check_sgemm(c, in, ref, SgemmMath::fp32);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.detail.find("C[69][65]"), std::string::npos) << r.detail;
  // ... which the looser TF32 bound accepts.
  EXPECT_TRUE(check_sgemm(c, in, ref, SgemmMath::tf32).ok);

  c = good;
  c[3 * in.ldc + 4] = std::nanf("");
  r = check_sgemm(c, in, ref, SgemmMath::tf32);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.detail.find("not finite"), std::string::npos) << r.detail;

  c = good;
  c[10 * in.ldc + 66] = 0.f;  // padding
  r = check_sgemm(c, in, ref, SgemmMath::fp32);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.detail.find("padding"), std::string::npos) << r.detail;

  c.pop_back();
  EXPECT_FALSE(check_sgemm(c, in, ref, SgemmMath::fp32).ok);
}

TEST(SgemmCheck, ReportsTheMedianErrorBesideTheWorst) {
  const SgemmInput in = make_sgemm_input({70, 66, 130}, 0, 1.f, 0.f, 8);
  const SgemmReference ref = sgemm_reference(in, 8);
  const std::vector<double> exact = brute_force(in);
  std::vector<float> c = rounded(in, exact);
  CheckResult r = check_sgemm(c, in, ref, SgemmMath::fp32);
  ASSERT_TRUE(r.ok);
  // Correctly rounded elements: each error at most 2^-24·|c| ≤ 2^-24·s, most of them far less.
  EXPECT_GT(r.median_error, 0.0);
  EXPECT_LE(r.median_error, 0x1p-24);
  EXPECT_LE(r.median_error, r.error);
  // One element far off moves the worst past the bound, not the median.
  const double typical = r.median_error;
  c[5 * in.ldc + 7] = static_cast<float>(exact[5 * 66 + 7] + 1e-3);
  r = check_sgemm(c, in, ref, SgemmMath::fp32);
  EXPECT_FALSE(r.ok);
  EXPECT_GT(r.error, r.tolerance);
  EXPECT_LE(r.median_error, 2 * typical);
}

// The Ozaki residues the kernels compute (7 moduli in 32 bits, 8 in two 16-bit halves) against a
// plain x mod m, over every |x| ≤ 2^Q a row or column scaled to 2^Q can give: both ends, around 0
// and each multiple of 2^16, and a spread between: in [−m/2, m/2) and congruent to x.
template <int N>
void expect_residues_right() {
  constexpr std::int64_t kBound = std::int64_t{1} << sgemm_ozaki::norm_bits(N);
  std::vector<std::int64_t> xs = {-kBound, -kBound + 1, -1, 0, 1, kBound - 1, kBound};
  for (std::int64_t x = -kBound; x <= kBound; x += kBound / 997 + 12345) xs.push_back(x);
  for (std::int64_t h = -(kBound >> 16); h <= (kBound >> 16); h += 97)
    for (std::int64_t d : {-1, 0, 1}) xs.push_back(std::clamp(h * 65536 + d, -kBound, kBound));
  auto check = [&]<int L>(std::integral_constant<int, L>) {
    const auto m = static_cast<std::int64_t>(sgemm_ozaki::kModulus[L]);
    for (std::int64_t x : xs) {
      const std::int64_t want = ((x % m) + m) % m;
      const int r = sgemm_ozaki::symmetric_residue<N, L>(x);
      ASSERT_TRUE(2 * r >= -m && 2 * r < m && ((r - want) % m) == 0) << N << " moduli, m = " << m << ", x = " << x << ": " << r;
    }
  };
  [&]<int... L>(std::integer_sequence<int, L...>) { (check(std::integral_constant<int, L>{}), ...); }(std::make_integer_sequence<int, N>{});
}

// The residue of an int32 sum of residue products (cuBLAS's chunks, gpulab's products' epilogue):
// x mod m in [0, m) over the whole range |x| < 2^30 + 256, ends included.
TEST(SgemmOzaki, SumResiduesAreXModMOverTheSumsRange) {
  constexpr std::int64_t kBound = (std::int64_t{1} << 30) + 255;
  std::vector<std::int64_t> xs = {-kBound, kBound, 0, -1, 1, -256, 256};
  std::mt19937_64 rng(3);
  for (int i = 0; i < 20000; ++i) xs.push_back(static_cast<std::int64_t>(rng() % (2 * kBound + 1)) - kBound);
  auto check = [&]<int L>(std::integral_constant<int, L>) {
    const auto m = static_cast<std::int64_t>(sgemm_ozaki::kModulus[L]);
    for (std::int64_t x : xs)
      ASSERT_EQ(sgemm_ozaki::sum_residue<L>(static_cast<std::int32_t>(x)), static_cast<std::uint32_t>(((x % m) + m) % m)) << "m = " << m << ", x = " << x;
  };
  [&]<int... L>(std::integer_sequence<int, L...>) { (check(std::integral_constant<int, L>{}), ...); }(
      std::make_integer_sequence<int, sgemm_ozaki::kMaxModuli>{});
}

TEST(SgemmOzaki, ResiduesAreXModMOnEveryScaledValue) {
  expect_residues_right<7>();
  expect_residues_right<8>();
}

// The Chinese remainder theorem as the reconstruction runs it: the residues of any x in (−M/2, M/2]
// give x back exactly — at the ends and near them, at each power of two, at random, and at small |x|:
// near the ends the sum's quotient by M lies next to a half, at small |x| next to an integer, and its
// FP64 estimate may be one off there (the correction).
template <int N>
void expect_crt_exact() {
  constexpr std::uint64_t kProduct = sgemm_ozaki::modulus_product(N);
  constexpr auto kHalf = static_cast<std::int64_t>(kProduct / 2);
  std::vector<std::int64_t> xs = {0, 1, -1, kHalf, -kHalf + 1, kHalf - 1};
  for (int e = 0; (std::int64_t{1} << e) <= kHalf && e < 63; ++e) xs.push_back(std::int64_t{1} << e), xs.push_back(-(std::int64_t{1} << e));
  std::mt19937_64 rng(N);
  for (int i = 0; i < 200000; ++i) {
    xs.push_back(static_cast<std::int64_t>(rng() % kProduct) - kHalf + 1);
    xs.push_back(static_cast<std::int64_t>(rng() % (1 << 21)) - (1 << 20));
    // within 2^20 of ±M/2, where S/M lies next to a half and q rounded to nearest may be one off
    const auto near_end = static_cast<std::int64_t>(rng() % (1 << 20));
    xs.push_back(kHalf - near_end), xs.push_back(-kHalf + 1 + near_end);
  }
  for (std::int64_t x : xs) {
    const std::uint64_t unsigned_x = x >= 0 ? static_cast<std::uint64_t>(x) : kProduct - static_cast<std::uint64_t>(-x);
    std::uint32_t r[N];
    for (int l = 0; l < N; ++l) r[l] = static_cast<std::uint32_t>(unsigned_x % sgemm_ozaki::kModulus[l]);
    ASSERT_EQ(sgemm_ozaki::from_residues<N>(r), static_cast<double>(x)) << N << " moduli, x = " << x;
  }
}

TEST(SgemmOzaki, TheCrtGivesEveryResidueVectorsValueBack) {
  expect_crt_exact<7>();
  expect_crt_exact<8>();
}

// The guard (sgemm_ozaki.hpp) for one element, as the device runs it: a row's and a column's facts,
// the scheme's result with 7 moduli (integers to 2^27, their dot product exact in 64 bits) and the
// guard's lower bound L from the levels' product over every kGuardStride-th p.
struct GuardCase {
  bool holds;
  double error, allowed;  // |ĉ·2^−(s+t) − a·b| and guard_bound(k)·Σ|aₚbₚ|
};
GuardCase guard_case(const std::vector<float>& a, const std::vector<float>& b) {
  using namespace sgemm_ozaki;
  const int k = static_cast<int>(a.size()), levels = guard_levels((k + kGuardStride - 1) / kGuardStride);
  auto facts = [&](const std::vector<float>& x) {
    double squares = 0, magnitudes = 0;
    float max = 0;
    for (float v : x) squares += static_cast<double>(v) * v, magnitudes += std::fabs(v), max = std::max(max, std::fabs(v));
    return line_facts<7>(squares, magnitudes, max, levels);
  };
  const LineFacts row = facts(a), col = facts(b);
  auto level = [&](float v, int step) { return std::min<std::int64_t>(levels, static_cast<std::int64_t>(std::floor(std::ldexp(std::fabs(v), -step)))); };
  std::int64_t dot = 0, lower = 0;
  long double exact = 0, magnitude = 0;
  for (int p = 0; p < k; ++p) {
    dot += std::llrint(std::ldexp(a[p], row.shift)) * std::llrint(std::ldexp(b[p], col.shift));
    if (p % kGuardStride == 0) lower += level(a[p], row.step) * level(b[p], col.step);
    exact += static_cast<long double>(a[p]) * b[p], magnitude += std::fabs(static_cast<long double>(a[p]) * b[p]);
  }
  const double got = std::ldexp(static_cast<double>(dot), -(row.shift + col.shift));
  return {guard_holds(row, col, encode_lower_bound(static_cast<std::uint32_t>(lower)), k),
          static_cast<double>(std::fabs(got - exact)), guard_bound(k) * static_cast<double>(magnitude)};
}

// Wherever the guard holds, the scheme is within fp32_tensor's bound: random rows and columns of
// exponent spreads 0, ±20 and ±60, with and without a large element planted in the row where the
// column's is small; inputs of spread 0 all hold, of spread 20 from k = 4096 (at k = 100 most fail:
// the bound's 6k·u is small there, and L a quarter of k's sum); the case the scheme loses (2^30 and
// 1s against 1s and 2^30) fails it, and is indeed outside the bound.
TEST(SgemmOzaki, WhereTheGuardHoldsTheSchemeKeepsFp32TensorsBound) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> unit(-1.f, 1.f);
  for (int k : {16, 100, 1000, 4096})
    for (int spread : {0, 20, 60})
      for (int planted : {0, 1}) {
        std::uniform_int_distribution<int> exponent(-spread, spread);
        int held = 0;
        for (int trial = 0; trial < 50; ++trial) {
          std::vector<float> a(k), b(k);
          for (int p = 0; p < k; ++p) a[p] = std::ldexp(unit(rng), exponent(rng)), b[p] = std::ldexp(unit(rng), exponent(rng));
          if (planted) a[trial % k] = 0x1p30f, b[trial % k] = 0x1p-30f;
          const GuardCase c = guard_case(a, b);
          if (!c.holds) continue;
          ++held;
          ASSERT_LE(c.error, c.allowed) << "k " << k << ", spread " << spread << ", trial " << trial;
        }
        if (!planted && (spread == 0 || (spread == 20 && k >= 4096))) {
          EXPECT_EQ(held, 50) << "k " << k << ", spread " << spread;
        }
      }
  std::vector<float> a(64, 1.f), b(64, 1.f);
  a[0] = b[1] = 0x1p30f;
  const GuardCase lost = guard_case(a, b);
  EXPECT_FALSE(lost.holds);
  EXPECT_GT(lost.error, lost.allowed);
}

// The guard's codes: each rounds its sum down, by less than 1/8 (exactly below 16), to 2^31 − 1.
TEST(SgemmOzaki, GuardCodesBoundTheirSumsFromBelow) {
  using sgemm_ozaki::decode_lower_bound, sgemm_ozaki::encode_lower_bound;
  EXPECT_EQ(decode_lower_bound(encode_lower_bound(1000)), 960.f);  // 1111101000: 1111 << 6
  std::vector<std::uint32_t> sums = {0, 0x7fffffffu};
  for (std::uint32_t x = 1; x < 4096; ++x) sums.push_back(x);
  for (int e = 12; e < 31; ++e) sums.push_back(1u << e), sums.push_back((1u << e) - 1), sums.push_back((1u << e) + 12345u % (1u << e));
  for (std::uint32_t sum : sums) {
    const std::uint32_t code = encode_lower_bound(sum);
    ASSERT_LT(code, 256u) << sum;
    const double value = decode_lower_bound(code);
    ASSERT_LE(value, sum) << sum;
    ASSERT_GE(value * 9 / 8, static_cast<double>(sum)) << sum;  // within 1/8 below: L < (1 + 1/8)·value
    if (sum < 16) {
      ASSERT_EQ(value, sum);
    }
  }
}

// The Ozaki scheme's bound (sgemm_ozaki.hpp): γ(2)·s plus a term of row i's and column j's norms.
// Every element just inside it passes, in the full check and in the sampled one (rows, columns and
// the randomized products); one element just outside it fails, and the FP32 bound, looser here,
// still takes it.
TEST(SgemmCheck, TheOzakiBoundIsPerRowAndColumn) {
  for (bool sampled : {false, true}) {
    const SgemmInput in = make_sgemm_input({70, 66, 130}, 1, 1.5f, 0.f, 10);
    const SgemmReference ref = sgemm_reference(in, 10, sampled);
    const std::vector<double> exact = brute_force(in);
    const double two_q = std::ldexp(1.0, -sgemm_ozaki::norm_bits(8));
    auto allowed = [&](std::size_t i, std::size_t j) {
      double s = 0;
      for (std::size_t p = 0; p < 130; ++p) s += std::fabs(in.a[i * in.lda + p] * in.b[p * in.ldb + j]);
      const double term = 1.5 * two_q *
                          (ref.a_norm[i] * ref.b_abs[j] + ref.b_norm[j] * ref.a_abs[i] + 3 * 130 * two_q * ref.a_norm[i] * ref.b_norm[j]);
      return sgemm_error_factor(SgemmMath::ozaki8, 130) * 1.5 * s + term;
    };
    std::vector<float> c = rounded(in, exact);
    for (std::size_t i = 0; i < 70; ++i)
      for (std::size_t j = 0; j < 66; ++j) {
        // Just inside, the float's own rounding (≤ u·|c|) kept within the γ(2)·s part.
        const double target = exact[i * 66 + j] + 0.9 * (allowed(i, j) - 0x1p-24 * std::fabs(exact[i * 66 + j]));
        c[i * in.ldc + j] = static_cast<float>(target);
      }
    const CheckResult inside = check_sgemm(c, in, ref, SgemmMath::ozaki8);
    EXPECT_TRUE(inside.ok) << inside.detail;
    EXPECT_GT(inside.tolerance, sgemm_error_factor(SgemmMath::ozaki8, 130));  // the loosest per-element allowance
    if (sampled) continue;
    c[3 * in.ldc + 4] = static_cast<float>(exact[3 * 66 + 4] + 1.5 * allowed(3, 4));
    EXPECT_FALSE(check_sgemm(c, in, ref, SgemmMath::ozaki8).ok);
    EXPECT_TRUE(check_sgemm(c, in, ref, SgemmMath::fp32).ok);
  }
}

TEST(SgemmCheck, RandomizedProductsCatchAnErrorOutsideTheSampledRowsAndColumns) {
  const SgemmInput in = make_sgemm_input({300, 280, 40}, 0, 1.f, 0.f, 9);
  const SgemmReference ref = sgemm_reference(in, 9, true);
  const std::set<std::size_t> rows(ref.rows.begin(), ref.rows.end()), cols(ref.cols.begin(), ref.cols.end());
  std::size_t i = 2, j = 2;
  while (rows.count(i)) ++i;
  while (cols.count(j)) ++j;
  std::vector<float> c = rounded(in, brute_force(in));
  ASSERT_TRUE(check_sgemm(c, in, ref, SgemmMath::fp32).ok);
  c[i * in.ldc + j] += 0.01f;
  const CheckResult r = check_sgemm(c, in, ref, SgemmMath::fp32);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.detail.find(std::to_string(i)), std::string::npos) << r.detail;
}

TEST(SgemmCheck, BoundsGrowWithDepthAndArithmetic) {
  EXPECT_LT(sgemm_error_factor(SgemmMath::fp32, 100), sgemm_error_factor(SgemmMath::fp32, 1000));
  EXPECT_LT(sgemm_error_factor(SgemmMath::fp32, 1000), sgemm_error_factor(SgemmMath::tf32x3, 1000));
  EXPECT_LT(sgemm_error_factor(SgemmMath::tf32x3, 1000), sgemm_error_factor(SgemmMath::tf32, 1000));
  EXPECT_NEAR(sgemm_error_factor(SgemmMath::fp32, 0), 2 * 0x1p-24, 1e-20 + 1e-6 * 2 * 0x1p-24);  // γ(2)
}

// The library's slicing and cluster rules, pure functions of the shape and the SM count, pinned
// on an H100's 132 SMs at the shapes their measurements chose (docs/sgemm.md): a change to a rule
// shows here, to be measured again, instead of moving the library's speed unseen.
TEST(SgemmRules, SplitCountTakesTheBusiestSmsLeastWork) {
  constexpr std::size_t kSms = 132;
  EXPECT_EQ(sgemm_detail::split_count_for(1024, 1024, 1024, kSms), 1u);   // 256 tiles: two an SM already
  EXPECT_EQ(sgemm_detail::split_count_for(4097, 4097, 4097, kSms), 1u);   // large: the tuner's tiles decide
  EXPECT_EQ(sgemm_detail::split_count_for(768, 768, 768, kSms), 4u);      // 144 tiles: 12 SMs had two
  EXPECT_EQ(sgemm_detail::split_count_for(1536, 1536, 1536, kSms), 2u);
  EXPECT_EQ(sgemm_detail::split_count_for(512, 512, 4096, kSms), 6u);
  EXPECT_EQ(sgemm_detail::split_count_for(256, 256, 4096, kSms), 17u);    // 16 tiles: two blocks an SM
  EXPECT_EQ(sgemm_detail::split_count_for(64, 64, 5000, kSms), 78u);      // as many 64-deep slices as k holds
  EXPECT_EQ(sgemm_detail::split_count_for(64, 64, 1 << 20, kSms), 264u);  // two blocks an SM
  EXPECT_EQ(sgemm_detail::split_count_for(64, 64, 100, kSms), 1u);        // too shallow to cut
  EXPECT_EQ(sgemm_detail::split_count_for(0, 64, 4096, kSms), 1u);        // nothing to tile
}

// The shapes of the H200 sweep (docs/sgemm.md): the tensor cores where they beat the FP32 path there.
TEST(SgemmRules, TensorCoresTakeTheShapesWhereTheyWereMeasuredFaster) {
  auto takes = [](int m, int n, int k, bool tf32) {
    return sgemm_detail::takes_tensor_cores(sgemm_device::gemm_args(m, n, k, 1.f, nullptr, k, nullptr, n, 0.f, nullptr, n), tf32);
  };
  for (bool tf32 : {false, true}) {
    EXPECT_TRUE(takes(896, 896, 896, tf32));
    EXPECT_TRUE(takes(4096, 4096, 128, tf32));
    EXPECT_TRUE(takes(512, 512, 4096, tf32));
    EXPECT_TRUE(takes(5000, 3000, 700, tf32));
    EXPECT_FALSE(takes(768, 768, 768, tf32));
    EXPECT_FALSE(takes(127, 129, 131, tf32));
    EXPECT_FALSE(takes(4096, 4096, 32, tf32));
  }
  // Three products for one pay less: not with k = 64, nor on narrow products that one product takes.
  EXPECT_FALSE(takes(4096, 4096, 64, false));
  EXPECT_TRUE(takes(4096, 4096, 64, true));
  for (auto [m, n, k] : {std::tuple{65536, 256, 256}, std::tuple{300, 300, 20000}, std::tuple{8192, 256, 1024}}) {
    EXPECT_FALSE(takes(m, n, k, false)) << m << "x" << n << "x" << k;
    EXPECT_TRUE(takes(m, n, k, true)) << m << "x" << n << "x" << k;
  }
}

// tf32's vendor path (Hopper): cuBLAS's TF32 GEMM on every product of the H200 sweep but where
// gpulab's own was faster there (docs/sgemm.md): rows off 16-byte boundaries from 2^33 multiply-adds,
// A stored transposed with B as stored from 2^36; and never where cuBLAS cannot take the call.
TEST(SgemmRules, Tf32TakesCublasWhereItWasMeasuredFaster) {
  auto args = [](int m, int n, int k, int pad, bool a_t, bool b_t) {
    const auto ld = [pad](int cols) { return static_cast<std::size_t>(cols + pad); };
    sgemm_device::GemmArgs g = sgemm_device::gemm_args(m, n, k, 1.f, nullptr, a_t ? ld(m) : ld(k), nullptr, b_t ? ld(k) : ld(n), 0.f, nullptr, ld(n));
    g.a_transposed = a_t, g.b_transposed = b_t;
    return g;
  };
  auto takes = [&](int m, int n, int k, int pad = 0, bool a_t = false, bool b_t = false, std::size_t batch = 1) {
    return sgemm_detail::vendor_takes_tf32(args(m, n, k, pad, a_t, b_t), batch);
  };
  for (auto [m, n, k] : {std::tuple{256, 256, 256}, std::tuple{1024, 1024, 1024}, std::tuple{4096, 4096, 4096}, std::tuple{8192, 8192, 8192},
                         std::tuple{16, 4096, 4096}, std::tuple{1, 4096, 4096}, std::tuple{5000, 3000, 700}}) {
    EXPECT_TRUE(takes(m, n, k)) << m << "x" << n << "x" << k;
    EXPECT_TRUE(takes(m, n, k, 0, false, true)) << "NT " << m << "x" << n << "x" << k;
    EXPECT_TRUE(takes(m, n, k, 0, true, true)) << "TT " << m << "x" << n << "x" << k;
  }
  EXPECT_TRUE(takes(512, 512, 512, 0, false, false, 64));
  // Rows off 16-byte boundaries: cuBLAS below 2^33 multiply-adds, gpulab's own from there.
  EXPECT_TRUE(takes(1031, 1029, 1027));
  EXPECT_TRUE(takes(1024, 1024, 1024, 1));
  EXPECT_FALSE(takes(2048, 2048, 2048, 1));
  EXPECT_FALSE(takes(4097, 4097, 4097));
  EXPECT_FALSE(takes(4096, 4096, 4096, 2));
  sgemm_device::GemmArgs members = args(2048, 2048, 2048, 0, false, false);
  members.stride_a = members.stride_b = members.stride_c = 2048 * 2048;
  EXPECT_TRUE(sgemm_detail::vendor_takes_tf32(members, 2));
  members.stride_a += 1;  // every other member's rows off 16-byte boundaries
  EXPECT_FALSE(sgemm_detail::vendor_takes_tf32(members, 2));
  EXPECT_TRUE(sgemm_detail::vendor_takes_tf32(members, 1));  // one member: its stride unused
  // A stored transposed, B as stored (TN): cuBLAS below 2^36, gpulab's own from there.
  EXPECT_TRUE(takes(2048, 2048, 2048, 0, true, false));
  EXPECT_TRUE(takes(5000, 3000, 700, 0, true, false));
  EXPECT_FALSE(takes(4096, 4096, 4096, 0, true, false));
  EXPECT_FALSE(takes(8192, 8192, 8192, 0, true, false));
  // What cuBLAS cannot take: alpha = 0 (k = 0 in the call's arguments), copies of C, int-sized leading dimensions.
  EXPECT_FALSE(takes(512, 512, 0));
  sgemm_device::GemmArgs copies = args(512, 512, 512, 0, false, false);
  copies.copies = 1;
  EXPECT_FALSE(sgemm_detail::vendor_takes_tf32(copies, 1));
  sgemm_device::GemmArgs wide = args(4, 4, 4, 0, false, false);
  wide.ldc = std::size_t{1} << 31;
  EXPECT_FALSE(sgemm_detail::vendor_takes_tf32(wide, 1));
  // Only the family it was measured on.
  for (int capability : {75, 80, 86, 89, 100, 120}) EXPECT_FALSE(sgemm_detail::sgemm_policy(capability).tf32_vendor) << capability;
  EXPECT_TRUE(sgemm_detail::sgemm_policy(90).tf32_vendor);
}

// fp32_tensor's Ozaki path (Hopper): where the H200 sweep found it faster than 3xTF32 (docs/sgemm.md):
// k ≥ 4096 and 2^36 multiply-adds or k ≥ 2048 and 2^37, in every form, and never with copies of C.
TEST(SgemmRules, Fp32TensorTakesTheOzakiSchemeWhereItWasMeasuredFaster) {
  auto args = [](int m, int n, int k, int pad = 0) {
    const auto ld = [pad](int cols) { return static_cast<std::size_t>(cols + pad); };
    return sgemm_device::gemm_args(m, n, k, 1.f, nullptr, ld(k), nullptr, ld(n), 0.f, nullptr, ld(n));
  };
  for (auto [m, n, k] : {std::tuple{4096, 4096, 4096}, std::tuple{2048, 8192, 4096}, std::tuple{8192, 2048, 4096},
                         std::tuple{3072, 3072, 8192}, std::tuple{2048, 2048, 16384}, std::tuple{6144, 6144, 6144},
                         std::tuple{8192, 8192, 8192}, std::tuple{16384, 16384, 16384}, std::tuple{8192, 8192, 2048}})
    EXPECT_TRUE(sgemm_detail::takes_ozaki(args(m, n, k))) << m << "x" << n << "x" << k;
  for (auto [m, n, k] : {std::tuple{3072, 3072, 4096}, std::tuple{6144, 6144, 2048}, std::tuple{4096, 4096, 2048},
                         std::tuple{5000, 3000, 700}, std::tuple{65536, 65536, 1024}, std::tuple{8192, 8192, 2047}})
    EXPECT_FALSE(sgemm_detail::takes_ozaki(args(m, n, k))) << m << "x" << n << "x" << k;
  EXPECT_TRUE(sgemm_detail::takes_ozaki(args(4097, 4097, 4097)));  // rows off 16-byte boundaries alike
  EXPECT_FALSE(sgemm_detail::takes_ozaki(args(4096, 4096, 4095, 1)));  // k below 4096, under 2^37
  for (auto [a_transposed, b_transposed] : {std::pair{false, true}, std::pair{true, false}, std::pair{true, true}})
    for (auto [side, takes] : {std::pair{8192, true}, std::pair{3072, false}}) {  // operands read in place: the same rule
      sgemm_device::GemmArgs transposed = args(side, side, side);
      transposed.a_transposed = a_transposed, transposed.b_transposed = b_transposed;
      EXPECT_EQ(sgemm_detail::takes_ozaki(transposed), takes) << a_transposed << b_transposed << " " << side << "^3";
    }
  sgemm_device::GemmArgs copies = args(8192, 8192, 8192);
  copies.copies = 1;
  EXPECT_FALSE(sgemm_detail::takes_ozaki(copies));
}

TEST(SgemmRules, FewRowsTakeClustersUnlessSplitKFillsTheGpuOnALargeB) {
  constexpr std::size_t kSms = 132;
  EXPECT_EQ(sgemm_detail::few_rows_cluster_ranks_for(1, 4096, 4096, kSms, 16), 8);
  EXPECT_EQ(sgemm_detail::few_rows_cluster_ranks_for(1, 16384, 16384, kSms, 16), 8);
  EXPECT_EQ(sgemm_detail::few_rows_cluster_ranks_for(2, 1024, 1024, kSms, 16), 16);  // 8 groups of columns
  EXPECT_EQ(sgemm_detail::few_rows_cluster_ranks_for(2, 1024, 1024, kSms, 8), 0);    // no clusters of 16: split-K
  EXPECT_EQ(sgemm_detail::few_rows_cluster_ranks_for(1, 512, 8192, kSms, 16), 0);    // even 16 leave SMs idle
  EXPECT_EQ(sgemm_detail::few_rows_cluster_ranks_for(8, 4096, 4096, kSms, 16), 0);   // 64 MiB of B: split-K
  EXPECT_EQ(sgemm_detail::few_rows_cluster_ranks_for(8, 1024, 8192, kSms, 16), 16);  // 32 MiB: one launch
  EXPECT_EQ(sgemm_detail::few_rows_cluster_ranks_for(8, 3072, 4096, kSms, 16), 8);
  EXPECT_EQ(sgemm_detail::few_rows_splits_for(4096, 4096, kSms), 66u);              // two blocks an SM
  EXPECT_EQ(sgemm_detail::few_rows_splits_for(16384, 4096, kSms), 32u);             // at least 32
  EXPECT_EQ(sgemm_detail::few_rows_splits_for(1024, 300, kSms), 9u);                // each at least 32 deep
}

// From 2^34 multiply-adds every fringe of 1-8 rows or columns leaves the tiles (no device asked:
// the waves are counted only below that).
TEST(SgemmRules, LargeProductsTakeEveryFringe) {
  auto fringe = [](int m, int n, int k) {
    sgemm_detail::GemmArgs g;
    g.m = m, g.n = n, g.k = k;
    const sgemm_detail::Fringe f = sgemm_detail::fringe_of(g);
    return std::pair{f.rows, f.cols};
  };
  EXPECT_EQ(fringe(4097, 4097, 4097), std::pair(1, 1));
  EXPECT_EQ(fringe(8192, 8193, 8192), std::pair(0, 1));
  EXPECT_EQ(fringe(8200, 8196, 4096), std::pair(8, 4));
  EXPECT_EQ(fringe(8201, 8192, 4096), std::pair(0, 0));  // 9 rows past the tiles: not a fringe
  EXPECT_EQ(fringe(4097, 4097, 63), std::pair(0, 0));    // shallower than 64: bound by writing C
}

TEST(SgemmRules, SeveralRanksTakeStagesOnlyWhereEachKeepsItsWaves) {
  EXPECT_EQ(sgemm_detail::multi_sgemm_stages(16384, 16384, 1), 1u);      // nothing to send
  EXPECT_EQ(sgemm_detail::multi_sgemm_stages(16384, 16384, 4), 4u);      // 4096 tiles a rank
  EXPECT_EQ(sgemm_detail::multi_sgemm_stages(4 * 16384, 16384, 4), 4u);  // weakly scaled: at most four
  EXPECT_EQ(sgemm_detail::multi_sgemm_stages(0, 4096, 4), 1u);
  EXPECT_EQ(sgemm_detail::multi_sgemm_stages(4 * 4097, 4096, 4), 2u);  // 33 × 32 tiles a rank
  EXPECT_EQ(sgemm_detail::multi_sgemm_stages(4096, 4096, 4), 1u);      // 256 tiles a rank: two waves, one stage
  EXPECT_EQ(sgemm_detail::multi_sgemm_stages(8192, 8192, 4), 2u);      // 1024 tiles a rank: two stages of four waves
}

// The policy per family: TF32 refused without TF32 tensor cores (sm_75); 3xTF32 only where the TF32
// rate is far above three times the FP32 rate (A100 on mma.sync, Hopper on wgmma); Blackwell, which
// runs the sm_90 PTX without wgmma, takes mma.sync for TF32.
TEST(SgemmRules, EachFamilyTakesTheTensorFormThatPaysThere) {
  using sgemm_detail::sgemm_policy;
  using sgemm_detail::TensorForm;
  const std::pair<int, std::pair<TensorForm, TensorForm>> want[] = {
      {75, {TensorForm::none, TensorForm::none}},         {80, {TensorForm::mma_sync, TensorForm::mma_sync}},
      {86, {TensorForm::mma_sync, TensorForm::none}},     {87, {TensorForm::mma_sync, TensorForm::none}},
      {89, {TensorForm::mma_sync, TensorForm::none}},     {90, {TensorForm::wgmma, TensorForm::wgmma}},
      {100, {TensorForm::mma_sync, TensorForm::none}},    {120, {TensorForm::mma_sync, TensorForm::none}}};
  for (const auto& [capability, forms] : want) {
    EXPECT_EQ(sgemm_policy(capability).tf32, forms.first) << capability;
    EXPECT_EQ(sgemm_policy(capability).fp32_tensor, forms.second) << capability;
  }
}
