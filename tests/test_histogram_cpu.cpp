#include "histogram/bin_of_float.hpp"
#include "histogram/bin_rule.hpp"
#include "histogram/fixed_point_sum.hpp"
#include "histogram/histogram_cpu.hpp"

#include <gpulab/error.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numeric>
#include <random>
#include <utility>

using namespace gpulab;

namespace {
constexpr std::int32_t kMin = std::numeric_limits<std::int32_t>::min();
constexpr std::int32_t kMax = std::numeric_limits<std::int32_t>::max();

std::uint64_t total(const std::vector<std::uint32_t>& h) {
  return std::accumulate(h.begin(), h.end(), std::uint64_t{0});
}

std::filesystem::path temp_file(const std::string& name, const std::string& bytes) {
  const auto p = std::filesystem::temp_directory_path() / ("gpulab_test_" + name);
  std::ofstream(p, std::ios::binary) << bytes;
  return p;
}
}  // namespace

TEST(HistogramBin, NegativesWrapIntoRange) {
  EXPECT_EQ(histogram_bin(-1, 7), 6u);
  EXPECT_EQ(histogram_bin(-7, 7), 0u);
  EXPECT_EQ(histogram_bin(-8, 7), 6u);
  EXPECT_EQ(histogram_bin(13, 8), 5u);
  EXPECT_EQ(histogram_bin(kMin, 2), 0u);
  EXPECT_EQ(histogram_bin(kMin, 3), 1u);  // -2147483648 = -715827883·3 + 1
  EXPECT_EQ(histogram_bin(kMax, 256), 255u);
}

TEST(HistogramBin, OneBinAndBinsBeyondTheValueRange) {
  for (std::int32_t v : {kMin, -5, 0, 5, kMax}) EXPECT_EQ(histogram_bin(v, 1), 0u);
  // M larger than every |v|: non-negative v is its own bin, negative v goes to M + v.
  const std::uint32_t big = 0xFFFFFFFFu;
  EXPECT_EQ(histogram_bin(5, big), 5u);
  EXPECT_EQ(histogram_bin(-5, big), big - 5);
  EXPECT_EQ(histogram_bin(kMin, big), big - 2147483648u);
}

TEST(HistogramBin, AgreesWithTheDefinitionEverywhere) {
  for (std::uint32_t m : {1u, 2u, 7u, 8u, 255u, 256u, 4096u, 65536u, 1u << 20, 1000003u})
    for (std::int64_t v = kMin; v <= kMax; v += 9973 * 1009 + 17) {
      const auto b = histogram_bin(static_cast<std::int32_t>(v), m);
      ASSERT_LT(b, m);
      ASSERT_EQ((v - static_cast<std::int64_t>(b)) % static_cast<std::int64_t>(m), 0) << v << " " << m;
    }
}

// The GPU's division-free bin rule (bin_rule.hpp) against the definition: every divisor class
// (1, powers of two, odd, just below and above powers of two, the largest) × edge and spread values.
TEST(BinRule, MatchesTheDefinitionForEveryKindOfDivisor) {
  std::vector<std::uint32_t> divisors{1, 2, 3, 5, 7, 8, 255, 256, 257, 641, 4095, 4096, 4097, 65535, 65536,
                                      65537, 1u << 20, 1000003, 0x7FFFFFFFu, 0x80000000u, 0x80000001u,
                                      0xFFFFFFFEu, 0xFFFFFFFFu};
  for (std::uint32_t k = 1; k < 32; ++k) divisors.push_back((1u << k) - 1), divisors.push_back((1u << k) + 1);
  std::vector<std::int32_t> values{kMin, kMin + 1, -65537, -65536, -257, -256, -9, -8, -7, -2, -1,
                                   0, 1, 2, 7, 8, 9, 255, 256, 65535, 65536, kMax - 1, kMax};
  for (std::int64_t v = kMin; v <= kMax; v += 7919 * 9973 + 1) values.push_back(static_cast<std::int32_t>(v));
  for (std::uint32_t m : divisors) {
    const BinRule rule(m);
    for (std::int32_t v : values) ASSERT_EQ(rule(v), histogram_bin(v, m)) << "v=" << v << " m=" << m;
    for (std::int32_t v : {static_cast<std::int32_t>(m - 1), static_cast<std::int32_t>(m), static_cast<std::int32_t>(m + 1)})
      ASSERT_EQ(rule(v), histogram_bin(v, m)) << "v=" << v << " m=" << m;
  }
  for (std::uint32_t k = 0; k < 32; ++k) {  // powers of two: MaskBinRule's one AND
    const gpulab::MaskBinRule rule(1u << k);
    ASSERT_EQ(rule.bins(), 1u << k);
    for (std::int32_t v : values) ASSERT_EQ(rule(v), histogram_bin(v, 1u << k)) << "v=" << v << " m=2^" << k;
  }
}

