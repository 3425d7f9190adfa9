// The GPU tests' main. Without a CUDA device no test runs: the binary says how many were skipped, in
// words CTest's SKIP_REGULAR_EXPRESSION recognises, in one process (CTest once started a process per
// GPU test only for it to skip, minutes of CI).
#include <cuda_runtime.h>

#include <gtest/gtest.h>

#include <cstdio>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  int devices = 0;
  const bool gpu = cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0;
  cudaGetLastError();
  if (gpu) return RUN_ALL_TESTS();
  // Run nothing, but let Google Test register the parameterised tests so that they can be counted.
  GTEST_FLAG_SET(filter, "-*");
  const int code = RUN_ALL_TESTS();
  const auto* unit = ::testing::UnitTest::GetInstance();
  std::printf("GPU tests skipped: no CUDA device (%d tests skipped)\n",
              unit->total_test_count() - unit->disabled_test_count());
  return code;
}
