// The multi-GPU runner's pieces that need no GPU: how items are split over ranks, and the report.
#include "multi/multi_bench.hpp"

#include <gpulab/error.hpp>
#include <gpulab/multi_gpu.hpp>

#include <gtest/gtest.h>

#include <algorithm>
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

TEST(MultiCpu, MarkdownAndCsvHoldTheSameRows) {
  MultiCaseResult c;
  c.problem = "histogram";
  c.params = {{"n", "2^31"}, {"m", "256"}};
  c.scale = 2;
  MultiRow one, two;
  one.gpus = 1, one.placement = "resident", one.total.median_ms = 2.0, one.local.median_ms = 1.99, one.check.ok = true;
  two.gpus = 2, two.placement = "resident", two.total.median_ms = 2.1, two.speedup = 2 * 2.0 / 2.1, two.check.ok = false;
  two.check.detail = "rank 1: counts differ, a|b";
  two.graph_failure = "capture, refused";
  c.rows = {one, two};
  const std::string md = multi_markdown({c}, {{8, 30.0, 0.0003, 0.0003}}, "2 GPU(s), rank 0's: H200");
  EXPECT_NE(md.find("## histogram  n=2^31  m=256  (weak scaling: per GPU; the 2-GPU rows run 2x the work)"), std::string::npos) << md;
  EXPECT_NE(md.find("| 8 B |"), std::string::npos) << md;
  EXPECT_NE(md.find("- FAILED on 2 GPU(s), resident: rank 1: counts differ, a|b"), std::string::npos) << md;  // a list, not a table
  EXPECT_NE(md.find("2 GPU(s), rank 0's: H200"), std::string::npos) << md;
  const std::string csv = multi_csv({c});
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3) << csv;  // the header and two rows
  EXPECT_NE(csv.find("histogram,n=2^31 m=256,2,2,resident,0,2.1,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",0,0,0,1\n"), std::string::npos) << csv;  // not ok, error 0, tolerance 0, same bits
}

}  // namespace
