#include "core/report.hpp"
#include "core/tables.hpp"

#include <gpulab/error.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

using namespace gpulab;

namespace {

TimingStats stats(double median_ms, double min_ms, double max_ms, int reps, double noise = 0.0) {
  TimingStats t;
  t.median_ms = median_ms;
  t.min_ms = min_ms;
  t.max_ms = max_ms;
  t.reps = reps;
  t.noise = noise;
  return t;
}

VariantRow row(std::string id, double ms, bool vendor = false) {
  VariantRow r;
  r.id = id;
  r.name = "rung_" + id;
  r.adds = "adds " + id;
  r.vendor = vendor;
  r.check.ok = true;
  r.kernel = stats(ms, ms * 0.9, ms * 1.2, 30);
  r.end_to_end = stats(ms + 10, ms + 9, ms + 11, 3);
  return r;
}

Report sample_report() {
  CaseResult c;
  c.problem = "reduce";
  c.params = {{"type", "float32"}, {"n", "1000000"}, {"block", "64"}};
  c.bytes = 2e9;  // 2 GB: 1 ms ↔ 2000 GB/s
  c.ceiling_name = "read";
  c.ceiling_gbs = 3000;
  c.variants = {row("1", 8.0), row("2", 4.0), row("3", 2.0), row("vendor", 1.0, true), row("4", 1.6)};
  c.variants[2].check.median_error = 2.5e-9;  // measured by checks that see one error per element (SGEMM)
  c.cpu.push_back({"OpenMP baseline", 16, stats(40.0, 39.0, 42.0, 5), {true, 1e-6, 1e-3, ""}, 0.0});
  derive_columns(c);
  Report r;
  r.gpulab_version = "0.1.0";
  r.commit = "abc123";
  r.created_utc = "2026-11-22T00:00:00Z";
  r.command = "gpulab bench reduce";
  DeviceFacts d;
  d.name = "Test GPU";
  d.cc_major = 9;
  d.sm_count = 132;
  d.mem_clock_khz = 2619000;
  d.mem_bus_bits = 5120;
  r.device = d;
  Ceilings k;
  k.read_gbs = 3000;
  k.copy_gbs = 2900;
  k.read = stats(1.0, 0.9, 1.1, 20);
  // (warps an SM, loads a thread, bytes in flight an SM, GB/s, latency ns)
  k.in_flight = {{4, 1, 2048, 500, 543, stats(2.0, 2.0, 2.1, 5)},      {8, 1, 4096, 1000, 543, stats(1.0, 1.0, 1.1, 5)},
                 {16, 4, 32768, 2800, 1545, stats(0.4, 0.4, 0.5, 5)}, {32, 4, 65536, 2950, 2932, stats(0.35, 0.3, 0.4, 5)},
                 {64, 8, 262144, 3000, 11534, stats(0.33, 0.3, 0.4, 5)}};
  r.ceilings = k;
  r.cases.push_back(c);
  return r;
}

}  // namespace

TEST(Report, DerivedColumns) {
  const Report r = sample_report();
  const auto& v = r.cases[0].variants;
  EXPECT_DOUBLE_EQ(v[0].bandwidth_gbs, 250.0);           // 2 GB in 8 ms
  EXPECT_TRUE(std::isnan(v[0].step_speedup));            // rung 1 has no step before it
  EXPECT_DOUBLE_EQ(v[0].cumulative_speedup, 1.0);
  EXPECT_DOUBLE_EQ(v[1].step_speedup, 2.0);
  EXPECT_DOUBLE_EQ(v[2].cumulative_speedup, 4.0);
  EXPECT_DOUBLE_EQ(v[2].vs_vendor, 0.5);                 // vendor 1 ms vs 2 ms
  EXPECT_TRUE(std::isnan(v[3].step_speedup));            // the vendor is outside the ladder
  EXPECT_DOUBLE_EQ(v[3].vs_vendor, 1.0);
  EXPECT_DOUBLE_EQ(v[4].step_speedup, 2.0 / 1.6);        // the step skips the vendor row
  EXPECT_DOUBLE_EQ(v[4].of_ceiling, 1250.0 / 3000.0);
  EXPECT_DOUBLE_EQ(r.cases[0].cpu[0].bandwidth_gbs, 50.0);
}

