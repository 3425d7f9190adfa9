// The counters of `gpulab profile`: ncu's CSV read back (the shape ncu 2025.3 prints, recorded on
// the H100), counters made of several kernels, claims checked against the counters that exist, and
// the table that marks what each rung claims.
#include "core/counters.hpp"
#include "core/page.hpp"
#include "core/problem.hpp"
#include "core/report.hpp"
#include "core/tables.hpp"

#include <gpulab/error.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

using namespace gpulab;

namespace {

// Two rungs of case 0 (rung 1 of two kernels), a kernel outside every range, ncu's own lines.
const char* kCsv = R"csv(==PROF== Connected to process 568 (/work/gpulab)
"ID","Process ID","Process Name","Host Name","thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg","Id:Domain:Start/Stop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","gpu__time_duration.sum","dram__throughput.avg.pct_of_peak_sustained_elapsed","smsp__inst_executed.sum","smsp__thread_inst_executed_pred_on.sum","launch__registers_per_thread"
"","","","","","","","","","","","","","ns","%","inst","inst","register/thread"
"0","568","gpulab","127.0.0.1","568  ""gpulab:case 0 rung 0:none:none:none:none:ASCII:case 0 rung 0"" ","","void reduce_levels<float, 1>(const float *, float *, unsigned long)","1","7","(256, 1, 1)","(65536, 1, 1)","0","9.0","10,000","50","1,000,000","16,000,000","16"
"1","568","gpulab","127.0.0.1","568  ""gpulab:case 0 rung 1:none:none:none:none:ASCII:case 0 rung 1"" ","","void reduce_levels<float, 2>(const float *, float *, unsigned long)","1","7","(256, 1, 1)","(32768, 1, 1)","0","9.0","30,000","90","1,000,000","32,000,000","32"
"2","568","gpulab","127.0.0.1","568  ""gpulab:case 0 rung 1:none:none:none:none:ASCII:case 0 rung 1"" ","","void finish(float *)","1","7","(256, 1, 1)","(1, 1, 1)","0","9.0","10,000","10","","","40"
"3","568","gpulab","127.0.0.1","","","void poison(unsigned char *)","1","7","(256, 1, 1)","(4, 1, 1)","0","9.0","1,000","1","1","1","8"
==PROF== Disconnected from process 568
)csv";

TEST(Counters, NcuCsvIsReadByRangeWithItsNumbers) {
  const ProfiledKernels k = parse_ncu_csv(kCsv);
  ASSERT_EQ(k.size(), 2u);  // the kernel outside every range is not kept
  const auto& first = k.at({0, 0});
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].kernel, "void reduce_levels<float, 1>(const float *, float *, unsigned long)");
  EXPECT_EQ(first[0].grid, "(65536, 1, 1)");
  EXPECT_DOUBLE_EQ(first[0].metrics.at("gpu__time_duration.sum"), 10000.0);
  EXPECT_DOUBLE_EQ(first[0].metrics.at("smsp__thread_inst_executed_pred_on.sum"), 16e6);
  const auto& second = k.at({0, 1});
  ASSERT_EQ(second.size(), 2u);
  EXPECT_EQ(second[1].metrics.count("smsp__inst_executed.sum"), 0u);  // an empty field is no value
}

TEST(Counters, ARungOfSeveralKernelsReadsAsOne) {
  const ProfiledKernels k = parse_ncu_csv(kCsv);
  const auto& rung = k.at({0, 1});
  EXPECT_DOUBLE_EQ(counter_value("time", rung), 40.0);                    // µs, summed
  EXPECT_DOUBLE_EQ(counter_value("dram", rung), (90 * 30 + 10 * 10) / 40.0);  // weighted by time
  EXPECT_DOUBLE_EQ(counter_value("registers", rung), 40.0);               // the largest
  // A kernel without the metric makes the sum unknown rather than wrong.
  EXPECT_TRUE(std::isnan(counter_value("divergence", rung)));
  EXPECT_DOUBLE_EQ(counter_value("divergence", k.at({0, 0})), 50.0);      // 16 of 32 threads active
  EXPECT_EQ(format_counter("divergence", 50.0), "50.0");
  EXPECT_EQ(format_counter("registers", 40.0), "40");
  EXPECT_EQ(format_counter("bank_conflicts", std::nan("")), "–");
  EXPECT_TRUE(std::isnan(counter_value("no_such_counter", rung)));
}

TEST(Counters, MalformedOutputIsRefused) {
  EXPECT_THROW(parse_ncu_csv("==PROF== nothing profiled\n"), Error);
  EXPECT_THROW(parse_ncu_csv("\"ID\",\"Kernel Name\"\n\"0\",\"k\"\n"), Error);  // no NVTX column
  const std::string short_row = std::string(kCsv).replace(std::string(kCsv).find(",\"16\"\n"), 6, "\n");
  EXPECT_THROW(parse_ncu_csv(short_row), Error);
}