TEST(BinRule, DividesEveryUnsignedByASmallAndALargeDivisor) {
  for (std::uint32_t m : {7u, 0xFFFFFFFBu}) {
    const BinRule rule(m);
    for (std::uint64_t u = 0; u <= 0xFFFFFFFFull; u += 65521) ASSERT_EQ(rule.divide(static_cast<std::uint32_t>(u)), u / m);
    ASSERT_EQ(rule.divide(0xFFFFFFFFu), 0xFFFFFFFFu / m);
  }
}

TEST(HistogramCheck, NamesTheFirstWrongBinAndTheTotals) {
  const std::vector<std::uint32_t> ref{3, 0, 2}, same{3, 0, 2}, wrong{3, 1, 0};
  EXPECT_TRUE(check_histogram(same, ref).ok);
  const CheckResult r = check_histogram(wrong, ref);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.detail, "2 of 3 bins differ (first: bin 1 = 1, expected 0); counts sum to 4, expected 5");
  EXPECT_FALSE(check_histogram(std::vector<std::uint32_t>{3, 0}, ref).ok);
}

TEST(HistogramReference, HandComputed) {
  const std::vector<std::int32_t> v{0, 1, 2, 3, 4, 5, 6, 7, 8, -1, -9};
  const auto h = histogram_reference(v, 8);
  EXPECT_EQ(h, (std::vector<std::uint32_t>{2, 1, 1, 1, 1, 1, 1, 3}));
  EXPECT_EQ(histogram_reference({}, 5), std::vector<std::uint32_t>(5, 0));
}

TEST(HistogramReference, OpenMPMatchesAndCountsSumToN) {
  for (auto d : {HistogramDistribution::uniform, HistogramDistribution::narrow, HistogramDistribution::degenerate})
    for (std::uint32_t m : {1u, 7u, 256u, 65536u}) {
      std::vector<std::int32_t> v(100003);
      fill_histogram_input(v, d, 42);
      const auto ref = histogram_reference(v, m);
      EXPECT_EQ(total(ref), v.size());
      EXPECT_EQ(histogram_openmp(v, m), ref) << histogram_distribution_name(d) << " m=" << m;
    }
}

TEST(HistogramInput, DistributionsHaveTheirShape) {
  std::vector<std::int32_t> v(50000);
  fill_histogram_input(v, HistogramDistribution::narrow, 1);
  EXPECT_EQ(*std::min_element(v.begin(), v.end()), -128);
  EXPECT_EQ(*std::max_element(v.begin(), v.end()), 127);
  fill_histogram_input(v, HistogramDistribution::degenerate, 1);
  EXPECT_TRUE(std::all_of(v.begin(), v.end(), [&](std::int32_t x) { return x == v[0]; }));
  fill_histogram_input(v, HistogramDistribution::uniform, 1);
  EXPECT_LT(*std::min_element(v.begin(), v.end()), -2000000000);
  EXPECT_EQ(parse_histogram_distribution("narrow"), HistogramDistribution::narrow);
  EXPECT_FALSE(parse_histogram_distribution("gaussian").has_value());
}

TEST(HistogramShape, RefusesTooManyValuesAndZeroBins) {
  EXPECT_NO_THROW(validate_histogram_shape(0, 1));
  EXPECT_NO_THROW(validate_histogram_shape((std::size_t{1} << 32) - 1, 1u << 20));
  EXPECT_THROW(validate_histogram_shape(std::size_t{1} << 32, 8), Error);
  EXPECT_THROW(validate_histogram_shape(10, 0), Error);
  EXPECT_THROW(validate_histogram_shape(10, std::uint64_t{1} << 32), Error);
}

TEST(HistogramFile, RoundTripAndStrictRefusals) {
  const std::int32_t values[] = {1, -2, kMin, kMax};
  const auto good = temp_file("good.bin", std::string(reinterpret_cast<const char*>(values), sizeof values));
  EXPECT_EQ(load_raw_int32(good, 1 << 20), (std::vector<std::int32_t>{1, -2, kMin, kMax}));
  EXPECT_TRUE(load_raw_int32(temp_file("empty.bin", ""), 1 << 20).empty());
  EXPECT_THROW(load_raw_int32(temp_file("odd.bin", "12345"), 1 << 20), Error);        // not 4k bytes
  EXPECT_THROW(load_raw_int32(good, 8), Error);                                        // over the limit
  EXPECT_THROW(load_raw_int32("/nonexistent/gpulab.bin", 1 << 20), Error);
  EXPECT_THROW(load_raw_int32(std::filesystem::temp_directory_path(), 1 << 20), Error);  // a directory
  try {
    load_raw_int32(temp_file("odd2.bin", "123"), 1 << 20);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not a whole number of int32 values"), std::string::npos);
  }
}

