// The scan's CPU side: the reference on hand-made inputs, the OpenMP baseline against it, and the
// element-by-element check, which must reject what is wrong and accept what is within the bound.
#include "core/random.hpp"
#include "scan/scan_cpu.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

using namespace gpulab;

namespace {

TEST(ScanReference, InclusiveAndExclusiveByHand) {
  const std::vector<std::int32_t> x{3, 1, 4, 1, 5};
  std::vector<std::int32_t> out(5);
  scan_reference<std::int32_t>(x, ScanKind::inclusive, out);
  EXPECT_EQ(out, (std::vector<std::int32_t>{3, 4, 8, 9, 14}));
  scan_reference<std::int32_t>(x, ScanKind::exclusive, out);
  EXPECT_EQ(out, (std::vector<std::int32_t>{0, 3, 4, 8, 9}));
}

TEST(ScanReference, Int32WrapsModulo2To32) {
  const std::vector<std::int32_t> x{std::numeric_limits<std::int32_t>::max(), 1, 1};
  std::vector<std::int32_t> out(3);
  scan_reference<std::int32_t>(x, ScanKind::inclusive, out);
  EXPECT_EQ(out[1], std::numeric_limits<std::int32_t>::min());
  EXPECT_EQ(out[2], std::numeric_limits<std::int32_t>::min() + 1);
}

TEST(ScanReference, NarrowIntegersAreSignExtendedIntoInt32) {
  const std::vector<std::int8_t> x{-128, -1, 127, 100};
  std::vector<std::int32_t> out(4);
  scan_reference<std::int8_t>(x, ScanKind::inclusive, out);
  EXPECT_EQ(out, (std::vector<std::int32_t>{-128, -129, -2, 98}));  // no wrap at 8 bits
  const std::vector<std::int16_t> y(3, 30000);
  scan_reference<std::int16_t>(y, ScanKind::inclusive, out);
  EXPECT_EQ(out[2], 90000);
}

TEST(ScanReference, FloatPrefixIsCompensated) {
  // 1 + 2^-60 − 1: a plain double prefix loses the 2^-60, the compensated one keeps it.
  const std::vector<double> x{1.0, 0x1p-60, -1.0};
  std::vector<double> out(3);
  scan_reference<double>(x, ScanKind::inclusive, out);
  EXPECT_EQ(out[2], 0x1p-60);
}

template <class In>
void baseline_matches_reference(std::size_t n) {
  std::vector<In> x(n);
  fill_random<In>(x, 7);
  for (ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
    std::vector<scan_ref_t<scan_out_t<In>>> ref(n);
    std::vector<scan_out_t<In>> got(n);
    scan_reference<In>(x, kind, ref);
    scan_openmp<In>(x, kind, got);
    const CheckResult r = check_scan<In>(got, x, ref, kind, scan_openmp_depth(n, 64));
    EXPECT_TRUE(r.ok) << r.detail;
  }
}

TEST(ScanOpenMP, MatchesReference) {
  for (std::size_t n : {0u, 1u, 7u, 1000u, 100003u}) {
    baseline_matches_reference<std::int8_t>(n);
    baseline_matches_reference<std::int16_t>(n);
    baseline_matches_reference<std::int32_t>(n);
    baseline_matches_reference<float>(n);
    baseline_matches_reference<double>(n);
  }
}

TEST(ScanCheck, RejectsOneWrongIntegerAndNamesIt) {
  const std::vector<std::int32_t> x{1, 2, 3, 4};
  std::vector<std::int32_t> ref(4);
  scan_reference<std::int32_t>(x, ScanKind::inclusive, ref);
  std::vector<std::int32_t> got = ref;
  got[2] += 1;
  const CheckResult r = check_scan<std::int32_t>(got, x, ref, ScanKind::inclusive, {});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.detail.find("first at 2"), std::string::npos) << r.detail;
  EXPECT_NE(r.detail.find("1 of 4"), std::string::npos) << r.detail;
}

TEST(ScanCheck, FloatToleranceFollowsTheDepthOfEachElement) {
  const std::size_t n = 1000;
  std::vector<float> x(n, 1.0f);
  std::vector<double> ref(n);
  scan_reference<float>(x, ScanKind::inclusive, ref);
  std::vector<float> got(ref.begin(), ref.end());
  // Off by 0.01 at element 999, where Σ|x| = 1000: γ_k·1000 ≈ k·6e-5 allows it from k ≈ 170 on.
  got[999] += 0.01f;
  EXPECT_FALSE((check_scan<float>(got, x, ref, ScanKind::inclusive, {10}).ok));
  EXPECT_TRUE((check_scan<float>(got, x, ref, ScanKind::inclusive, {200}).ok));
  // The same through the per-tile growth: k(999) = 10 + 2·⌊999/10⌋ = 208.
  EXPECT_TRUE((check_scan<float>(got, x, ref, ScanKind::inclusive, {10, 2, 10}).ok));
  EXPECT_FALSE((check_scan<float>(got, x, ref, ScanKind::inclusive, {10, 2, 1000}).ok));
}