TEST(Report, JsonRoundTripKeepsEveryNumber) {
  const Report r = sample_report();
  const std::string text = to_json(r).dump(2);
  const Report back = report_from_json(nlohmann::ordered_json::parse(text));
  EXPECT_EQ(to_json(back).dump(2), text);
  ASSERT_EQ(back.cases.size(), 1u);
  EXPECT_EQ(back.cases[0].variants[4].kernel.median_ms, 1.6);
  EXPECT_EQ(back.cases[0].params[2].second, "64");
  EXPECT_TRUE(std::isnan(back.cases[0].variants[0].step_speedup));
  EXPECT_EQ(back.cases[0].variants[2].check.median_error, 2.5e-9);
  EXPECT_TRUE(std::isnan(back.cases[0].variants[0].check.median_error));
  EXPECT_EQ(back.device->name, "Test GPU");
  EXPECT_EQ(back.ceilings->read_gbs, 3000);
}

// `gpulab ceilings --in-flight`: the fewest bytes in flight an SM that reach a share of the best point.
TEST(Report, TheFewestBytesInFlightThatReachAShareOfTheBest) {
  const Report r = sample_report();
  const auto& points = r.ceilings->in_flight;
  EXPECT_EQ(in_flight_bytes_for(points, 0.90), 32768u);  // 2800 ≥ 2700
  EXPECT_EQ(in_flight_bytes_for(points, 0.95), 65536u);  // 2800 < 2850 ≤ 2950
  EXPECT_EQ(in_flight_bytes_for(points, 1.0), 262144u);
  EXPECT_EQ(in_flight_bytes_for({}, 0.9), 0u);
  const Report back = report_from_json(nlohmann::ordered_json::parse(to_json(r).dump()));
  ASSERT_EQ(back.ceilings->in_flight.size(), 5u);
  EXPECT_EQ(back.ceilings->in_flight[2].bytes_per_sm, 32768u);
  EXPECT_NE(to_markdown(r).find("90% of it from 32 KiB in flight an SM, 95% from 64 KiB"), std::string::npos) << to_markdown(r);
}

TEST(Report, MalformedJsonIsAnError) {
  auto j = to_json(sample_report());
  j["cases"][0].erase("variants");
  EXPECT_THROW(report_from_json(j), Error);
  EXPECT_THROW(report_from_json(nlohmann::ordered_json::parse("{}")), Error);
}

TEST(Report, CsvHasAHeaderAndOneLinePerRow) {
  const std::string csv = to_csv(sample_report());
  std::size_t lines = 0;
  for (char c : csv) lines += c == '\n';
  EXPECT_EQ(lines, 1u + 5 + 1);  // header, 5 GPU rows, 1 CPU row
  EXPECT_EQ(csv.rfind("problem,params,kind,id,name,ok", 0), 0u);
  EXPECT_NE(csv.find("reduce,type=float32;n=1000000;block=64,gpu,1,rung_1,1,"), std::string::npos);
  EXPECT_NE(csv.find(",vendor,vendor,rung_vendor,"), std::string::npos);
}

TEST(Report, MarkdownAndTerminalShowTheTable) {
  const Report r = sample_report();
  const std::string md = to_markdown(r);
  EXPECT_NE(md.find("| # | variant | time ms |"), std::string::npos);
  EXPECT_NE(md.find("rung_4"), std::string::npos);
  EXPECT_NE(md.find("Test GPU"), std::string::npos);
  std::ostringstream os;
  print_terminal(os, r);
  EXPECT_NE(os.str().find("rung_3"), std::string::npos);
  EXPECT_NE(os.str().find("4.00x"), std::string::npos);  // rung 3's cumulative speedup
  EXPECT_EQ(os.str().find("FAILED"), std::string::npos);
}

TEST(Report, FailuresAreShownAndCounted) {
  Report r = sample_report();
  EXPECT_TRUE(all_checks_passed(r));
  r.cases[0].variants[1].check = {false, 1.0, 0.1, "got 2, expected 1"};
  EXPECT_FALSE(all_checks_passed(r));
  std::ostringstream os;
  print_terminal(os, r);
  EXPECT_NE(os.str().find("FAILED 2 rung_2: got 2, expected 1"), std::string::npos);
}