TEST(Counters, MetricListAndFilterNameWhatTheRangesAreCalled) {
  const std::string metrics = ncu_metric_list();
  EXPECT_NE(metrics.find("dram__throughput.avg.pct_of_peak_sustained_elapsed"), std::string::npos);
  EXPECT_NE(metrics.find("launch__registers_per_thread"), std::string::npos);
  EXPECT_EQ(metrics.find(' '), std::string::npos);
  EXPECT_EQ(profile_range_name(3, 7), "case 3 rung 7");
  EXPECT_NE(ncu_range_filter().find("gpulab@"), std::string::npos);
}

// Every rung of every problem claims only counters that exist, and says at least one.
TEST(Counters, EveryRungsClaimsNameCounters) {
  for (const auto& p : make_problems())
    for (const RungInfo& r : p->ladder()) {
      const auto words = claim_words(r.claims);
      EXPECT_FALSE(words.empty()) << p->name() << " " << r.name << " claims nothing";
      for (const auto& w : words) EXPECT_TRUE(is_counter_key(w)) << p->name() << " " << r.name << ": '" << w << "'";
    }
}

TEST(Counters, TheTableMarksClaimsAndShowsTheChange) {
  const ProfiledKernels k = parse_ncu_csv(kCsv);
  CaseResult c;
  c.problem = "reduce";
  VariantRow a, b, unprofiled;
  a.id = "1", a.name = "interleaved_divergent", a.claims = {"divergence"}, a.kernels = k.at({0, 0});
  b.id = "2", b.name = "interleaved_strided", b.claims = {"dram"}, b.kernels = k.at({0, 1});
  unprofiled.id = "3";
  c.variants = {a, b, unprofiled};
  ASSERT_TRUE(has_counters(c));
  const Table t = counters_table(c);
  ASSERT_EQ(t.rows.size(), 4u);  // rung 1, rung 2 and its two kernels; rung 3 has none
  const auto column = [&](const std::string& label) {
    return static_cast<std::size_t>(std::find(t.header.begin(), t.header.end(), label) - t.header.begin());
  };
  EXPECT_EQ(t.rows[0][column("lanes on %")], "50.0");
  EXPECT_TRUE(t.is_marked(0, column("lanes on %")));  // claimed by rung 1
  EXPECT_EQ(t.rows[1][column("DRAM %")], "70.0");
  EXPECT_TRUE(t.is_marked(1, column("DRAM %")));
  EXPECT_FALSE(t.is_marked(1, column("lanes on %")));  // not claimed by rung 2
  std::ostringstream text;
  render_aligned(text, t);
  EXPECT_NE(text.str().find("50.0*"), std::string::npos);
  EXPECT_EQ(t.rows[1][column("lanes on %")], "–");
  EXPECT_EQ(t.rows[1].back(), "DRAM % 50.0 → 70.0");
  EXPECT_EQ(t.rows[2][1], "· reduce_levels (32768, 1, 1)x(256, 1, 1)");
  EXPECT_EQ(t.row_kinds[2], "kernel");
  CaseResult none;
  none.variants = {unprofiled};
  EXPECT_FALSE(has_counters(none));
}

}  // namespace

namespace {

TEST(Counters, KernelsAndClaimsSurviveJsonAndReachMarkdownAndThePage) {
  Report r;
  r.gpulab_version = "0.1.0";
  CaseResult c;
  c.problem = "reduce";
  c.params = {{"n", "2^24"}};
  c.ceiling_name = "read";
  VariantRow v;
  v.id = "1", v.name = "interleaved_divergent", v.claims = {"divergence", "branches"};
  v.kernels = parse_ncu_csv(kCsv).at({0, 1});
  c.variants = {v};
  r.cases = {c};
  const Report back = report_from_json(to_json(r));
  const VariantRow& row = back.cases.at(0).variants.at(0);
  EXPECT_EQ(row.claims, v.claims);
  ASSERT_EQ(row.kernels.size(), 2u);
  EXPECT_EQ(row.kernels[0].metrics, v.kernels[0].metrics);
  EXPECT_EQ(row.kernels[1].block, "(256, 1, 1)");
  EXPECT_NE(to_markdown(back).find("Nsight Compute's counters"), std::string::npos);
  EXPECT_NE(to_markdown(back).find("\\*"), std::string::npos);  // a claimed cell's star, escaped
  const std::string page = report_page({{"run.json", back}}, Plots{});
  EXPECT_NE(page.find("<table class=\"counters\">"), std::string::npos);
  EXPECT_NE(page.find("class=\"num claimed\""), std::string::npos);
}

}  // namespace