namespace {

TEST(FloatBins, RangeAsTorchHistcEdgesAsTorchHistogram) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  // [0, 1] in 4 bins: hi in the last; outside, NaN and infinities to bin m = 4 (not counted)
  EXPECT_EQ(gpulab::range_bin(0.0f, 4, 0.0f, 1.0f), 0u);
  EXPECT_EQ(gpulab::range_bin(-0.0f, 4, 0.0f, 1.0f), 0u);
  EXPECT_EQ(gpulab::range_bin(0.25f, 4, 0.0f, 1.0f), 1u);
  EXPECT_EQ(gpulab::range_bin(0.999f, 4, 0.0f, 1.0f), 3u);
  EXPECT_EQ(gpulab::range_bin(1.0f, 4, 0.0f, 1.0f), 3u);
  for (float out : {1.0001f, -1e-30f, nan, inf, -inf}) EXPECT_EQ(gpulab::range_bin(out, 4, 0.0f, 1.0f), 4u) << out;
  // edges 0, 1, 2, 4: [0, 1) [1, 2) [2, 4]
  const float edges[] = {0.0f, 1.0f, 2.0f, 4.0f};
  EXPECT_EQ(gpulab::edge_bin(0.0f, edges, 3), 0u);
  EXPECT_EQ(gpulab::edge_bin(0.5f, edges, 3), 0u);
  EXPECT_EQ(gpulab::edge_bin(1.0f, edges, 3), 1u);
  EXPECT_EQ(gpulab::edge_bin(3.9f, edges, 3), 2u);
  EXPECT_EQ(gpulab::edge_bin(4.0f, edges, 3), 2u);
  for (float out : {4.1f, -1.0f, nan, inf}) EXPECT_EQ(gpulab::edge_bin(out, edges, 3), 3u) << out;
  const std::vector<float> values = {0.0f, 0.3f, 1.0f, 1.5f, 4.0f, 5.0f, nan};
  EXPECT_EQ(gpulab::histogram_edges_reference<float>(values, edges), (std::vector<std::uint32_t>{2, 2, 1}));
  EXPECT_EQ(gpulab::histogram_range_reference<float>(values, 2, 0.0f, 2.0f), (std::vector<std::uint32_t>{2, 2}));
  EXPECT_THROW(gpulab::histogram_edges_reference<float>(values, std::span<const float>(edges, 1)), gpulab::Error);
}