TEST(Report, ProgramRunsAndNotesAreShownAndKept) {
  Report r = sample_report();
  r.cases[0].variants[1].program_run = ProgramRun{10, 2.5, 40.0, 5.0, 0.5, 1.0};
  r.cases[0].notes = {"rung 7: not applicable (m = 256 > 8)"};
  EXPECT_DOUBLE_EQ(r.cases[0].variants[1].program_run->total_ms(), 49.0);
  const std::string md = to_markdown(r);
  EXPECT_NE(md.find("one program run, LOOPS=10"), std::string::npos);
  EXPECT_NE(md.find("| 2 | rung_2 | 2.500 | 40.000 | 5.000 | 0.5000 | 1.000 | 49.000 | 10.2% |"), std::string::npos);
  EXPECT_NE(md.find("- rung 7: not applicable"), std::string::npos);
  std::ostringstream os;
  print_terminal(os, r);
  EXPECT_NE(os.str().find("note: rung 7"), std::string::npos);
  const std::string text = to_json(r).dump(2);
  const Report back = report_from_json(nlohmann::ordered_json::parse(text));
  EXPECT_EQ(to_json(back).dump(2), text);
  ASSERT_TRUE(back.cases[0].variants[1].program_run);
  EXPECT_EQ(back.cases[0].variants[1].program_run->loops, 10);
  EXPECT_FALSE(back.cases[0].variants[0].program_run);
  EXPECT_EQ(back.cases[0].notes, r.cases[0].notes);
}

TEST(Report, RowsFasterThanTheCeilingAreInvalidAndNeverRanked) {
  Report r = sample_report();
  CaseResult& c = r.cases[0];
  c.variants[2].kernel = stats(0.5, 0.5, 0.6, 30, 0.01);  // 4000 GB/s against a 3000 GB/s ceiling
  derive_columns(c);
  const auto& v = c.variants;
  EXPECT_FALSE(v[2].invalid.empty());
  EXPECT_TRUE(std::isnan(v[2].step_speedup) && std::isnan(v[2].cumulative_speedup) && std::isnan(v[2].vs_vendor));
  EXPECT_DOUBLE_EQ(v[4].step_speedup, 4.0 / 1.6);  // the step skips the invalid row too
  // Within the noise of the row it is not invalid: 3060 GB/s with 3% noise.
  c.variants[2].kernel = stats(2e9 / 3060e9 * 1e3, 0.6, 0.7, 30, 0.03);
  derive_columns(c);
  EXPECT_TRUE(c.variants[2].invalid.empty());
  // Flagged in every format.
  c.variants[2].kernel.median_ms = 0.5;
  c.variants[1].noisy = true;
  c.variants[1].remeasured = true;
  derive_columns(c);
  std::ostringstream os;
  print_terminal(os, r);
  EXPECT_NE(os.str().find("INVALID"), std::string::npos);
  EXPECT_NE(os.str().find("noisy"), std::string::npos);
  EXPECT_NE(to_markdown(r).find("INVALID"), std::string::npos);
  EXPECT_NE(to_csv(r).find("INVALID"), std::string::npos);
  const Report back = report_from_json(to_json(r));
  EXPECT_FALSE(back.cases[0].variants[2].invalid.empty());
  EXPECT_TRUE(back.cases[0].variants[1].noisy);
}

TEST(Report, RowsOnOtherUnitsAreNotJudgedByTheCeiling) {
  Report r = sample_report();
  CaseResult& c = r.cases[0];
  c.variants[2].kernel = stats(0.5, 0.5, 0.6, 30, 0.01);  // 4000 GB/s against a 3000 GB/s ceiling ...
  c.variants[2].other_units = true;                  // ... on units it does not measure
  derive_columns(c);
  EXPECT_TRUE(c.variants[2].invalid.empty());
  EXPECT_TRUE(std::isnan(c.variants[2].of_ceiling));
  EXPECT_DOUBLE_EQ(c.variants[2].step_speedup, 4.0 / 0.5);  // still a step of the ladder
  EXPECT_NE(to_markdown(r).find("other units"), std::string::npos);
  const Report back = report_from_json(to_json(r));
  EXPECT_TRUE(back.cases[0].variants[2].other_units);
  EXPECT_FALSE(back.cases[0].variants[1].other_units);
}

