#include "cli_test_support.hpp"

#include "lib/treat_as.hpp"

#include <cuda_runtime.h>

#include <gtest/gtest.h>

#include <sstream>

using gpulab::test::cli;
using gpulab::test::CliRun;

namespace {

bool has_gpu() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

}  // namespace

TEST(Cli, HelpSucceedsAndDocumentsSemanticsAndExitCodes) {
  const CliRun r = cli({"--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("Exit codes"), std::string::npos);
  EXPECT_NE(r.out.find("wrap modulo 2^32"), std::string::npos);
  EXPECT_EQ(cli({"bench", "reduce", "--help"}).code, 0);
}

TEST(Cli, UsageErrorsExitWith2) {
  EXPECT_EQ(cli({}).code, 2);
  EXPECT_EQ(cli({"frobnicate"}).code, 2);
  EXPECT_EQ(cli({"bench"}).code, 2);
  EXPECT_EQ(cli({"bench", "reduce", "--n", "abc"}).code, 2);
  EXPECT_EQ(cli({"bench", "reduce", "--n", "2^64"}).code, 2);
  EXPECT_EQ(cli({"bench", "reduce", "--type", "int8"}).code, 2);
  EXPECT_EQ(cli({"bench", "reduce", "--type", "float32,int8"}).code, 2);
  EXPECT_EQ(cli({"bench", "reduce", "--type", ""}).code, 2);
  EXPECT_EQ(cli({"bench", "reduce", "--block", "48"}).code, 2);
  EXPECT_EQ(cli({"bench", "reduce", "--reps", "0"}).code, 2);
  EXPECT_EQ(cli({"bench", "reduce", "--bogus"}).code, 2);
  const CliRun r = cli({"bench", "reduce", "--variants", "1,nope"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("no rung 'nope'"), std::string::npos);
  for (const char* problem : {"reduce", "histogram", "atax"}) {
    EXPECT_EQ(cli({"bench", problem, "--variants", "library,nope"}).code, 2) << problem;
    EXPECT_EQ(cli({"run", problem, "--variant", "nope"}).code, 2) << problem;
  }
  EXPECT_EQ(cli({"bench", "atax", "--shapes", "12x"}).code, 2);
  EXPECT_EQ(cli({"bench", "reduce", "--loops", "-1"}).code, 2);
  EXPECT_EQ(cli({"showcase"}).code, 2);
  EXPECT_EQ(cli({"showcase", "--out", "/tmp/x", "nope"}).code, 2);
  EXPECT_EQ(cli({"atax", "gen", "0", "5"}).code, 2);
}

TEST(Cli, NamesAndAliasesPassValidationAndReachTheDevice) {
  // Accepted on the command line: without a GPU the next stop is "no CUDA device" (3), not usage (2).
  const int want = has_gpu() ? 0 : 3;
  if (has_gpu()) GTEST_SKIP() << "on a GPU machine this would run the bench";
  EXPECT_EQ(cli({"bench", "reduce", "--variants", "library,vendor", "--n", "1000"}).code, want);
  EXPECT_EQ(cli({"bench", "histogram", "--variants", "1,packed_registers,library"}).code, want);
  EXPECT_EQ(cli({"run", "atax", "--variant", "seed_tiled", "--shapes", "31x33"}).code, want);
}

TEST(Cli, HistogramUsageErrorsExitWith2BeforeAnyGpuWork) {
  EXPECT_EQ(cli({"bench", "histogram", "--help"}).code, 0);
  EXPECT_EQ(cli({"bench", "histogram", "--bins", "0"}).code, 2);
  EXPECT_EQ(cli({"bench", "histogram", "--bins", "2^32"}).code, 2);
  EXPECT_EQ(cli({"bench", "histogram", "--n", "2^32"}).code, 2);
  EXPECT_EQ(cli({"bench", "histogram", "--dist", "gaussian"}).code, 2);
  EXPECT_EQ(cli({"bench", "histogram", "--dist", ""}).code, 2);
  EXPECT_EQ(cli({"bench", "histogram", "--block", "100"}).code, 2);
  EXPECT_EQ(cli({"bench", "histogram", "--loops", "-1"}).code, 2);
  EXPECT_EQ(cli({"bench", "histogram", "--variants", "nope"}).code, 2);
  const CliRun r = cli({"bench", "histogram", "--input", "/nonexistent/values.bin"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("does not exist"), std::string::npos);
}

TEST(Cli, ListNeedsNoGpu) {
  const CliRun r = cli({"list"});
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("interleaved_divergent"), std::string::npos);
  EXPECT_NE(r.out.find("single_pass_deterministic"), std::string::npos);
  EXPECT_NE(r.out.find("cub::DeviceReduce::Sum"), std::string::npos);
  EXPECT_NE(r.out.find("halfword_shared"), std::string::npos);
  EXPECT_NE(r.out.find("cub::DeviceHistogram::HistogramEven"), std::string::npos);
  EXPECT_NE(r.out.find("[library]"), std::string::npos);
  EXPECT_NE(r.out.find("fused_cooperative"), std::string::npos);
}

TEST(Cli, InfoWithoutAGpuSaysSoAndExitsWith3) {
  const CliRun r = cli({"info"});
  if (has_gpu()) {
    EXPECT_EQ(r.code, 0);
    EXPECT_NE(r.out.find("multiprocessors"), std::string::npos);
  } else {
    EXPECT_EQ(r.code, 3);
    EXPECT_NE(r.err.find("no CUDA device"), std::string::npos);
  }
}

// A GPU treated as an older family answers that family's limits; its own where the family says
// nothing, and the cluster launch of Hopper only where the family has it.
TEST(TreatAs, AFamilyAnswersItsReferenceGpusLimits) {
  const gpulab::GpuFamily* t4 = gpulab::gpu_family("sm_75");
  ASSERT_NE(t4, nullptr);
  EXPECT_EQ(t4->reference, "T4");
  EXPECT_EQ(gpulab::family_attribute(t4, cudaDevAttrComputeCapabilityMajor, 9), 7);
  EXPECT_EQ(gpulab::family_attribute(t4, cudaDevAttrComputeCapabilityMinor, 0), 5);
  EXPECT_EQ(gpulab::family_attribute(t4, cudaDevAttrMaxSharedMemoryPerBlockOptin, 232448), 65536);
  EXPECT_EQ(gpulab::family_attribute(t4, cudaDevAttrL2CacheSize, 52428800), 4 << 20);
  EXPECT_EQ(gpulab::family_attribute(t4, cudaDevAttrClusterLaunch, 1), 0);
  EXPECT_EQ(gpulab::family_attribute(t4, cudaDevAttrMultiProcessorCount, 132), 132);  // this GPU's SMs
  EXPECT_EQ(gpulab::family_attribute(nullptr, cudaDevAttrComputeCapabilityMajor, 9), 9);  // not treated
  const gpulab::GpuFamily* a100 = gpulab::gpu_family("sm_80");
  ASSERT_NE(a100, nullptr);
  EXPECT_EQ(gpulab::family_attribute(a100, cudaDevAttrMaxSharedMemoryPerBlockOptin, 232448), 163 << 10);
  EXPECT_EQ(gpulab::gpu_family("sm_90"), nullptr);  // Hopper is what the lent machines are
  EXPECT_EQ(gpulab::gpu_family_names(), "sm_75, sm_80, sm_86, sm_89");
}