// The edges' guide is a hint: with the guide the kernels build, and with guides of random bins,
// the guided search gives edge_bin's bin for every value, whatever the edges.
TEST(FloatBins, TheEdgesGuideIsOnlyAHint) {
  const float big = std::numeric_limits<float>::max(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<std::vector<float>> edge_sets = {{0.0f, 1.0f}, {0.0f, 0.0f, 0.0f, 1.0f, 1.0f, 2.0f}, {-big, -1.0f, 0.0f, 1.0f, big},
                                               {3.0f, 3.0f}, gpulab::uneven_edges<float>(1000)};
  std::vector<float> close;
  for (int k = 0; k <= 1000; ++k) close.push_back(1e6f + 1e-3f * static_cast<float>(k));
  edge_sets.push_back(close);
  std::mt19937 random(7);
  for (const auto& edges : edge_sets) {
    const auto m = static_cast<std::uint32_t>(edges.size() - 1);
    const float per_unit = gpulab::EdgeRule<float>::cells_per_unit_of(edges.data(), m);
    std::vector<std::uint32_t> built(m + 1), garbage(m + 1);
    for (std::uint32_t c = 0; c <= m; ++c) {
      built[c] = gpulab::EdgeRule<float>::guide_entry(edges.data(), m, per_unit, c);
      garbage[c] = static_cast<std::uint32_t>(random() % m);
    }
    std::vector<float> values = {nan, -big, big, edges.front() - 1.0f, edges.back() + 1.0f};
    for (float e : edges) values.insert(values.end(), {e, std::nextafter(e, big), std::nextafter(e, -big)});
    std::uniform_real_distribution<float> within(0.0f, 1.0f);
    for (int k = 0; k < 5000; ++k) values.push_back(edges.front() + (edges.back() - edges.front()) * within(random));
    for (const auto* guide : {&built, &garbage}) {
      const gpulab::EdgeRule<float> rule{edges.data(), m, guide->data(), per_unit};
      for (float v : values)
        ASSERT_EQ(rule(v), gpulab::edge_bin(v, edges.data(), m)) << "v " << v << ", " << m + 1 << " edges from " << edges.front()
                                                                 << (guide == &built ? ", the built guide" : ", a random guide");
    }
  }
}

// The library's torch.histc rule divides by the range from its reciprocal (divide_by_reciprocal):
// the division's own quotient, for every float32 y in [1, 4) over divisors with awkward mantissas
// (all ones, 1/3, random), and float64 ys near multiples of the divisor; then range_rule's bins
// against range_bin's over values at the bins' edges, and the ranges where it must divide.
TEST(RangeBin, TheReciprocalGivesTheDivisionsQuotient) {
  std::mt19937_64 random(5);
  std::vector<float> divisors = {1.0f, 1.5f, 3.0f, 0.1f, 2.0f / 3.0f, std::nextafter(2.0f, 0.0f), std::nextafter(1.0f, 2.0f)};
  for (int k = 0; k < 5; ++k) divisors.push_back(std::bit_cast<float>(0x3f800000u | static_cast<std::uint32_t>(random() & 0x7fffff)));
  for (float d : divisors) {
    const float r = 1.0f / d;
    for (std::uint32_t bits = 0x3f800000u; bits < 0x40800000u; ++bits) {  // every float in [1, 4)
      const float y = std::bit_cast<float>(bits);
      if (gpulab::divide_by_reciprocal(y, d, r) != y / d) FAIL() << "y " << y << ", d " << d;
    }
  }
  for (int k = 0; k < 100; ++k) {
    const double d = 1.0 + static_cast<double>(random() >> 12) * 0x1p-52, r = 1.0 / d;
    for (int j = 0; j < 20000; ++j) {
      const double near = std::floor(static_cast<double>(random() % 100000 + 64) / 64.0) * d;  // k·d: at a bin's edge
      const double y = j % 2 ? 1.0 + static_cast<double>(random() >> 12) * 0x1p-52 : std::nextafter(near, j % 4 ? 0.0 : 1e9);
      ASSERT_EQ(gpulab::divide_by_reciprocal(y, d, r), y / d) << "y " << y << ", d " << d;
    }
  }
}

template <class T>
void expect_range_rule_bins(std::uint32_t m, T lo, T hi, bool divides) {
  const gpulab::RangeRule<T> rule = gpulab::range_rule(m, lo, hi);
  ASSERT_EQ(rule.reciprocal == 0, divides) << lo << ", " << hi;
  std::vector<T> values;
  for (std::uint32_t b = 0; b <= m; ++b) {  // each edge lo + b·(hi − lo)/m and its neighbours
    const T edge = lo + (hi - lo) * static_cast<T>(b) / static_cast<T>(m);
    T v = edge;
    for (int k = 0; k < 3; ++k) v = std::nextafter(v, -std::numeric_limits<T>::infinity());
    for (int k = 0; k < 7; ++k, v = std::nextafter(v, std::numeric_limits<T>::infinity())) values.push_back(v);
  }
  for (T v : values) ASSERT_EQ(rule(v), gpulab::range_bin(v, m, lo, hi)) << "v " << v << ", m " << m << ", [" << lo << ", " << hi << "]";
}

TEST(RangeBin, TheRangeRuleBinsAsTorchHistc) {
  for (std::uint32_t m : {1u, 3u, 7u, 256u, 1000u, 4096u}) {
    expect_range_rule_bins<float>(m, -1.0f, 1.0f, false);
    expect_range_rule_bins<float>(m, 0.1f, 0.7f, false);
    expect_range_rule_bins<float>(m, -3.3e7f, 1.7e-3f, false);
    expect_range_rule_bins<double>(m, -0.3, 1e5, false);
    expect_range_rule_bins<double>(m, 1.0 / 3.0, 2.0, false);
    // Where the reciprocal's division does not hold it divides: a width overflowing, one near underflow.
    expect_range_rule_bins<float>(m, -3e38f, 3e38f, true);
    expect_range_rule_bins<float>(m, 0.0f, 1e-37f, true);
    expect_range_rule_bins<double>(m, 1e-300, 2e-300, true);
  }
}

// The weighted ladder's exact sums (fixed_point_sum.hpp) against the compiler's own 128-bit
// integers: each weight as an exact integer number of 2^q_min (via long double, which holds any
// float or double exactly), their sum, and its conversion to double (libgcc's, correctly rounded).
__extension__ typedef __int128 Wide;  // the compiler's (GCC, Clang) 128-bit integers
__extension__ typedef unsigned __int128 UWide;

template <class W>
void expect_exact_fixed_point_sums(std::mt19937_64& random, int exponent_spread) {
  namespace fp = gpulab::fixed_point;
  std::uniform_real_distribution<W> unit(W(-1), W(1));
  std::uniform_int_distribution<int> exponent(-exponent_spread, exponent_spread);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<W> w(1 + random() % 3000);
    const bool coarse = trial % 3 == 1;  // weights on a grid of 2^-6: their lowest set bits, not 24 or 53 of them
    for (auto& x : w) x = std::ldexp(coarse ? std::round(unit(random) * W(64)) / W(64) : unit(random), exponent(random));
    if (trial % 7 == 0) w.push_back(-w[0]);  // a cancellation
    fp::Span span;
    for (W x : w) span.add(x);
    ASSERT_TRUE(span.fits(w.size()));
    const int q_min = span.q_min;
    fp::Int128 sum;
    Wide want = 0;
    for (W x : w) {
      fp::add_into(sum, fp::to_fixed(x, q_min));
      want += static_cast<Wide>(std::ldexp(static_cast<long double>(x), -q_min));
    }
    const auto want_bits = static_cast<UWide>(want);
    ASSERT_EQ(sum.lo, static_cast<std::uint64_t>(want_bits)) << "trial " << trial;
    ASSERT_EQ(sum.hi, static_cast<std::uint64_t>(want_bits >> 64)) << "trial " << trial;
    ASSERT_EQ(fp::to_double(sum, q_min), std::ldexp(static_cast<double>(want), q_min)) << "trial " << trial;
  }
}

