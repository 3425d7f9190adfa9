// `gpulab compare`: the rank test, the verdicts, and the command's exit codes and files.
#include "cli_test_support.hpp"
#include "scoped_env.hpp"
#include "core/compare.hpp"
#include "core/page.hpp"
#include "core/progress.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace gpulab;
using gpulab::test::cli;
using gpulab::test::CliRun;

namespace {

/// 30 repetitions around `ms` with a relative spread `spread` (a fixed, reproducible pattern).
TimingStats repetitions(double ms, double spread, double shift = 0.0) {
  std::vector<double> samples;
  for (int i = 0; i < 30; ++i) samples.push_back(ms * (1.0 + shift + spread * (((i * 7) % 30) / 29.0 - 0.5)));
  return summarize(samples);
}

VariantRow row(const std::string& id, const std::string& name, TimingStats t, bool vendor = false) {
  VariantRow r;
  r.id = id;
  r.name = name;
  r.vendor = vendor;
  r.library = id == "2";
  r.check.ok = true;
  r.kernel = std::move(t);
  return r;
}

/// One case, three rows; B's rows shifted by `shifts` (fractions of the time) and spread by `spread`.
Report run(const std::string& device, std::vector<double> shifts, double spread = 0.01, double ceiling = 5000) {
  CaseResult c;
  c.problem = "reduce";
  c.params = {{"type", "float32"}, {"n", "268435456 (2^28)"}};
  c.bytes = 1.0737e9;
  c.ceiling_name = "read";
  c.ceiling_gbs = ceiling;
  c.variants = {row("1", "naive", repetitions(2.0, spread, shifts[0])),
                row("2", "fast", repetitions(0.36, spread, shifts[1])),
                row("vendor", "cub", repetitions(0.37, spread, shifts[2]), true)};
  derive_columns(c);
  Report r;
  r.gpulab_version = "0.1.0";
  r.commit = "abc";
  r.created_utc = "2026-11-23T00:00:00Z";
  r.command = "gpulab bench reduce";
  DeviceFacts d;
  d.name = device;
  r.device = d;
  r.cases.push_back(c);
  return r;
}

const RowChange& change(const Comparison& c, std::size_t i) { return c.cases.at(0).rows.at(i); }

std::string write_temp(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path) << text;
  return path.string();
}

