#include "cli/cli.hpp"

#include "cli/atax_tools.hpp"

#include "core/ceilings.hpp"
#include "core/device_info.hpp"
#include "core/dtype.hpp"
#include "core/report.hpp"
#include "core/sizes.hpp"
#include "core/variants.hpp"
#include "atax/atax_bench.hpp"
#include "atax/atax_ladder.hpp"
#include "histogram/histogram_bench.hpp"
#include "histogram/histogram_ladder.hpp"
#include "reduce/reduce_bench.hpp"
#include "reduce/reduce_ladder.hpp"

#include <gpulab/error.hpp>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <ostream>

#ifndef GPULAB_GIT_COMMIT
#define GPULAB_GIT_COMMIT "unknown"
#endif

namespace gpulab {
namespace {

constexpr const char* kVersion = "0.1.0";

constexpr const char* kFooter =
    "Semantics: int32 sums wrap modulo 2^32 (the same bits as CUB and a serial loop); float results\n"
    "pass when |got - ref| <= gamma_k * sum|x| with k the variant's accumulation depth (docs/).\n"
    "Histograms: value v goes to bin ((v % m) + m) % m; counts must match the CPU exactly.\n"
    "Exit codes: 0 ok, 1 a check failed or a run-time error, 2 bad command line, 3 no CUDA device.";

struct OutputFiles {
  std::string json, csv, md;
  void add_to(CLI::App* app) {
    app->add_option("--json", json, "also write the report as JSON to this file");
    app->add_option("--csv", csv, "also write the report as CSV to this file");
    app->add_option("--md", md, "also write the report as Markdown to this file");
  }
};

void write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  if (!f) throw Error("cannot open '" + path + "' for writing");
  f << text;
  f.close();
  if (!f) throw Error("could not write '" + path + "'");
}

void write_outputs(const Report& report, const OutputFiles& files) {
  if (!files.json.empty()) write_file(files.json, to_json(report).dump(2) + "\n");
  if (!files.csv.empty()) write_file(files.csv, to_csv(report));
  if (!files.md.empty()) write_file(files.md, to_markdown(report));
}

/// The options every `bench PROBLEM` has; `reps` etc. start at the problem's defaults.
struct BenchOptions {
  std::string variants_text;
  int reps = 0, warmup = 0, end_to_end_reps = 0;
  std::uint64_t seed = 0;
  bool no_cpu = false, no_ceilings = false;
  OutputFiles files;

  template <class Config>
  explicit BenchOptions(const Config& defaults)
      : reps(defaults.reps), warmup(defaults.warmup), end_to_end_reps(defaults.end_to_end_reps), seed(defaults.seed) {}

  void add_to(CLI::App* app) {
    app->add_option("--variants", variants_text, "ids or names, comma list (default: all; see `gpulab list`)");
    app->add_option("--reps", reps, "timed repetitions (median reported)")->check(CLI::Range(1, 100000))->capture_default_str();
    app->add_option("--warmup", warmup, "untimed warm-up runs")->check(CLI::Range(0, 1000))->capture_default_str();
    app->add_option("--e2e-reps", end_to_end_reps, "repetitions of the end-to-end timing")
        ->check(CLI::Range(1, 1000))->capture_default_str();
    app->add_option("--seed", seed, "seed of the random input")->capture_default_str();
    app->add_flag("--no-cpu", no_cpu, "skip timing the CPU baselines (the reference still checks)");
    app->add_flag("--no-ceilings", no_ceilings, "do not measure the ceilings first");
    files.add_to(app);
  }

  template <class Config>
  void apply_to(Config& config) const {
    config.variants = split_commas(variants_text);
    config.reps = reps;
    config.warmup = warmup;
    config.end_to_end_reps = end_to_end_reps;
    config.seed = seed;
    config.cpu = !no_cpu;
  }
};

/// CLI11 validator for "2^20,2^24+1,1000".
CLI::Validator size_list_validator() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        return parse_size_list(s) ? std::string() : "'" + s + "' is not a list of sizes like 2^24,1000,2^20+1";
      },
      "SIZES");
}

/// CLI11 validator for a comma list of words that `parse` knows, or "all". `what`: "types";
/// `choices`: "int32, float32, float64" (for the message).
template <class Parse>
CLI::Validator word_list_validator(std::string what, std::string choices, Parse parse, std::string name) {
  return CLI::Validator(
      [=](std::string& s) -> std::string {
        if (s == "all") return {};
        if (s.empty()) return "the list of " + what + " is empty";
        for (const auto& item : split_commas(s))
          if (!parse(item)) return "'" + item + "' is not " + choices + " or all";
        return {};
      },
      std::move(name));
}

