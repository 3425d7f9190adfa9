// The multi-GPU runner's pieces that need no GPU: how items are split over ranks, and the report
// (its JSON both ways, its renderings, its page and its comparison).
#include "core/compare.hpp"
#include "core/page.hpp"
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

MultiGpuRun sample_run() {
  MultiCaseResult c;
  c.problem = "reduce";
  c.params = {{"n", "2^20"}};
  MultiRow one, two;
  one.gpus = 1, one.placement = "resident", one.total.median_ms = 2.0, one.check.ok = true, one.speedup = 1.0;
  two.gpus = 2, two.placement = "resident", two.total.median_ms = 1.1, two.speedup = 2.0 / 1.1, two.check.ok = false;
  two.check.detail = "rank 1: off by 3";
  one.graphed = true, one.graph_local.median_ms = 0.004, one.graph_total.median_ms = 0.0095;
  two.graph_failure = "stream capture: operation not permitted when stream is capturing";
  c.rows = {one, two};
  MultiGpuRun run;
  run.gpus = 2;
  run.bus = {{8, 30.0, 0.0003, 0.0003}};
  run.cases = {c};
  return run;
}

Report report_of(MultiGpuRun run) {
  Report r;
  r.gpulab_version = "0.1.0";
  r.commit = "abc";
  r.created_utc = "2026-11-24T00:00:00Z";
  r.command = "gpulab bench reduce --gpus 2";
  r.multi_gpu = std::move(run);
  return r;
}

TEST(MultiCpu, TheReportKeepsEveryRowAndTheBusBandwidth) {
  const Report r = report_of(sample_run());
  const auto j = to_json(r);
  EXPECT_EQ(j["multi_gpu"]["bus_bandwidth"][0]["bytes"], 8);
  EXPECT_EQ(j["multi_gpu"]["cases"][0]["rows"].size(), 2u);
  EXPECT_EQ(j["multi_gpu"]["cases"][0]["rows"][1]["check"]["detail"], "rank 1: off by 3");
  EXPECT_DOUBLE_EQ(j["multi_gpu"]["cases"][0]["rows"][0]["graph_total"]["median_ms"].get<double>(), 0.0095);
  EXPECT_TRUE(j["multi_gpu"]["cases"][0]["rows"][1]["graph_total"].is_null());
  // What `report` and `compare` read back is what was written.
  const Report back = report_from_json(nlohmann::ordered_json::parse(j.dump()));
  EXPECT_EQ(to_json(back).dump(), j.dump());
  EXPECT_FALSE(all_checks_passed(back));  // a wrong rank fails the run
  // A report of one-GPU ladders has none.
  Report ladders = r;
  ladders.multi_gpu.reset();
  EXPECT_TRUE(report_from_json(to_json(ladders)).multi_gpu == std::nullopt);
}

TEST(MultiCpu, RowsFromHostMemoryAreJudgedByWhatTheHostGaveAsManyGpus) {
  MultiGpuRun run = sample_run();
  run.host_links = {{1, 64 << 20, 50.0, 52.0}, {2, 64 << 20, 80.0, 90.0}};
  MultiRow one = run.cases[0].rows[0], two = run.cases[0].rows[1];
  one.placement = two.placement = "host";
  one.host_bytes = two.host_bytes = 44e6;  // 44 MB in 2.0 ms (22 GB/s) and in 1.1 ms (40 GB/s)
  run.cases[0].rows.insert(run.cases[0].rows.end(), {one, two});
  const Table t = multi_case_table(run.cases[0], run.host_links);
  const auto column = static_cast<std::size_t>(std::find(t.header.begin(), t.header.end(), "of host link") - t.header.begin());
  ASSERT_LT(column, t.header.size());
  EXPECT_EQ(t.rows[0][column], "—");  // resident: nothing copied in
  EXPECT_EQ(t.rows[2][column], fmt_pct(22.0 / 50.0));
  EXPECT_EQ(t.rows[3][column], fmt_pct(40.0 / 80.0));  // against what two GPUs got together, not one
  run.host_links.pop_back();  // no link measured at two: no share claimed
  EXPECT_EQ(multi_case_table(run.cases[0], run.host_links).rows[3][column], "—");
  // The links and the rows' bytes go through the JSON; a report from before them reads as none.
  auto j = multi_gpu_json(run);
  EXPECT_EQ(multi_gpu_json(multi_gpu_from(j)).dump(), j.dump());
  j.erase("host_links");
  for (auto& row : j["cases"][0]["rows"]) row.erase("host_bytes");
  const MultiGpuRun old = multi_gpu_from(j);
  EXPECT_TRUE(old.host_links.empty());
  EXPECT_EQ(old.cases[0].rows[3].host_bytes, 0.0);
  std::ostringstream os;
  print_multi(os, run);
  EXPECT_NE(os.str().find("what the host gives the GPUs copying at once"), std::string::npos) << os.str();
}

TEST(MultiCpu, DifferentBitsFailTheRunToo) {
  MultiGpuRun run = sample_run();
  run.cases[0].rows[1].check.ok = true;
  EXPECT_TRUE(multi_gpu_passed(run));
  run.cases[0].rows[1].identical = false;
  EXPECT_FALSE(multi_gpu_passed(run));
  EXPECT_FALSE(all_checks_passed(report_of(run)));
  std::ostringstream os;
  print_multi(os, run);
  EXPECT_NE(os.str().find("FAILED on 2 GPU(s), resident: the ranks, a repeated run or the replayed graph gave different bits"),
            std::string::npos)
      << os.str();
}