// A tensor rung (3xTF32: three TF32 products an FP32 one) is judged by its tensor cores' own
// ceiling, its rate times its products; faster than that ceiling allows is invalid, as elsewhere;
// the ceiling and the tensor ceilings of `gpulab ceilings` survive the JSON.
TEST(Report, TensorRowsAreJudgedByTheirOwnCeiling) {
  Report r = sample_report();
  CaseResult& c = r.cases[0];
  c.flops = 2e9;  // 2 GFLOP: 1 ms ↔ 2000 GFLOP/s
  for (std::size_t i : {1u, 2u}) {
    c.variants[i].other_units = true;
    c.variants[i].tensor_ceiling = "TF32 tensor";
    c.variants[i].tensor_ceiling_gflops = 6000;
    c.variants[i].tensor_ceiling_noise = 0.01;
    c.variants[i].tensor_products = 3;
  }
  c.variants[2].kernel = stats(0.5, 0.5, 0.6, 30, 0.01);  // 4000 GFLOP/s, × 3 = 12000 against 6000
  derive_columns(c);
  EXPECT_DOUBLE_EQ(c.variants[1].of_ceiling, 500.0 * 3 / 6000);  // 4 ms: 500 GFLOP/s
  EXPECT_TRUE(c.variants[1].invalid.empty());
  EXPECT_NE(c.variants[2].invalid.find("TF32 tensor ceiling"), std::string::npos) << c.variants[2].invalid;
  EXPECT_NE(row_flags(c.variants[1]).find("of the TF32 tensor ceiling, 3 products an operation"), std::string::npos);
  r.ceilings->tf32 = {600000, "wgmma m64n256k8 tf32", stats(1.5, 1.4, 1.6, 20)};
  const std::string text = to_json(r).dump(2);
  const Report back = report_from_json(nlohmann::ordered_json::parse(text));
  EXPECT_EQ(to_json(back).dump(2), text);
  EXPECT_EQ(back.cases[0].variants[1].tensor_ceiling, "TF32 tensor");
  EXPECT_EQ(back.cases[0].variants[1].tensor_products, 3);
  EXPECT_TRUE(back.cases[0].variants[0].tensor_ceiling.empty());
  EXPECT_EQ(back.ceilings->tf32.form, "wgmma m64n256k8 tf32");
  EXPECT_EQ(back.ceilings->tf32.gflops, 600000);
  EXPECT_EQ(back.ceilings->int8.gflops, 0);  // not measured: none in the JSON, none back
  EXPECT_NE(ceilings_line(*back.ceilings).find("TF32 tensor 600000 GFLOP/s (wgmma m64n256k8 tf32)"), std::string::npos);
  EXPECT_EQ(ceilings_line(*back.ceilings).find("INT8"), std::string::npos);
}

TEST(Report, AnL2ResidentCaseSaysSo) {
  Report r = sample_report();
  r.cases[0].l2_resident = true;
  r.cases[0].ceiling_name = "L2 read";
  std::ostringstream os;
  print_terminal(os, r);
  EXPECT_NE(os.str().find("fits in the L2"), std::string::npos);
  EXPECT_TRUE(report_from_json(to_json(r)).cases[0].l2_resident);
}

TEST(Report, TheSameSizeCopyJudgesEachRowWhereMeasured) {
  Report r = sample_report();
  EXPECT_EQ(to_markdown(r).find("same-size copy"), std::string::npos);  // not measured: no column
  CaseResult& c = r.cases[0];
  c.size_copy = stats(1.25, 1.2, 1.3, 30);  // 2 GB in 1.25 ms: 1600 GB/s at this size
  c.variants[4].other_units = true;
  derive_columns(c);
  EXPECT_DOUBLE_EQ(c.variants[1].of_size_copy, 1.25 / 4.0);
  EXPECT_DOUBLE_EQ(c.variants[3].of_size_copy, 1.25);  // the vendor beats the copy: a ratio, not a bound
  EXPECT_TRUE(std::isnan(c.variants[4].of_size_copy));
  const std::string md = to_markdown(r);
  EXPECT_NE(md.find("| % same-size copy |"), std::string::npos);
  EXPECT_NE(md.find("a copy moving the same bytes takes 1.250 ms (1600.0 GB/s)"), std::string::npos);
  EXPECT_NE(md.find("| 15.6% |"), std::string::npos);  // rung 1: 1.25 ms ÷ 8 ms
  const Report back = report_from_json(to_json(r));
  ASSERT_TRUE(back.cases[0].size_copy.has_value());
  EXPECT_EQ(back.cases[0].size_copy->median_ms, 1.25);
  EXPECT_DOUBLE_EQ(back.cases[0].variants[1].of_size_copy, 1.25 / 4.0);
  EXPECT_NE(to_csv(r).find(",0.3125\n"), std::string::npos);  // the CSV's last column
}