TEST(ScanCheck, NaNNeverPasses) {
  const std::vector<double> x{1.0, 2.0};
  std::vector<double> ref(2);
  scan_reference<double>(x, ScanKind::exclusive, ref);
  std::vector<double> got{0.0, std::numeric_limits<double>::quiet_NaN()};
  EXPECT_FALSE((check_scan<double>(got, x, ref, ScanKind::exclusive, {1'000'000}).ok));
}

TEST(ScanCheck, ExclusiveToleranceExcludesTheElementItself) {
  // Exclusive out[0] must be exactly 0: its Σ|x| before it is 0, so no tolerance at all.
  const std::vector<float> x{1000.0f, 1.0f};
  std::vector<double> ref(2);
  scan_reference<float>(x, ScanKind::exclusive, ref);
  const std::vector<float> got{0.001f, 1000.0f};
  EXPECT_FALSE((check_scan<float>(got, x, ref, ScanKind::exclusive, {100}).ok));
}

TEST(SegmentedScanReference, EachSegmentOnItsOwnByHand) {
  const std::vector<std::int32_t> x{3, 1, 4, 1, 5, 9, 2};
  const std::vector<std::uint8_t> heads{0, 0, 7, 0, 1, 1, 0};  // segments [3 1] [4 1] [5] [9 2]
  std::vector<std::int32_t> out(7);
  scan_reference<std::int32_t>(x, ScanKind::inclusive, out, heads);
  EXPECT_EQ(out, (std::vector<std::int32_t>{3, 4, 4, 5, 5, 9, 11}));
  scan_reference<std::int32_t>(x, ScanKind::exclusive, out, heads);
  EXPECT_EQ(out, (std::vector<std::int32_t>{0, 3, 0, 4, 0, 0, 9}));
}

TEST(SegmentedScanCheck, ToleranceRestartsAtEachHead) {
  // A segment of large values, then one of small: an error that the sum of every |x| before it
  // would allow must fail against the small segment's own sum, and the same error on a large
  // element passes. The chunked sums must agree with a serial pass, whatever the chunking.
  const std::size_t n = 100'000;
  std::vector<float> x(n, 1.0f);
  std::vector<std::uint8_t> heads(n, 0);
  for (std::size_t i = 0; i < n / 2; ++i) x[i] = 1.0e6f;
  heads[n / 2] = 1;
  std::vector<double> ref(n);
  scan_reference<float>(x, ScanKind::inclusive, ref, heads);
  EXPECT_EQ(ref[n / 2], 1.0);
  std::vector<float> got(ref.begin(), ref.end());
  EXPECT_TRUE((check_scan<float>(got, x, ref, ScanKind::inclusive, {100}, heads).ok));
  got[n - 1] += 1.0f;  // 1 in 50'000: within γ_100·5e10 unsegmented, far outside γ_100·5e4
  EXPECT_TRUE((check_scan<float>(got, x, ref, ScanKind::inclusive, {100}).ok));  // (against the unsegmented bound)
  EXPECT_FALSE((check_scan<float>(got, x, ref, ScanKind::inclusive, {100}, heads).ok));
  got[n - 1] -= 1.0f;
  got[n / 2 - 1] += 1.0f;  // on 5e10: within its bound
  EXPECT_TRUE((check_scan<float>(got, x, ref, ScanKind::inclusive, {100}, heads).ok));
}

TEST(SegmentedScanCheck, ExclusiveIsExactlyZeroAtAHead) {
  const std::vector<double> x{5.0, 6.0, 7.0};
  const std::vector<std::uint8_t> heads{1, 0, 1};
  std::vector<double> ref(3);
  scan_reference<double>(x, ScanKind::exclusive, ref, heads);
  EXPECT_EQ(ref, (std::vector<double>{0.0, 5.0, 0.0}));
  const std::vector<double> got{0.0, 5.0, 1e-12};
  EXPECT_FALSE((check_scan<double>(got, x, ref, ScanKind::exclusive, {1000}, heads).ok));
}

}  // namespace