TEST(MultiCpu, TheTerminalSaysHowTheRanksRan) {
  MultiGpuRun run = sample_run();
  std::ostringstream os;
  print_terminal(os, report_of(run));
  EXPECT_NE(os.str().find("several GPUs through NCCL: 2 GPUs driven by one process"), std::string::npos) << os.str();
  EXPECT_NE(os.str().find("FAILED on 2 GPU(s), resident: rank 1: off by 3"), std::string::npos) << os.str();
  EXPECT_NE(os.str().find("0.0055"), std::string::npos) << os.str();  // the graph's collective + combine
  EXPECT_NE(os.str().find("not replayed as a CUDA graph on 2 GPU(s): stream capture"), std::string::npos) << os.str();
  EXPECT_EQ(os.str().find("weak scaling"), std::string::npos) << os.str();
  run.processes = 2;
  run.cases[0].scale = 2;  // weak scaling: the 2-GPU rows ran twice the work
  std::ostringstream weak;
  print_multi(weak, run);
  EXPECT_NE(weak.str().find("2 GPUs, one MPI process each"), std::string::npos) << weak.str();
  EXPECT_NE(weak.str().find("(weak scaling: per GPU; the rows of N GPUs run N times the work)"), std::string::npos) << weak.str();
  EXPECT_EQ(multi_gpu_json(run)["cases"][0]["scale"], 2);
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
  MultiGpuRun run;
  run.gpus = 2;
  run.bus = {{8, 30.0, 0.0003, 0.0003}};
  run.cases = {c};
  const std::string md = to_markdown(report_of(run));
  EXPECT_NE(md.find("## Several GPUs through NCCL: 2 GPUs driven by one process"), std::string::npos) << md;
  EXPECT_NE(md.find("### histogram  n=2^31  m=256  (weak scaling: per GPU; the rows of N GPUs run N times the work)"), std::string::npos)
      << md;
  EXPECT_NE(md.find("| 8 B |"), std::string::npos) << md;
  EXPECT_NE(md.find("- FAILED on 2 GPU(s), resident: rank 1: counts differ, a|b"), std::string::npos) << md;  // a list, not a table
  const std::string csv = to_csv(report_of(run));
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3) << csv;  // the header and two rows
  EXPECT_NE(csv.find("histogram,n=2^31 m=256,2,2,resident,0,2.1,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",0,0,0,1\n"), std::string::npos) << csv;  // not ok, error 0, tolerance 0, same bits
}

/// 30 repetitions around `ms` (a fixed, reproducible spread of 1%).
TimingStats repetitions(double ms) {
  std::vector<double> samples;
  for (int i = 0; i < 30; ++i) samples.push_back(ms * (1.0 + 0.01 * (((i * 7) % 30) / 29.0 - 0.5)));
  return summarize(samples);
}

TEST(MultiCpu, CompareJudgesEachGpuCountAndPlacement) {
  MultiGpuRun a = sample_run();
  for (auto& row : a.cases[0].rows) row.check.ok = true, row.total = repetitions(row.total.median_ms);
  MultiGpuRun b = a;
  b.cases[0].rows[1].total = repetitions(1.5);  // two GPUs got slower, one GPU did not move
  const Comparison c = compare_reports(report_of(a), report_of(b), CompareOptions{});
  ASSERT_EQ(c.cases.size(), 1u);
  EXPECT_EQ(c.cases[0].problem, "reduce over GPUs");
  ASSERT_EQ(c.cases[0].rows.size(), 2u);
  EXPECT_EQ(c.cases[0].rows[0].name, "1 GPU, resident");
  EXPECT_EQ(c.cases[0].rows[0].verdict, Verdict::same);
  EXPECT_EQ(c.cases[0].rows[1].name, "2 GPUs, resident");
  EXPECT_EQ(c.cases[0].rows[1].verdict, Verdict::slower);
  EXPECT_TRUE(c.regressed());
  b.cases[0].rows[1].total = a.cases[0].rows[1].total;
  b.cases[0].rows[1].identical = false;  // different bits: the row is broken
  EXPECT_EQ(compare_reports(report_of(a), report_of(b), CompareOptions{}).cases[0].rows[1].verdict, Verdict::broken);
  b.cases[0].scale = 2;  // weak scaling is another case than strong
  const Comparison other = compare_reports(report_of(a), report_of(b), CompareOptions{});
  EXPECT_TRUE(other.cases.empty());
  EXPECT_EQ(other.only_in_a.size(), 1u);
  EXPECT_EQ(other.only_in_b.size(), 1u);
}

TEST(MultiCpu, ThePageHasTheScalingTablesAndItsFailures) {
  Plots charts;
  charts.plots.push_back({"scaling", "reduce over GPUs", "reduce", 0, -1, "<svg id=\"speedup-chart\"></svg>"});
  const std::string html = report_page({{"multi.json", report_of(sample_run())}}, charts);
  EXPECT_NE(html.find("several GPUs through NCCL: 2 GPUs driven by one process"), std::string::npos);
  EXPECT_NE(html.find("<svg id=\"speedup-chart\">"), std::string::npos);
  EXPECT_NE(html.find("href=\"#run0-multi\">reduce over GPUs</a>"), std::string::npos);
  EXPECT_NE(html.find("1 of 2 rows need a second look"), std::string::npos);
  EXPECT_NE(html.find("FAILED on 2 GPU(s), resident: rank 1: off by 3"), std::string::npos);
  EXPECT_NE(html.find("NCCL all-reduce"), std::string::npos);
}

}  // namespace