std::string read(const std::string& path) {
  std::ifstream f(path);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST(MannWhitney, MatchesTheNormalApproximationOfTheTextbook) {
  // scipy.stats.mannwhitneyu([1..5], [6..10], method="asymptotic"): U = 0, p = 0.01219.
  EXPECT_NEAR(mann_whitney_p({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}), 0.01219, 1e-4);
  // Interleaved samples: no evidence of a shift.
  EXPECT_GT(mann_whitney_p({1, 3, 5, 7, 9, 11}, {2, 4, 6, 8, 10, 12}), 0.5);
  // All equal: p = 1; too few samples: NaN (the verdict falls back to the spread).
  EXPECT_EQ(mann_whitney_p({2, 2, 2, 2}, {2, 2, 2, 2}), 1.0);
  EXPECT_TRUE(std::isnan(mann_whitney_p({1, 2, 3}, {4, 5, 6, 7})));
}

TEST(Compare, VerdictsComeFromTheRepetitions) {
  const Report a = run("GPU A", {0, 0, 0});
  // Row 1 10% slower, row 2 10% faster, the vendor 1% slower (below the 2% floor).
  const Comparison c = compare_reports(a, run("GPU A", {0.10, -0.10, 0.01}), {});
  EXPECT_EQ(change(c, 0).verdict, Verdict::slower);
  EXPECT_EQ(change(c, 1).verdict, Verdict::faster);
  EXPECT_EQ(change(c, 2).verdict, Verdict::same);
  EXPECT_LT(change(c, 0).p_value, 1e-6);
  EXPECT_NEAR(change(c, 1).speedup, 1 / 0.9, 1e-3);
  EXPECT_TRUE(c.regressed());
  EXPECT_EQ(c.count(Verdict::slower), 1);

  // The same run against itself: nothing moved.
  const Comparison same = compare_reports(a, a, {});
  EXPECT_FALSE(same.regressed());
  EXPECT_EQ(same.count(Verdict::same), 3);
}

TEST(Compare, ANoisyRowMustMoveMoreThanItsSpread) {
  // 10% slower, but each run's repetitions spread over 60% (an interquartile range of ~30%).
  const Comparison c = compare_reports(run("A", {0, 0, 0}, 0.6), run("A", {0.10, 0, 0}, 0.6), {});
  EXPECT_EQ(change(c, 0).verdict, Verdict::same);
  EXPECT_GT(change(c, 0).threshold, 0.2);
  // A stricter floor keeps a 10% move within noise too; a looser one lets a 1% move count.
  EXPECT_EQ(change(compare_reports(run("A", {0, 0, 0}), run("A", {0.10, 0, 0}), {0.01, 0.15}), 0).verdict, Verdict::same);
  EXPECT_EQ(change(compare_reports(run("A", {0, 0, 0}, 0.001), run("A", {0.01, 0, 0}, 0.001), {0.01, 0.005}), 0).verdict,
            Verdict::slower);
}

TEST(Compare, AMoveBelowTheTimersResolutionDoesNotCount) {
  // Row 2 takes 0.36 ms: 10% is 36 µs, a move. With a 40 µs floor it is not.
  const Report a = run("A", {0, 0, 0}), b = run("A", {0, 0.10, 0});
  EXPECT_EQ(change(compare_reports(a, b, {}), 1).verdict, Verdict::slower);
  CompareOptions coarse;
  coarse.min_change_us = 40;
  EXPECT_EQ(change(compare_reports(a, b, coarse), 1).verdict, Verdict::same);
}

TEST(Compare, WithoutRepetitionsTheSpreadAloneJudges) {
  Report a = run("A", {0, 0, 0}), b = run("A", {0.10, 0, 0});
  for (Report* r : {&a, &b})
    for (auto& v : r->cases[0].variants) v.kernel.samples_ms.clear();  // a report from before samples were kept
  const Comparison c = compare_reports(a, b, {});
  EXPECT_TRUE(std::isnan(change(c, 0).p_value));
  EXPECT_EQ(change(c, 0).verdict, Verdict::slower);
  EXPECT_NE(change(c, 0).why.find("spread alone"), std::string::npos);
}

TEST(Compare, BrokenRowsAndMissingRowsAreReported) {
  Report b = run("B", {0, 0, 0});
  b.cases[0].variants[1].check = {false, 1.0, 1e-6, "element 7 differs"};
  b.cases[0].variants.pop_back();  // the vendor is gone
  const Comparison c = compare_reports(run("A", {0, 0, 0}), b, {});
  EXPECT_EQ(change(c, 1).verdict, Verdict::broken);
  EXPECT_TRUE(c.regressed());
  ASSERT_EQ(c.only_in_a.size(), 1u);
  EXPECT_NE(c.only_in_a[0].find("cub"), std::string::npos);
}

TEST(Compare, TwoGpusShowTheCeilingRatio) {
  const Comparison c = compare_reports(run("H100", {0, 0, 0}), run("H200", {-0.3, -0.3, -0.3}, 0.01, 7000), {});
  EXPECT_NEAR(c.cases[0].ceiling_ratio, 1.4, 1e-9);
  EXPECT_NE(ceiling_words(c.cases[0]).find("1.40x"), std::string::npos);
  std::ostringstream os;
  print_comparison(os, c);
  EXPECT_NE(os.str().find("H200"), std::string::npos);
  EXPECT_NE(comparison_markdown(c).find("| 2 | fast |"), std::string::npos);
  EXPECT_EQ(comparison_json(c)["summary"]["faster"], 3);
}

TEST(Report, JsonKeepsTheRepetitions) {
  const Report r = run("A", {0, 0, 0});
  const Report back = report_from_json(to_json(r));
  const auto& samples = back.cases[0].variants[0].kernel.samples_ms;
  ASSERT_EQ(samples.size(), 30u);
  EXPECT_NEAR(samples[3], r.cases[0].variants[0].kernel.samples_ms[3], 1e-6);
}

TEST(CompareCli, ExitsWith4OnlyWhenARowGotSlower) {
  const std::string a = write_temp("gpulab_cmp_a.json", to_json(run("A", {0, 0, 0})).dump());
  const std::string same = write_temp("gpulab_cmp_same.json", to_json(run("A", {0.005, 0, 0})).dump());
  const std::string slower = write_temp("gpulab_cmp_slower.json", to_json(run("A", {0.2, 0, 0})).dump());
  EXPECT_EQ(cli({"compare", a, same}).code, 0);
  const CliRun r = cli({"compare", a, slower, "--md", a + ".md", "--json", a + ".cmp.json"});
  EXPECT_EQ(r.code, 4);
  EXPECT_NE(r.err.find("1 row(s) slower"), std::string::npos);
  EXPECT_NE(r.out.find("SLOWER"), std::string::npos);
  EXPECT_NE(read(a + ".md").find("SLOWER"), std::string::npos);
  EXPECT_NE(read(a + ".cmp.json").find("\"regressed\": true"), std::string::npos);
  // The looser floor the option sets makes the 20% move acceptable.
  EXPECT_EQ(cli({"compare", a, slower, "--min-change", "0.5"}).code, 0);
}

TEST(CompareCli, BadFilesAndOptionsSayWhy) {
  const std::string a = write_temp("gpulab_cmp_ok.json", to_json(run("A", {0, 0, 0})).dump());
  const std::string not_json = write_temp("gpulab_cmp_bad.json", "{ not json");
  const std::string not_report = write_temp("gpulab_cmp_other.json", R"({"cases": []})");
  CliRun r = cli({"compare", a, not_json});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("is not JSON"), std::string::npos);
  r = cli({"compare", not_report, a});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("malformed gpulab report"), std::string::npos);
  EXPECT_EQ(cli({"compare", a, "/nonexistent.json"}).code, 2);
  EXPECT_EQ(cli({"compare", a}).code, 2);
  EXPECT_EQ(cli({"compare", a, a, "--alpha", "0"}).code, 2);
  EXPECT_EQ(cli({"report", "/nonexistent.json", "-o", "/tmp/x.html"}).code, 2);
  EXPECT_EQ(cli({"report", a}).code, 2);  // no -o
  r = cli({"report", not_json, "-o", "/tmp/gpulab_bad.html"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("is not JSON"), std::string::npos);
}

