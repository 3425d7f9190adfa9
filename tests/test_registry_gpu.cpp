// Every problem of the registry says how many cases its options make (the suite's progress
// estimate counts on it): the count must be what for_each_case visits. A GPU test because making
// a case may allocate pinned host memory, which needs the driver.
#include "core/problem.hpp"

#include <CLI/CLI.hpp>
#include <gtest/gtest.h>

#include <map>

using namespace gpulab;

TEST(Registry, CaseCountIsWhatForEachCaseVisits) {
  // Small options with several values on each axis, so a forgotten axis shows.
  const std::map<std::string, std::vector<std::string>> options = {
      {"reduce", {"--n", "1000,2000,3000", "--type", "float32,int32"}},
      {"scan", {"--n", "1000,2000", "--type", "int32,float32,int8", "--kind", "all"}},
      {"histogram", {"--n", "1000,3000", "--bins", "8,256,4096", "--dist", "uniform,narrow"}},
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
