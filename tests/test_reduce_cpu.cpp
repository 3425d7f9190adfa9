#include "core/random.hpp"
#include "core/ladder.hpp"
#include "reduce/reduce_cpu.hpp"
#include "reduce/reduce_ladder.hpp"

#include <gpulab/error.hpp>

#include <gtest/gtest.h>

#include <omp.h>

#include <cstdint>
#include <limits>
#include <vector>

using namespace gpulab;

TEST(ReduceReference, HandComputed) {
  const std::vector<std::int32_t> ints{1, 2, 3, -10};
  EXPECT_EQ(reduce_reference<std::int32_t>(ints).value, -4);
  const std::vector<float> floats{0.5f, 0.25f, 0.125f};
  const auto r = reduce_reference<float>(floats);
  EXPECT_EQ(r.value, 0.875f);
  EXPECT_EQ(r.sum_abs, 0.875);
  EXPECT_EQ(reduce_reference<double>(std::vector<double>{}).value, 0.0);
}

TEST(ReduceReference, Int32WrapsModulo2To32) {
  const std::int32_t max = std::numeric_limits<std::int32_t>::max();
  const std::int32_t min = std::numeric_limits<std::int32_t>::min();
  EXPECT_EQ(reduce_reference<std::int32_t>(std::vector<std::int32_t>{max, 1}).value, min);
  EXPECT_EQ(reduce_reference<std::int32_t>(std::vector<std::int32_t>{min, -1}).value, max);
  EXPECT_EQ(reduce_reference<std::int32_t>(std::vector<std::int32_t>{max, max, 2}).value, 0);
}

TEST(ReduceReference, CompensationKeepsWhatNaiveDoubleLoses) {
  // 1 + 1e-16 + … : a plain double loop returns exactly 1; the compensated sum keeps the tail.
  std::vector<double> x(1001, 1e-16);
  x[0] = 1.0;
  const auto r = reduce_reference<double>(x);
  EXPECT_NEAR(r.exact, 1.0 + 1000 * 1e-16, 1e-18);
  const std::vector<float> cancel{1e8f, 1.0f, -1e8f};
  EXPECT_EQ(reduce_reference<float>(cancel).exact, 1.0);
}

TEST(ReduceReference, AgreesWithBruteForce) {
  for (std::size_t n : {0u, 1u, 31u, 33u, 1023u, 4097u, 100003u}) {
    std::vector<std::int32_t> ints(n);
    fill_random<std::int32_t>(ints, n);
    std::int64_t wide = 0;
    for (auto v : ints) wide += v;
    EXPECT_EQ(reduce_reference<std::int32_t>(ints).value,
              static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(wide))));

    std::vector<double> d(n);
    fill_random<double>(d, n);
    long double brute = 0;
    for (double v : d) brute += v;
    EXPECT_NEAR(reduce_reference<double>(d).exact, static_cast<double>(brute), 1e-12) << n;
  }
}

TEST(ReduceOpenMP, MatchesTheReferenceUnderItsDepth) {
  const std::size_t n = 1'000'003;
  std::vector<float> x(n);
  fill_random<float>(x, 3);
  const auto ref = reduce_reference<float>(x);
  const auto threads = static_cast<std::size_t>(omp_get_max_threads());
  EXPECT_TRUE(check_reduce(reduce_openmp<float>(x), ref, reduce_openmp_depth(n, threads)).ok);
  std::vector<std::int32_t> ints(n);
  fill_random<std::int32_t>(ints, 3);
  EXPECT_EQ(reduce_openmp<std::int32_t>(ints), reduce_reference<std::int32_t>(ints).value);
}

TEST(ReduceCheck, FloatWrongSumFails) {
  std::vector<float> x(1000);
  fill_random<float>(x, 5);
  const auto ref = reduce_reference<float>(x);
  EXPECT_TRUE(check_reduce(ref.value, ref, 11).ok);
  EXPECT_FALSE(check_reduce(ref.value + 1.0f, ref, 11).ok);  // one element of ~1 missing
  EXPECT_FALSE(check_reduce(std::numeric_limits<float>::quiet_NaN(), ref, 11).ok);
}

