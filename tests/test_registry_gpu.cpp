// The registry's problems as the harness sees them: each says how many cases its options make (the
// suite's progress estimate counts on it), and each rung runs where its declared needs are met. GPU
// tests because making a case may allocate pinned host memory, which needs the driver.
#include "core/bench.hpp"
#include "core/ceilings.hpp"
#include "core/problem.hpp"
#include "core/report.hpp"
#include "gpu_test_support.hpp"
#include "lib/launch_limits.hpp"

#include <CLI/CLI.hpp>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <set>

using namespace gpulab;

TEST(Registry, CaseCountIsWhatForEachCaseVisits) {
  // Small options with several values on each axis, so a forgotten axis shows.
  const std::map<std::string, std::vector<std::string>> options = {
      {"reduce", {"--n", "1000,2000,3000", "--type", "float32,int32"}},
      {"scan", {"--n", "1000,2000", "--type", "int32,float32,int8", "--kind", "all"}},
      {"segmented_scan", {"--n", "1000,2000", "--type", "int32,float64", "--kind", "all", "--segments", "1,30"}},
      {"histogram", {"--n", "1000,3000", "--bins", "8,256,4096", "--dist", "uniform,narrow"}},
      {"weighted_histogram", {"--n", "1000,3000", "--bins", "8,256", "--type", "all", "--dist", "uniform,degenerate"}},
      {"float_histogram", {"--n", "1000,3000", "--bins", "8,256", "--type", "all", "--form", "all"}},
      {"atax", {"--shapes", "31x33,64x64,1x7,7x1"}},
      {"transpose", {"--shapes", "33x31,64x64", "--layout", "all"}},
      {"add", {"--shapes", "33x31,64x64,5x5", "--layout", "all"}},
      {"triangle", {"--shapes", "33x31,64x64", "--layout", "all", "--part", "all"}},
      {"sgemm", {"--shapes", "33,40x20x10", "--pad", "0,1"}},
      {"conv", {"--sizes", "33x31,64x64", "--border", "all", "--layout", "packed,aligned"}},
  };
  for (const auto& p : make_problems()) {
    SCOPED_TRACE(std::string(p->name()));
    CLI::App app;
    p->add_options(app);
    const auto it = options.find(std::string(p->name()));
    ASSERT_NE(it, options.end()) << "add small options for the new problem " << p->name() << " here";
    std::vector<std::string> args(it->second.rbegin(), it->second.rend());  // CLI11 takes them reversed
    app.parse(args);
    p->validate();
    std::size_t visited = 0;
    p->for_each_case(1, [&](BenchCase&) { ++visited; });
    EXPECT_EQ(p->case_count(), visited);
    EXPECT_GE(visited, 4u);
  }
}

// Each rung's declared needs (its GpuNeeds) agree with its code: at every problem's small edge sizes
// (what `gpulab sanitize` runs), every rung this GPU meets runs and checks, and every other one is
// left to the harness's skip with its reason. A kernel whose code traps below a compute capability
// its rung does not declare (a cluster, wgmma or mma.sync path under a guard) fails here in a build
// whose device code is an older family's PTX, with GPULAB_TREAT_AS naming that family
// (scripts/device_run.sh with build/ptx75-device …).
TEST(Ladders, EveryRungRunsWhereItsDeclaredNeedsAreMet) {
  const int capability = test::test_device().compute_capability();
  std::size_t ran = 0;
  for (const auto& p : make_problems()) {
    SCOPED_TRACE(std::string(p->name()));
    CLI::App app;
    p->add_options(app);
    std::vector<std::string> args = p->sanitize_args();
    std::reverse(args.begin(), args.end());  // CLI11 takes them reversed
    app.parse(args);
    p->validate();
    const std::vector<RungInfo> ladder = p->ladder();
    std::set<std::size_t> skipped;
    p->for_each_case(1, [&](BenchCase& c) {
      c.compute_reference();
      for (std::size_t r = 0; r < ladder.size(); ++r) {
        const auto unmet = unmet_needs(ladder[r], capability);
        if (unmet) skipped.insert(r);
        if (why_not_run(c, ladder, r, test::test_device())) {
          EXPECT_TRUE(!unmet || why_not_run(c, ladder, r, test::test_device()) == unmet);
          continue;
        }
        const CheckResult result = run_checked(c, r);
        EXPECT_TRUE(result.ok) << ladder[r].name << " at " << params_text(c.params()) << ": " << result.detail;
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << ladder[r].name << " at " << params_text(c.params());
        ++ran;
      }
    });
    for (std::size_t r : skipped) std::cout << "  " << p->name() << " " << ladder[r].name << ": " << *unmet_needs(ladder[r], capability) << "\n";
  }
  EXPECT_GT(ran, 100u);
}

// The tensor ceilings of `gpulab ceilings`: measured by the form the family's GEMMs use (wgmma on
// 9.0, mma.sync before it), none where the GPU has no such tensor cores (TF32 before 8.0); INT8 runs
// at 2–4× TF32's rate on every family that has both (4× on the A100 and Hopper by the data sheets):
// a kernel that did less work a launch than it counts would show otherwise.
TEST(Ceilings, TensorCeilingsAreMeasuredByTheFamilysForm) {
  const DeviceFacts device = test::test_device();
  const int capability = current_compute_capability();
  Ceilings k;
  measure_tensor_ceilings(device, k, 3);
  if (capability < 80) {
    EXPECT_EQ(k.tf32.gflops, 0.0);
    EXPECT_TRUE(k.tf32.form.empty());
    EXPECT_GT(k.int8.gflops, 0.0);
    EXPECT_EQ(k.int8.form, "mma.sync m8n8k16 s8");
    return;
  }
  ASSERT_GT(k.tf32.gflops, 0.0);
  ASSERT_GT(k.int8.gflops, 0.0);
  EXPECT_EQ(k.tf32.form, capability == 90 ? "wgmma m64n256k8 tf32" : "mma.sync m16n8k8 tf32");
  EXPECT_EQ(k.int8.form, capability == 90 ? "wgmma m64n256k32 s8" : "mma.sync m16n8k32 s8");
  EXPECT_GT(k.int8.gflops, 1.5 * k.tf32.gflops) << "TF32 " << k.tf32.gflops << ", INT8 " << k.int8.gflops;
  EXPECT_LT(k.int8.gflops, 5.0 * k.tf32.gflops) << "TF32 " << k.tf32.gflops << ", INT8 " << k.int8.gflops;
  std::cout << "  TF32 tensor " << k.tf32.gflops << " GFLOP/s, INT8 tensor " << k.int8.gflops << " GOP/s\n";
}