TEST(FixedPointSum, ExactAgainstTheCompilers128BitIntegers) {
  std::mt19937_64 random(3);
  expect_exact_fixed_point_sums<float>(random, 30);   // 24 + 61 binades + 12 bits of n: past 64 bits
  expect_exact_fixed_point_sums<double>(random, 20);  // 53 + 41 + 12: the high word in every sum
  // Sums kept in 32-bit limbs, a limb at a time (as the GPU's atomics add them), carries included;
  // the limbs 3 words apart (as the shared planes keep them m apart).
  constexpr std::size_t kStride = 3;
  std::uint32_t limbs[4 * kStride] = {};
  UWide want = 0;
  for (int k = 0; k < 100000; ++k) {
    const UWide x = (static_cast<UWide>(random()) << 64 | random()) >> (random() % 128 + 8);  // below 2^120
    gpulab::fixed_point::add_to_limbs(limbs, {static_cast<std::uint64_t>(x), static_cast<std::uint64_t>(x >> 64)},
                                      [](std::uint32_t* p, std::uint32_t v) { return std::exchange(*p, *p + v); }, kStride);
    want += x;
    const gpulab::fixed_point::Int128 got = gpulab::fixed_point::from_limbs(limbs, kStride);
    ASSERT_EQ(got.lo, static_cast<std::uint64_t>(want)) << k;
    ASSERT_EQ(got.hi, static_cast<std::uint64_t>(want >> 64)) << k;
  }
  // Conversions of 128-bit integers that need rounding, ties and sticky bits among them.
  for (int k = 0; k < 100000; ++k) {
    const UWide bits = (static_cast<UWide>(random()) << 64 | random()) >> (random() % 128);
    const gpulab::fixed_point::Int128 x{static_cast<std::uint64_t>(bits), static_cast<std::uint64_t>(bits >> 64)};
    ASSERT_EQ(gpulab::fixed_point::to_double(x, -7), std::ldexp(static_cast<double>(static_cast<Wide>(bits)), -7)) << k;
  }
}

// The float32 superaccumulator (fixed_point_sum.hpp), its limbs 3 words apart, added a limb at a
// time as the GPU's atomics add them: sums known by hand across the whole float32 range; random
// weights within 128 bits against the 128-bit sum above (the same exact sum, rounded once); and its
// conversion of random 320-bit values against the compiler's 128-bit one, shifted whole limbs up.
double super_sum(const std::vector<float>& weights) {
  namespace fp = gpulab::fixed_point;
  constexpr std::size_t kStride = 3;
  std::uint32_t positive[fp::kSuperLimbs * kStride] = {}, negative[fp::kSuperLimbs * kStride] = {};
  for (float w : weights)
    fp::add_to_super(w < 0 ? negative : positive, w, [](std::uint32_t* p, std::uint32_t v) { return std::exchange(*p, *p + v); }, kStride);
  return fp::super_to_double(positive, negative, kStride);
}

TEST(FixedPointSum, TheFloat32SuperaccumulatorSumsAnySpan) {
  namespace fp = gpulab::fixed_point;
  const float big = std::numeric_limits<float>::max(), tiny = std::numeric_limits<float>::denorm_min();
  EXPECT_EQ(super_sum({std::ldexp(1.0f, 100), 1.0f, -std::ldexp(1.0f, 100)}), 1.0);
  EXPECT_EQ(super_sum({big, big, tiny, -big}), static_cast<double>(big) + std::ldexp(1.0, -149));
  EXPECT_EQ(super_sum({tiny, tiny, tiny}), 3 * std::ldexp(1.0, -149));
  EXPECT_EQ(super_sum({2.5f, -2.5f}), 0.0);
  EXPECT_FALSE(std::signbit(super_sum({2.5f, -2.5f})));
  EXPECT_EQ(super_sum(std::vector<float>(100000, big)), 100000.0 * static_cast<double>(big));
  EXPECT_EQ(super_sum({-1.0f, std::ldexp(1.0f, -60)}), -1.0 + std::ldexp(1.0, -60));
  std::mt19937_64 random(11);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-40, 40);
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<float> w(1 + random() % 2000);
    for (auto& x : w) x = std::ldexp(unit(random), exponent(random));
    fp::Span span;
    for (float x : w) span.add(x);
    const int q_min = span.q_min;
    fp::Int128 sum;
    for (float x : w) fp::add_into(sum, fp::to_fixed(x, q_min));
    ASSERT_EQ(super_sum(w), fp::to_double(sum, q_min)) << "trial " << trial;
  }
  for (int k = 0; k < 20000; ++k) {  // conversions: a value below 2^126 in limbs 0–3, then whole limbs up
    const UWide bits = (static_cast<UWide>(random()) << 64 | random()) >> (random() % 126 + 2);
    for (int up = 0; up + 4 <= fp::kSuperLimbs; ++up) {
      std::uint32_t positive[fp::kSuperLimbs] = {}, negative[fp::kSuperLimbs] = {};
      for (int l = 0; l < 4; ++l) positive[up + l] = static_cast<std::uint32_t>(bits >> (32 * l));
      const double want = std::ldexp(static_cast<double>(static_cast<Wide>(bits)), fp::kSuperUnit + 32 * up);
      ASSERT_EQ(fp::super_to_double(positive, negative, 1), want) << k << ", " << up;
      ASSERT_EQ(fp::super_to_double(negative, positive, 1), -want) << k << ", " << up;
    }
  }
}