TEST(ReduceLadder, TableHasTheLadderTheLibraryThenTheVendor) {
  const auto ladder = ladder_info(reduce_rungs<float>());
  ASSERT_EQ(ladder.size(), 9u);
  for (std::size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(rung_id(ladder, i), std::to_string(i + 1));
    EXPECT_NE(ladder[i].role, Role::vendor);
    EXPECT_FALSE(ladder[i].adds.empty());
  }
  EXPECT_EQ(ladder[7].role, Role::library);
  EXPECT_EQ(ladder[8].role, Role::vendor);
  EXPECT_EQ(rung_id(ladder, 8), "vendor");
  EXPECT_EQ(block_rungs(ladder), "1-7");
}

TEST(ReduceLadder, LevelRungsFollowTheSeedShape) {
  // Seed 003: 2^24 floats, 64 threads: 2^24 → 2^18 → 2^12 → 2^6 → 1, four levels of a
  // 6-deep tree (+1 for the final rounding).
  const auto v = reduce_rungs<float>();
  const std::size_t n = std::size_t{1} << 24;
  EXPECT_EQ(v[0].depth(n, 64), 4u * 6 + 1);
  // Rungs 4–6 add on load: 128 elements a block, 2^24 → 2^17 → 2^10 → 2^3 → 1, 7 deep each.
  EXPECT_EQ(v[3].depth(n, 64), 4u * 7 + 1);
  // Workspace: the first level's partials (256-byte aligned), then the second's.
  EXPECT_EQ(v[0].workspace_bytes(n, 64), (n / 64) * 4 + (n / 64 / 64) * 4);
  EXPECT_EQ(v[0].depth(1, 64), 7u);  // even one element takes one level
}

TEST(Ladder, RungsAnswerToNumbersNamesAndAliases) {
  const auto ladder = ladder_info(reduce_rungs<float>());
  EXPECT_EQ(select_rungs(ladder, {}, "reduce").size(), ladder.size());
  EXPECT_EQ(select_rungs(ladder, {"library", "vendor"}, "reduce"), (std::vector<std::size_t>{7, 8}));
  EXPECT_EQ(select_rungs(ladder, {"vendor", "1", "interleaved_divergent"}, "reduce"), (std::vector<std::size_t>{0, 8}));
  EXPECT_EQ(find_rung(ladder, "complete_unroll", "reduce"), 5u);
  EXPECT_EQ(find_rung(ladder, "8", "reduce"), find_rung(ladder, "library", "reduce"));
  EXPECT_THROW(select_rungs(ladder, {"1", "no_such_rung"}, "reduce"), Error);
  EXPECT_THROW(find_rung(ladder, "9", "reduce"), Error);  // the vendor is "vendor", not a number
  EXPECT_THROW(find_rung(ladder, "0", "reduce"), Error);
}

TEST(Ladder, ARungThisGpuCannotRunSaysWhatItNeeds) {
  RungInfo everywhere{"plain", "runs on every supported GPU"};
  EXPECT_EQ(needs_text(everywhere.needs), "");
  EXPECT_FALSE(unmet_needs(everywhere, 75).has_value());
  RungInfo tf32{"tc", "TF32", Role::rung, false, true, {}, GpuNeeds{80, false, "TF32 mma.sync"}};
  EXPECT_EQ(needs_text(tf32.needs), "sm_80+: TF32 mma.sync");
  EXPECT_EQ(unmet_needs(tf32, 75).value_or(""), "needs sm_80+: TF32 mma.sync; this GPU is sm_75");
  EXPECT_FALSE(unmet_needs(tf32, 86).has_value());
  EXPECT_FALSE(unmet_needs(tf32, 120).has_value());
  RungInfo wgmma{"wgmma", "Hopper's", Role::rung, false, true, {}, GpuNeeds{90, true, "wgmma, TMA"}};
  EXPECT_EQ(unmet_needs(wgmma, 89).value_or(""), "needs sm_90a: wgmma, TMA; this GPU is sm_89");
  EXPECT_FALSE(unmet_needs(wgmma, 90).has_value());
  EXPECT_TRUE(unmet_needs(wgmma, 100).has_value());  // sm_90a code does not run on Blackwell
}