CLI::Validator type_list_validator() {
  return word_list_validator("types", "int32, float32, float64", [](const std::string& w) { return parse_dtype(w).has_value(); },
                             "TYPES");
}

CLI::Validator distribution_list_validator() {
  return word_list_validator("distributions", "uniform, narrow, degenerate",
                             [](const std::string& w) { return parse_histogram_distribution(w).has_value(); },
                             "DISTRIBUTIONS");
}

std::vector<HistogramDistribution> parse_distributions(const std::string& s) {
  if (s == "all") return HistogramBenchConfig{}.distributions;
  std::vector<HistogramDistribution> out;
  for (const auto& item : split_commas(s)) out.push_back(*parse_histogram_distribution(item));
  return out;
}

std::vector<DType> parse_types(const std::string& s) {
  if (s == "all") return {DType::int32, DType::float32, DType::float64};
  std::vector<DType> out;
  for (const auto& item : split_commas(s)) out.push_back(*parse_dtype(item));
  return out;
}

std::string join_args(const std::vector<std::string>& args) {
  std::string s;
  for (const auto& a : args) s += (s.empty() ? "" : " ") + a;
  return s;
}

/// Selects the device and reads its facts; throws NoDeviceError without one.
DeviceFacts open_device(int index) {
  const int count = require_cuda_device();
  if (index < 0 || index >= count)
    throw Error(fmt::format("--device {} does not exist: {} CUDA device(s) found", index, count));
  GPULAB_CUDA_CHECK(cudaSetDevice(index));
  return query_device(index);
}

Report new_report(const std::vector<std::string>& args, const DeviceFacts& device) {
  Report r;
  r.gpulab_version = kVersion;
  r.commit = GPULAB_GIT_COMMIT;
  r.created_utc = utc_now();
  r.command = join_args(args);
  r.device = device;
  return r;
}

