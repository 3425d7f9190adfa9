#include "core/timing.hpp"

#include <gtest/gtest.h>

using gpulab::summarize;

TEST(Timing, MedianMinMaxOdd) {
  const auto s = summarize({5.0, 1.0, 3.0});
  EXPECT_EQ(s.median_ms, 3.0);
  EXPECT_EQ(s.min_ms, 1.0);
  EXPECT_EQ(s.max_ms, 5.0);
  EXPECT_EQ(s.reps, 3);
}

TEST(Timing, MedianEvenIsMeanOfMiddlePair) {
  const auto s = summarize({4.0, 1.0, 2.0, 100.0});
  EXPECT_EQ(s.median_ms, 3.0);
  EXPECT_EQ(s.max_ms, 100.0);
}

TEST(Timing, EmptyIsZero) {
  const auto s = summarize({});
  EXPECT_EQ(s.reps, 0);
  EXPECT_EQ(s.median_ms, 0.0);
}

TEST(Timing, HostTimerRunsTheFunctionRepsPlusWarmup) {
  int calls = 0;
  const auto s = gpulab::time_host([&] { ++calls; }, 4);
  EXPECT_EQ(calls, 5);
  EXPECT_EQ(s.reps, 4);
  EXPECT_GE(s.min_ms, 0.0);
}

TEST(Timing, NoiseIsTheInterquartileRangeOverTheMedian) {
  EXPECT_EQ(summarize({1.0, 1.0, 1.0, 1.0}).noise, 0.0);
  // Sorted 1, 2, 3, 4, 5: quartiles 2 and 4, median 3.
  EXPECT_DOUBLE_EQ(summarize({5.0, 1.0, 3.0, 2.0, 4.0}).noise, 2.0 / 3.0);
  // One wild repetition barely moves it: the row of the issue (all slow) is caught by the re-run.
  EXPECT_LT(summarize({1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 50.0}).noise, 0.1);
}

TEST(TimeHost, PreparesBeforeEveryRunWarmUpIncluded) {
  int prepared = 0, runs = 0;
  bool each_run_prepared = true;
  gpulab::time_host([&] { each_run_prepared = each_run_prepared && prepared == ++runs; }, 4, true, [&] { ++prepared; });
  EXPECT_EQ(runs, 5);
  EXPECT_EQ(prepared, 5);
  EXPECT_TRUE(each_run_prepared);
}
