// The multi-GPU runner's pieces that need no GPU: how items are split over ranks, and the report.
#include "multi/multi_bench.hpp"

#include <gpulab/error.hpp>
#include <gpulab/multi_gpu.hpp>

#include <gtest/gtest.h>

#include <sstream>

using namespace gpulab;

namespace {

TEST(MultiCpu, ShardsCoverEveryItemOnceAndDifferByAtMostOne) {
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{1000}, std::size_t{1} << 30})
    for (int ranks : {1, 2, 3, 8}) {
      std::size_t next = 0, smallest = n, largest = 0;
      for (int r = 0; r < ranks; ++r) {
        const auto [begin, end] = shard_range(n, r, ranks);
        EXPECT_EQ(begin, next) << n << " " << ranks << " " << r;
        next = end;
        smallest = std::min(smallest, end - begin);
        largest = std::max(largest, end - begin);
      }
      EXPECT_EQ(next, n);
      EXPECT_LE(largest - smallest, 1u);
      EXPECT_EQ(shard_range(n, 0, ranks).second - shard_range(n, 0, ranks).first, largest);  // rank 0 the largest
    }
}

TEST(MultiCpu, TheLibrarySplitsRowsAsTheRunnerShards) {
  for (int ranks : {1, 2, 3})
    for (int r = 0; r < ranks; ++r) {
      const multi::Rows rows = multi::rows_of(1001, r, ranks);
      EXPECT_EQ(std::make_pair(rows.begin, rows.end), shard_range(1001, r, ranks));
    }
  EXPECT_THROW(multi::rows_of(10, 2, 2), Error);
}

TEST(MultiCpu, TheReportHasEveryRowAndTheBusBandwidth) {
  MultiCaseResult c;
  c.problem = "reduce";
  c.params = {{"n", "2^20"}};
  MultiRow one, two;
  one.gpus = 1, one.placement = "resident", one.total.median_ms = 2.0, one.check.ok = true;
  two.gpus = 2, two.placement = "resident", two.total.median_ms = 1.1, two.speedup = 2.0 / 1.1, two.check.ok = false;
  two.check.detail = "rank 1: off by 3";
  one.graphed = true, one.graph_local.median_ms = 0.004, one.graph_total.median_ms = 0.0095;
  two.graph_failure = "stream capture: operation not permitted when stream is capturing";
  c.rows = {one, two};
  const auto j = multi_json({c}, {{8, 30.0, 0.0003, 0.0003}});
  EXPECT_EQ(j["bus_bandwidth"][0]["bytes"], 8);
  EXPECT_EQ(j["cases"][0]["rows"].size(), 2u);
  EXPECT_EQ(j["cases"][0]["rows"][1]["detail"], "rank 1: off by 3");
  EXPECT_DOUBLE_EQ(j["cases"][0]["rows"][0]["graph_total_ms"].get<double>(), 0.0095);
  EXPECT_TRUE(j["cases"][0]["rows"][1]["graph_total_ms"].is_null());
  std::ostringstream os;
  print_multi(os, {c}, {});
  EXPECT_NE(os.str().find("FAILED on 2 GPU(s), resident: rank 1: off by 3"), std::string::npos) << os.str();
  EXPECT_NE(os.str().find("0.0055"), std::string::npos) << os.str();  // the graph's collective + combine
  EXPECT_NE(os.str().find("not replayed as a CUDA graph on 2 GPU(s): stream capture"), std::string::npos) << os.str();
  EXPECT_EQ(os.str().find("weak scaling"), std::string::npos) << os.str();
  c.scale = 2;  // weak scaling: the 2-GPU rows ran twice the work
  std::ostringstream weak;
  print_multi(weak, {c}, {});
  EXPECT_NE(weak.str().find("(weak scaling: per GPU; the 2-GPU rows run 2x the work)"), std::string::npos) << weak.str();
  EXPECT_EQ(multi_json({c}, {})["cases"][0]["scale"], 2);
}

}  // namespace