// The carry-save digits (fixed_point_sum.hpp, the library's float32 path): each weight's three
// digits added to 64-bit counters with no carry, the carries made once by digits_to_super: the
// superaccumulator's sums, bit for bit, across float32's whole range (every finite bit pattern:
// subnormal, huge, both signs), with sums cancelling to zero and to negative values.
template <class W>
double digits_sum_of(const std::vector<W>& weights) {
  namespace fp = gpulab::fixed_point;
  using F = fp::DigitFormat<W>;
  std::vector<std::int64_t> counters(F::kDigits);
  for (W w : weights) {
    const auto d = fp::to_digits(w);
    for (int j = 0; j < F::kParts; ++j) counters[d.first + j] += d.digit[j];
  }
  std::uint32_t limbs[F::kLimbs];
  fp::digits_to_limbs<F::kDigits, F::kLimbs>(counters.data(), 1, limbs);
  return fp::limbs_to_double<F::kLimbs>(limbs, F::kUnit);
}
double digits_sum(const std::vector<float>& weights) { return digits_sum_of(weights); }
double digits_sum(const std::vector<double>& weights) { return digits_sum_of(weights); }

TEST(FixedPointSum, CarrySaveDigitsGiveTheSuperaccumulatorsSums) {
  namespace fp = gpulab::fixed_point;
  const float big = std::numeric_limits<float>::max(), tiny = std::numeric_limits<float>::denorm_min();
  for (const std::vector<float>& w : std::vector<std::vector<float>>{
           {std::ldexp(1.0f, 100), 1.0f, -std::ldexp(1.0f, 100)}, {big, big, tiny, -big}, {tiny, tiny, tiny}, {2.5f, -2.5f},
           {-big, -big, -big}, {-1.0f, std::ldexp(1.0f, -60)}, {-tiny}, {0.0f, -0.0f}, std::vector<float>(100000, -big)})
    EXPECT_EQ(digits_sum(w), super_sum(w));
  EXPECT_EQ(digits_sum(std::vector<float>{-big, -big, -big}), -3.0 * static_cast<double>(big));
  EXPECT_FALSE(std::signbit(digits_sum(std::vector<float>{2.5f, -2.5f})));
  std::mt19937_64 random(13);
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<float> w(1 + random() % 500);
    for (auto& x : w) {
      do x = std::bit_cast<float>(static_cast<std::uint32_t>(random()));
      while (!std::isfinite(x));
      if (trial % 2 == 1) x = std::ldexp(x, -std::ilogb(x) + static_cast<int>(random() % 9) - 4);  // within 2^±5
    }
    ASSERT_EQ(digits_sum(w), super_sum(w)) << "trial " << trial;
  }
  for (int e = 0; e < 255; ++e) {  // every exponent: its digits placed as the superaccumulator places it
    const float w = std::bit_cast<float>(static_cast<std::uint32_t>(e) << 23 | 0x7FFFFFu);
    const auto d = fp::to_digits(w);
    const int p = e == 0 ? 0 : e - 1;
    EXPECT_EQ(d.first, p / fp::kDigitBits) << e;
    EXPECT_EQ(digits_sum(std::vector<float>{w, -w, w}), static_cast<double>(w)) << e;
  }
  // A 32-bit counter takes kDigitAddsIn32Bits digits of the largest size exactly.
  static_assert(fp::kDigitAddsIn32Bits * fp::kDigitMask <= static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()));
}