TEST(Page, HasEveryTableAndFlagEvenWithoutCharts) {
  Report r = run("Test GPU <H100>", {0, 0, 0});
  r.cases[0].variants[0].noisy = true;
  r.cases[0].variants[1].check = {false, 1.0, 1e-6, "element 7 differs"};
  Plots none;
  none.missing = "python3 was not found";
  const std::string html = report_page({{"run.json", r}}, none);
  EXPECT_NE(html.find("<!doctype html>"), std::string::npos);
  EXPECT_NE(html.find("Test GPU &lt;H100&gt;"), std::string::npos);  // escaped
  EXPECT_EQ(html.find("<H100>"), std::string::npos);
  EXPECT_NE(html.find("No charts on this page: python3 was not found"), std::string::npos);
  EXPECT_NE(html.find("<tr class=\"rung noisy\">"), std::string::npos);
  EXPECT_NE(html.find("<tr class=\"library failed\">"), std::string::npos);
  EXPECT_NE(html.find("2 of 3 rows need a second look"), std::string::npos);
  EXPECT_EQ(html.find("http"), std::string::npos);  // nothing fetched from a network
  Plots one;
  one.plots.push_back({"case", "reduce", "", 0, 0, "<svg id=\"chart-here\"></svg>"});
  EXPECT_NE(report_page({{"run.json", r}}, one).find("<svg id=\"chart-here\">"), std::string::npos);
}

TEST(Page, ReportCommandWritesAPageWithoutPython) {
  const std::string a = write_temp("gpulab_page_run.json", to_json(run("A", {0, 0, 0})).dump());
  const std::string html = (std::filesystem::temp_directory_path() / "gpulab_page_run.html").string();
  const CliRun r = [&] {
    const test::ScopedEnv no_python("GPULAB_PYTHON", "/nonexistent/python3");
    return cli({"report", a, "-o", html});
  }();
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("the page has no charts"), std::string::npos);
  const std::string page = read(html);
  EXPECT_NE(page.find("reduce  type=float32"), std::string::npos);
  EXPECT_NE(page.find("No charts on this page"), std::string::npos);
}

TEST(Progress, WithoutATerminalPrintsThePlainLines) {
  std::ostringstream os;
  {
    Progress p(os, false);
    p.plan(2);
    p.problem("reduce", 0, 1);
    p.case_start("type=float32 n=1000");
    p.reference();
    p.rung("1", "naive");
    p.case_done();
  }
  EXPECT_EQ(os.str(), "type=float32 n=1000: CPU reference…\n  1 naive\n");
}

TEST(Progress, OnATerminalRewritesOneLineWithTheTimeLeft) {
  std::ostringstream os;
  {
    Progress p(os, true);
    p.plan(4);
    p.problem("scan", 1, 7);
    p.case_start("n=2^20");
    p.case_done();
    p.case_start("n=2^24");
    p.rung("3", "decoupled");
  }
  const std::string s = os.str();
  EXPECT_NE(s.find("[2/7 scan] case 2/4 n=2^24 · 3 decoupled"), std::string::npos);
  EXPECT_NE(s.find("left"), std::string::npos);
  EXPECT_EQ(s.find('\n'), std::string::npos);                    // never a new line
  EXPECT_EQ(s.substr(s.size() - 5), "\r\x1b[2K");                // cleared at the end
}

TEST(Compare, CasesJudgedByDifferentCeilingsSaySo) {
  Report a = run("H100", {0, 0, 0}), b = run("H200", {0, 0, 0});
  b.cases[0].ceiling_name = "L2 read";  // the data fits the L2 of B only
  const Comparison c = compare_reports(a, b, {});
  EXPECT_EQ(ceiling_words(c.cases[0]), "judged by different ceilings: read in A, L2 read in B");
}