void list_problems(std::ostream& out) {
  out << "reduce — sum of a vector (int32 wraps modulo 2^32; float32, float64)\n";
  for (const auto& v : reduce_variants<float>())
    out << fmt::format("  {:>6}  {:<27} {}\n", v.id, v.name, v.adds);
  out << "\natax — y = A^T (A x), A rows x cols float32 row-major\n";
  for (const auto& v : atax_variants()) out << fmt::format("  {:>6}  {:<27} {}\n", v.id, v.name, v.adds);
  out << "\nhistogram — counts of int32 values in m bins, bin = ((v % m) + m) % m\n";
  for (const auto& v : histogram_variants())
    out << fmt::format("  {:>6}  {:<27} {}\n", v.id, v.name, v.adds);
}

}  // namespace

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"gpulab — a laboratory and library of classic data-parallel GPU problems", "gpulab"};
  app.footer(kFooter);
  app.require_subcommand(1, 1);
  int device_index = 0;
  app.add_option("--device", device_index, "CUDA device index")->check(CLI::NonNegativeNumber);
  app.set_version_flag("--version", std::string(kVersion) + " (" GPULAB_GIT_COMMIT ")");

  auto* info = app.add_subcommand("info", "print the device's facts (seeds 000/003, 004's cudastats)");

  auto* ceilings_cmd = app.add_subcommand("ceilings", "measure copy, read, write and FMA ceilings");
  int ceiling_reps = 20;
  ceilings_cmd->add_option("--reps", ceiling_reps, "repetitions per ceiling")->check(CLI::Range(1, 10000));
  OutputFiles ceiling_files;
  ceiling_files.add_to(ceilings_cmd);

  auto* list = app.add_subcommand("list", "list the problems and their rungs");

  auto* bench = app.add_subcommand("bench", "check and time one problem's ladder");
  bench->require_subcommand(1, 1);
  auto* bench_reduce_cmd = bench->add_subcommand("reduce", "the reduction ladder (sum of a vector)");
  ReduceBenchConfig reduce_cfg;
  BenchOptions reduce_opts(reduce_cfg);
  std::string sizes_text = "2^20,2^24,2^28", types_text = "all";
  bench_reduce_cmd->add_option("-n,--n", sizes_text, "element counts, e.g. 2^24,1000,2^20+1")
      ->check(size_list_validator())->capture_default_str();
  bench_reduce_cmd->add_option("-t,--type", types_text, "int32, float32, float64 (comma list) or all")
      ->check(type_list_validator())->capture_default_str();
  bench_reduce_cmd->add_option("-b,--block", reduce_cfg.block, "threads per block for rungs 1-7 (power of two, 32-1024)")
      ->check(CLI::IsMember({32, 64, 128, 256, 512, 1024}))->capture_default_str();
  reduce_opts.add_to(bench_reduce_cmd);

  auto* bench_histogram_cmd = bench->add_subcommand("histogram", "the histogram ladder (int32 values, m bins)");
  HistogramBenchConfig histogram_cfg;
  BenchOptions histogram_opts(histogram_cfg);
  std::string hist_sizes_text = "2^26", bins_text = "8,256,4096,65536,2^20", dist_text = "all";
  bench_histogram_cmd->add_option("-n,--n", hist_sizes_text, "numbers of values (below 2^32), e.g. 2^25,1000")
      ->check(size_list_validator())->capture_default_str();
  bench_histogram_cmd->add_option("-m,--bins", bins_text, "numbers of bins (1 to 2^32-1), e.g. 8,256,2^20")
      ->check(size_list_validator())->capture_default_str();
  bench_histogram_cmd->add_option("-d,--dist", dist_text, "uniform, narrow, degenerate (comma list) or all")
      ->check(distribution_list_validator())->capture_default_str();
  bench_histogram_cmd->add_option("--input", histogram_cfg.input_file,
                                  "a file of raw little-endian int32 values to count instead (then -n and -d are not used)");
  bench_histogram_cmd->add_option("-b,--block", histogram_cfg.block, "threads per block for rungs 1-5 (multiple of 32, 32-1024)")
      ->capture_default_str();
  bench_histogram_cmd->add_option("--loops", histogram_cfg.loops,
                                  "also run each variant as a whole program LOOPS times and show where the time goes (seed 002)")
      ->check(CLI::Range(0, 1000))->capture_default_str();
  histogram_opts.add_to(bench_histogram_cmd);

  auto* bench_atax_cmd = bench->add_subcommand("atax", "the atax ladder, y = A^T (A x)");
  AtaxBenchConfig atax_cfg;
  BenchOptions atax_opts(atax_cfg);
  std::string shapes_text = "512x768,1664x1792,1024x1024,8960x17920,12288x1024,1024x12288";
  bench_atax_cmd->add_option("-s,--shapes", shapes_text, "COLSxROWS list (the seed's naming: 512x768 = 512 columns, 768 rows)")
      ->capture_default_str();
  atax_opts.add_to(bench_atax_cmd);

  auto* atax = app.add_subcommand("atax", "y = A^T(A x) with seed 004's files: gen, run, check");
  atax->require_subcommand(1, 1);
  auto* atax_gen_cmd = atax->add_subcommand("gen", "write a file of random values in [-1, 1) (streamed: any size)");
  std::int64_t gen_cols = 0, gen_rows = 0;
  std::string gen_out;
  std::uint64_t gen_seed = 1;
  atax_gen_cmd->add_option("COLS", gen_cols, "columns (the width; entries of x and y)")->required();
  atax_gen_cmd->add_option("ROWS", gen_rows, "rows (the height)")->required();
  atax_gen_cmd->add_option("-o,--output", gen_out, "file to write (default: atax-COLSxROWS.bin)");
  atax_gen_cmd->add_option("--seed", gen_seed, "seed of the random values")->capture_default_str();
  auto* atax_run_cmd = atax->add_subcommand("run", "load a file, compute y on the GPU, print the times, write the result file");
  std::string run_input, run_output, run_variant = "5";  // the library, gpulab::atax
  int run_reps = 20;
  atax_run_cmd->add_option("FILE", run_input, "the input file")->required();
  atax_run_cmd->add_option("-o,--output", run_output, "result file (default: FILE with -out.bin)");
  atax_run_cmd->add_option("--variant", run_variant, "rung id or name (see `gpulab list`)")->capture_default_str();
  atax_run_cmd->add_option("--reps", run_reps, "timed repetitions (median reported)")->check(CLI::Range(1, 10000))->capture_default_str();
  auto* atax_check_cmd = atax->add_subcommand("check", "recompute y serially and compare with a result file");
  std::string check_input, check_result;
  atax_check_cmd->add_option("FILE", check_input, "the input file (matrix and vector)")->required();
  atax_check_cmd->add_option("OUT", check_result, "the result file to check")->required();

  auto* suite = app.add_subcommand("suite", "measure the ceilings and run every problem's ladder with its defaults");
  OutputFiles suite_files;
  suite_files.add_to(suite);

  std::vector<std::string> argv_tail(args.begin() + (args.empty() ? 0 : 1), args.end());
  std::reverse(argv_tail.begin(), argv_tail.end());  // CLI11 takes the arguments reversed
  try {
    app.parse(argv_tail);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e, out, err);
    return code == 0 ? kExitOk : kExitUsage;
  }
  try {  // the rest of the command line is checked before any GPU work
    if (bench_reduce_cmd->parsed()) {
      reduce_cfg.sizes = *parse_size_list(sizes_text);
      reduce_cfg.types = parse_types(types_text);
      reduce_opts.apply_to(reduce_cfg);
      validate(reduce_cfg);
    }
    if (bench_atax_cmd->parsed()) {
      atax_cfg.shapes.clear();
      for (const auto& item : split_commas(shapes_text)) {
        const auto shape = parse_atax_shape(item);
        if (!shape) throw Error(fmt::format("atax: '{}' is not a shape like 8960x17920 (columns x rows, each 1 to 2^31-1)", item));
        atax_cfg.shapes.push_back(*shape);
      }
      if (atax_cfg.shapes.empty()) throw Error("atax: the list of shapes is empty");
      atax_opts.apply_to(atax_cfg);
      validate(atax_cfg);
    }
    if (atax_run_cmd->parsed()) require_variants(atax_variants(), {run_variant}, "atax");
    if (bench_histogram_cmd->parsed()) {
      histogram_cfg.sizes = *parse_size_list(hist_sizes_text);
      histogram_cfg.bins.clear();
      const std::vector<std::size_t> bins = *parse_size_list(bins_text);
      for (std::size_t m : bins) {
        if (m == 0 || m > 0xFFFFFFFFull) throw Error(fmt::format("histogram: m = {} bins; m must be in [1, 2^32)", m));
        histogram_cfg.bins.push_back(static_cast<std::uint32_t>(m));
      }
      histogram_cfg.distributions = parse_distributions(dist_text);
      histogram_opts.apply_to(histogram_cfg);
      validate(histogram_cfg);
    }
  } catch (const Error& e) {
    err << "gpulab: " << e.what() << "\nRun with --help for more information.\n";
    return kExitUsage;
  }

  try {
    if (list->parsed()) {
      list_problems(out);
      return kExitOk;
    }
    if (atax_gen_cmd->parsed()) {
      try {
        validate_atax_shape(gen_cols, gen_rows);
      } catch (const Error& e) {
        err << "gpulab: " << e.what() << "\nRun with --help for more information.\n";
        return kExitUsage;
      }
      const AtaxShape shape{static_cast<std::uint32_t>(gen_cols), static_cast<std::uint32_t>(gen_rows)};
      return atax_gen(shape, gen_out.empty() ? fmt::format("atax-{}x{}.bin", gen_cols, gen_rows) : gen_out, gen_seed, out);
    }
    if (atax_check_cmd->parsed()) return atax_check(check_input, check_result, out);
    const DeviceFacts device = open_device(device_index);
    if (info->parsed()) {
      print_device_facts(out, device);
      return kExitOk;
    }
    if (ceilings_cmd->parsed()) {
      Report report = new_report(args, device);
      report.ceilings = measure_ceilings(device, ceiling_reps);
      print_terminal(out, report);
      write_outputs(report, ceiling_files);
      return kExitOk;
    }
    const bool is_suite = suite->parsed();
    if (atax_run_cmd->parsed())
      return atax_run(run_input, run_output, *find_atax_variant(run_variant), run_reps, device, out);
    const bool histogram_only = bench_histogram_cmd->parsed();
    const bool atax_only = bench_atax_cmd->parsed();
    const BenchOptions& opts = histogram_only ? histogram_opts : atax_only ? atax_opts : reduce_opts;
    Report report = new_report(args, device);
    if (is_suite || !opts.no_ceilings) {
      err << "measuring ceilings…\n";
      report.ceilings = measure_ceilings(device);
    }
    const Ceilings* ceilings = report.ceilings ? &*report.ceilings : nullptr;
    auto append = [&report](std::vector<CaseResult> cases) {
      for (auto& c : cases) report.cases.push_back(std::move(c));
    };
    if (is_suite) {
      append(bench_reduce(ReduceBenchConfig{}, device, ceilings, err));
      append(bench_histogram(HistogramBenchConfig{}, device, ceilings, err));
      append(bench_atax(AtaxBenchConfig{}, device, ceilings, err));
    } else if (atax_only) {
      append(bench_atax(atax_cfg, device, ceilings, err));
    } else if (histogram_only) {
      append(bench_histogram(histogram_cfg, device, ceilings, err));
    } else {
      append(bench_reduce(reduce_cfg, device, ceilings, err));
    }
    print_terminal(out, report);
    write_outputs(report, is_suite ? suite_files : opts.files);
    if (!all_checks_passed(report)) {
      err << "gpulab: some results were wrong (see FAILED above)\n";
      return kExitFailure;
    }
    return kExitOk;
  } catch (const NoDeviceError& e) {
    err << "gpulab: " << e.what() << "\n";
    return kExitNoDevice;
  } catch (const std::exception& e) {
    err << "gpulab: " << e.what() << "\n";
    return kExitFailure;
  }
}

}  // namespace gpulab