// float64 as carry-save digits (six a weight, 176 counters a bin, rung 5 of the weighted ladder, up to
// two passes): the exact sum rounded once. Two weights sum as IEEE addition does (itself the exact
// sum rounded once), for every finite bit pattern; a weight added and taken away leaves the other
// exactly; sums past the largest double round to infinity at its midpoint; random weights within
// 128 bits against the 128-bit path (another integer form of the same sum).
TEST(FixedPointSum, Float64DigitsGiveTheRoundedExactSum) {
  namespace fp = gpulab::fixed_point;
  const double big = std::numeric_limits<double>::max(), tiny = std::numeric_limits<double>::denorm_min();
  EXPECT_EQ(digits_sum(std::vector<double>{1e300, 1.0, -1e300}), 1.0);
  EXPECT_EQ(digits_sum(std::vector<double>{big, big, -big}), big);
  EXPECT_EQ(digits_sum(std::vector<double>{tiny, tiny, tiny}), 3 * tiny);
  EXPECT_EQ(digits_sum(std::vector<double>{-tiny}), -tiny);
  EXPECT_EQ(digits_sum(std::vector<double>{2.5, -2.5}), 0.0);
  EXPECT_FALSE(std::signbit(digits_sum(std::vector<double>{2.5, -2.5})));
  EXPECT_EQ(digits_sum(std::vector<double>{-big, -big}), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(digits_sum(std::vector<double>{big, std::ldexp(1.0, 970)}), std::numeric_limits<double>::infinity());  // the midpoint: to even
  EXPECT_EQ(digits_sum(std::vector<double>{big, std::ldexp(1.0, 969)}), big);
  EXPECT_EQ(digits_sum(std::vector<double>(100000, -big)), -std::numeric_limits<double>::infinity());
  std::mt19937_64 random(19);
  auto any_finite = [&] {
    double x;
    do x = std::bit_cast<double>(static_cast<std::uint64_t>(random()));
    while (!std::isfinite(x));
    return x;
  };
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  for (int k = 0; k < 200000; ++k) {  // odd k: b within 60 binades below a, where their sum must round
    const double a = any_finite();
    const double b = k % 2 == 0 ? any_finite() : std::ldexp(unit(random), std::ilogb(a) - static_cast<int>(random() % 60));
    ASSERT_EQ(digits_sum(std::vector<double>{a, b}), a + b) << a << " + " << b;
    ASSERT_EQ(digits_sum(std::vector<double>{a, b, -a}), b) << a << ", " << b;
  }
  for (int e = 0; e < 2047; ++e) {  // every exponent: its first counter, and w − w + w
    const double w = std::bit_cast<double>(static_cast<std::uint64_t>(e) << 52 | 0xFFFFFFFFFFFFFull);
    const int p = e == 0 ? 0 : e - 1;
    EXPECT_EQ(fp::to_digits(w).first, p / fp::kDigitBits) << e;
    EXPECT_EQ(digits_sum(std::vector<double>{w, -w, w}), w) << e;
  }
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<double> w(1 + random() % 2000);
    for (auto& x : w) x = std::ldexp(unit(random), static_cast<int>(random() % 41) - 20);
    fp::Span span;
    for (double x : w) span.add(x);
    ASSERT_TRUE(span.fits(w.size()));
    fp::Int128 sum;
    for (double x : w) fp::add_into(sum, fp::to_fixed(x, span.q_min));
    ASSERT_EQ(digits_sum(w), fp::to_double(sum, span.q_min)) << "trial " << trial;
  }
}

// An exact sum for a float rounds to odd at 53 bits (fixed_point::to_double's to_odd): the float
// rounded from that double is the exact sum rounded once. The nearest double can fall on a float's
// midpoint: 1 + 2^-24 + 2^-80 is nearer 1 + 2^-23 than 1, but its nearest double, 1 + 2^-24, is the
// midpoint, which rounds to even (1). Checked also against the exact value for random 128-bit sums.
TEST(FixedPointSum, AnExactSumRoundsOnceToFloat) {
  namespace fp = gpulab::fixed_point;
  const std::vector<float> w = {1.0f, std::ldexp(1.0f, -24), std::ldexp(1.0f, -80)};
  fp::Int128 sum;
  for (float x : w) fp::add_into(sum, fp::to_fixed(x, -80));
  EXPECT_EQ(static_cast<float>(fp::to_double(sum, -80)), 1.0f);  // the double's midpoint, rounded to even
  EXPECT_EQ(static_cast<float>(fp::to_double(sum, -80, true)), std::nextafter(1.0f, 2.0f));
  EXPECT_EQ(static_cast<float>(fp::to_double(fp::negate(sum), -80, true)), -std::nextafter(1.0f, 2.0f));
  std::uint32_t positive[fp::kSuperLimbs] = {}, negative[fp::kSuperLimbs] = {};
  for (float x : w) fp::add_to_super(positive, x, [](std::uint32_t* p, std::uint32_t v) { return std::exchange(*p, *p + v); });
  EXPECT_EQ(static_cast<float>(fp::super_to_double(positive, negative, 1, true)), std::nextafter(1.0f, 2.0f));
  EXPECT_EQ(static_cast<float>(fp::super_to_double(negative, positive, 1, true)), -std::nextafter(1.0f, 2.0f));
  // Random 120-bit integers: the float from to_odd is the nearest float, ties to even, found from the
  // integer itself (its top 24 bits, then the rest against half of their last place).
  std::mt19937_64 random(17);
  for (int k = 0; k < 100000; ++k) {
    UWide bits = (static_cast<UWide>(random()) << 64 | random()) >> (random() % 100 + 8);
    if (k % 3 == 0) bits |= static_cast<UWide>(1) << 40;  // a long run of zeros below a midpoint bit, now and then
    if (k % 5 == 0) bits &= ~((static_cast<UWide>(1) << (random() % 60)) - 1);
    if (bits == 0) continue;
    const auto high = static_cast<std::uint64_t>(bits >> 64), low = static_cast<std::uint64_t>(bits);
    const int width = high != 0 ? 128 - __builtin_clzll(high) : 64 - __builtin_clzll(low);
    const int cut = width > 24 ? width - 24 : 0;
    UWide kept = bits >> cut;
    const UWide rest = bits - (kept << cut), half = cut > 0 ? static_cast<UWide>(1) << (cut - 1) : 0;
    if (cut > 0 && (rest > half || (rest == half && (kept & 1) != 0))) ++kept;
    const float want = std::ldexp(static_cast<float>(static_cast<std::uint64_t>(kept)), cut - 90);
    const fp::Int128 x{static_cast<std::uint64_t>(bits), static_cast<std::uint64_t>(bits >> 64)};
    ASSERT_EQ(static_cast<float>(fp::to_double(x, -90, true)), want) << k;
  }
}

