// `gpulab sanitize` without a GPU: the tool's output attributed to rungs by the markers, and the
// re-runs after a rung that ended its process, driven through a stand-in for compute-sanitizer that
// prints what the real one prints (its reports' shape as recorded on the H100).
#include "core/report.hpp"
#include "core/sanitizer.hpp"
#include "core/tables.hpp"

#include <gpulab/error.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <sys/stat.h>
#include <unistd.h>

using namespace gpulab;

namespace {

TEST(Sanitizer, ReportsBelongToTheRungBetweenWhoseMarkersTheyArePrinted) {
  const std::string out = "========= COMPUTE-SANITIZER\n" + begin_marker(0, 0) + "\n" + end_marker(0, true, "") + "\n" +
                          begin_marker(1, 0) + "\n" +
                          "========= Invalid __global__ write of size 4 bytes\n"
                          "=========     at write_one(float *, float)+0x30\n"
                          "=========     by thread (0,0,0) in block (0,0,0)\n"
                          "========= \n"
                          "========= Warning: a warning is not an error\n"
                          "========= Program hit cudaErrorLaunchFailure (error 719) on CUDA API call to cudaStreamSynchronize.\n" +
                          end_marker(1, false, "element 3 is 7, expected 8") + "\n" + begin_marker(0, 1) + "\n" +
                          end_marker(0, true, "") + "\n========= ERROR SUMMARY: 2 errors\n";
  const SanitizedRun run = parse_sanitized_run(out);
  ASSERT_EQ(run.rungs.size(), 2u);
  EXPECT_EQ(run.rungs.at(0).runs, 2);
  EXPECT_EQ(run.rungs.at(0).errors, 0);
  EXPECT_EQ(run.rungs.at(1).errors, 2);
  EXPECT_EQ(run.rungs.at(1).first_error, "Invalid __global__ write of size 4 bytes");
  EXPECT_FALSE(run.rungs.at(1).check_ok);
  EXPECT_EQ(run.rungs.at(1).check_detail, "element 3 is 7, expected 8");
  EXPECT_FALSE(run.unfinished);
  EXPECT_EQ(run.errors_outside, 0);
}

TEST(Sanitizer, AProcessThatDiesInARungLeavesItUnfinished) {
  const SanitizedRun run = parse_sanitized_run(begin_marker(4, 0) + "\ngpulab: CUDA error 719: unspecified launch failure\n" +
                                               "========= Target application returned an error\n");
  ASSERT_TRUE(run.unfinished);
  EXPECT_EQ(*run.unfinished, 4u);
  EXPECT_EQ(run.rungs.at(4).errors, 0);
  EXPECT_NE(run.last_words.find("unspecified launch failure"), std::string::npos);
  EXPECT_EQ(parse_sanitized_run("========= Leaked 4 bytes at 0x1\n").errors_outside, 1);
}

/// A stand-in for compute-sanitizer: runs no program; prints markers for each rung of --variants
/// (ids 1..4 are rungs 0..3), a report in rung 2 under memcheck, and dies in rung 3 under memcheck.
class FakeSanitizer : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() / ("fake-sanitizer-" + std::to_string(getpid()))).string();
    std::ofstream(path_) << R"sh(#!/bin/sh
tool=$2; variants=""; prev=""
for a in "$@"; do [ "$prev" = "--variants" ] && variants=$a; prev=$a; done
[ "$tool" = initcheck ] && { echo "========= Error: the tool could not start"; exit 1; }
echo "========= COMPUTE-SANITIZER"
for v in $(echo "$variants" | tr ',' ' '); do
  i=$((v - 1))
  echo "@gpulab begin $i 0"
  case "$tool:$v" in
    memcheck:2) echo "========= Invalid __global__ read of size 4 bytes"; echo "=========     at k+0x10" ;;
    memcheck:3) echo "gpulab: CUDA error: unspecified launch failure" >&2; exit 1 ;;
  esac
  echo "@gpulab end $i ok"
done
echo "========= ERROR SUMMARY: 0 errors"
)sh";
    ::chmod(path_.c_str(), 0755);
    job_.sanitizer = path_;
    job_.child_args = {"gpulab", "check", "reduce", "--markers"};
    job_.rung_indices = {0, 1, 2, 3};
    job_.rung_ids = {"1", "2", "3", "4"};
  }
  void TearDown() override { std::filesystem::remove(path_); }
  std::string path_;
  SanitizeJob job_;
};

TEST_F(FakeSanitizer, ARungThatEndsTheProcessFailsAndTheRestRunAgain) {
  const auto v = run_sanitizer(job_, "memcheck");
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v.at(0).verdict, "pass");
  EXPECT_EQ(v.at(1).verdict, "fail");
  EXPECT_EQ(v.at(1).first_error, "Invalid __global__ read of size 4 bytes");
  EXPECT_EQ(v.at(2).verdict, "fail");
  EXPECT_NE(v.at(2).first_error.find("the process ended inside this rung"), std::string::npos);
  EXPECT_NE(v.at(2).first_error.find("unspecified launch failure"), std::string::npos);
  EXPECT_EQ(v.at(3).verdict, "pass");  // run in the second process
  EXPECT_EQ(v.at(3).tool, "memcheck");
  for (const auto& [r, verdict] : run_sanitizer(job_, "racecheck")) EXPECT_EQ(verdict.verdict, "pass") << r;
}

TEST_F(FakeSanitizer, AToolThatCannotRunIsAnError) {
  EXPECT_THROW(run_sanitizer(job_, "initcheck"), Error);
}

TEST(Sanitizer, RowsGoIntoTheReportItsJsonAndItsVerdict) {
  Report r;
  r.gpulab_version = "0.1.0";
  r.sanitizer = {{"reduce", "1", "interleaved_divergent", {{"memcheck", "pass", 0, "", true, ""},
                                                          {"racecheck", "fail", 3, "Error: Race reported | at k", true, ""}}}};
  EXPECT_FALSE(all_checks_passed(r));
  const Report back = report_from_json(to_json(r));
  ASSERT_EQ(back.sanitizer.size(), 1u);
  EXPECT_EQ(back.sanitizer[0].tools.at(1).errors, 3);
  EXPECT_EQ(back.sanitizer[0].tools.at(1).first_error, "Error: Race reported | at k");
  const Table t = sanitizer_table(back.sanitizer);
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_EQ(t.rows[0][3], "pass");
  EXPECT_EQ(t.rows[0][4], "FAIL (3)");
  EXPECT_EQ(t.rows[0][5], "–");  // synccheck did not run
  EXPECT_EQ(t.row_kinds[0], "failed");
  EXPECT_NE(to_markdown(back).find("compute-sanitizer"), std::string::npos);
  EXPECT_NE(to_markdown(back).find("Race reported \\| at k"), std::string::npos);  // the table stays one row
  r.sanitizer[0].tools[1].verdict = "pass";
  EXPECT_TRUE(all_checks_passed(r));
}

}  // namespace