TEST(HistogramWeightedReference, SumsEachBinsWeightsByHand) {
  const std::vector<std::int32_t> values = {0, 1, 2, 3, -1, 5};  // bins of m = 3: 0 1 2 0 2 2
  const std::vector<double> weights = {0.5, 2.0, -1.0, 1.5, 4.0, 0.25};
  const auto r = gpulab::histogram_weighted_reference<double>(values, weights, 3);
  EXPECT_EQ(r.sums, (std::vector<double>{2.0, 2.0, 3.25}));
  EXPECT_EQ(r.abs, (std::vector<double>{2.0, 2.0, 5.25}));
  EXPECT_EQ(r.counts, (std::vector<std::size_t>{2, 1, 3}));
  // Compensated: 1 + 1e100 − 1e100 in one bin is 1, where a plain double loop gives 0.
  const std::vector<std::int32_t> same = {7, 7, 7};
  const std::vector<double> cancel = {1.0, 1e100, -1e100};
  EXPECT_EQ(gpulab::histogram_weighted_reference<double>(same, cancel, 1).sums[0], 1.0);
  EXPECT_THROW(gpulab::histogram_weighted_reference<double>(values, cancel, 3), gpulab::Error);  // a weight a value
}

TEST(HistogramWeightedCheck, OneRoundingPassesAndAnEmptyBinMustBeZero) {
  gpulab::WeightedHistogram ref{{1.0 / 3.0, 0.0, -2.0}, {1.0, 0.0, 2.0}, {1, 0, 1}};
  const std::vector<float> rounded = {1.0f / 3.0f, 0.0f, -2.0f};
  EXPECT_TRUE(gpulab::check_histogram_weighted<float>(rounded, ref, 10).ok);
  std::vector<float> off = rounded;
  off[0] = std::nextafter(std::nextafter(off[0], 1.0f), 1.0f);  // two float ulps away
  EXPECT_FALSE(gpulab::check_histogram_weighted<float>(off, ref, 10).ok);
  std::vector<float> not_empty = rounded;
  not_empty[1] = 1e-30f;
  const auto r = gpulab::check_histogram_weighted<float>(not_empty, ref, 10);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.detail.find("first bin 1"), std::string::npos) << r.detail;
  EXPECT_FALSE(gpulab::check_histogram_weighted<float>(std::vector<float>{0.0f}, ref, 10).ok);  // wrong length
}

TEST(HistogramWeightedCheck, SumsInFloatAreAllowedAChainAsLongAsTheBinsCount) {
  // 1000 weights of 0.1 in bin 0: float additions one at a time drift by many float ulps, more
  // than one rounding allows and well within γ_1000(float)·100.
  gpulab::WeightedHistogram ref{{100.0, 0.0}, {100.0, 0.0}, {1000, 0}};
  float chain = 0.0f;
  for (int i = 0; i < 1000; ++i) chain += 0.1f;
  const std::vector<float> got = {chain, 0.0f};
  EXPECT_FALSE(gpulab::check_histogram_weighted<float>(got, ref, 1000).ok);  // a sum in double, rounded once
  EXPECT_TRUE(gpulab::check_histogram_weighted_in_w<float>(got, ref).ok);
  EXPECT_FALSE(gpulab::check_histogram_weighted_in_w<float>(std::vector<float>{100.5f, 0.0f}, ref).ok);
  EXPECT_FALSE(gpulab::check_histogram_weighted_in_w<float>(std::vector<float>{chain, 1e-30f}, ref).ok);  // an empty bin
}

}  // namespace
