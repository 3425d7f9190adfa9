// The `gpulab` program. It knows problems only through the registry (src/problems.cpp) and the
// Problem interface: every `bench NAME`, `run NAME`, `list` line, help text and suite entry comes
// from there.
#include "cli/cli.hpp"

#include "core/bench.hpp"
#include "core/ceilings.hpp"
#include "core/clocks.hpp"
#include "core/compare.hpp"
#include "core/device_info.hpp"
#include "core/launches.hpp"
#include "core/memory.hpp"
#include "core/page.hpp"
#include "core/problem.hpp"
#include "core/process.hpp"
#include "core/profile.hpp"
#include "core/progress.hpp"
#include "core/report.hpp"
#include "core/sanitizer.hpp"
#include "core/sizes.hpp"
#include "lib/treat_as.hpp"
#include "multi/multi_bench.hpp"
#include "multi/world.hpp"

#include <gpulab/error.hpp>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>

#include <unistd.h>

#ifndef GPULAB_GIT_COMMIT
#define GPULAB_GIT_COMMIT "unknown"
#endif

namespace gpulab {
namespace {

constexpr const char* kVersion = "0.1.0";

struct OutputFiles {
  std::string json, csv, md, html;
  bool no_page = false;
  void add_to(CLI::App* app, bool page_by_default = false) {
    app->add_option("--json", json, "also write the report as JSON to this file");
    app->add_option("--csv", csv, "also write the report as CSV to this file");
    app->add_option("--md", md, "also write the report as Markdown to this file");
    app->add_option("--html", html, page_by_default ? "the page's file (default: the JSON's, ending .html)"
                                                    : "also write a page with tables and charts to this file");
    if (page_by_default) app->add_flag("--no-page", no_page, "write no page beside the JSON");
  }
  /// The suite's page goes beside its JSON unless asked otherwise.
  void default_page() {
    if (html.empty() && !no_page && !json.empty())
      html = std::filesystem::path(json).replace_extension(".html").string();
  }
};

void write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  if (!f) throw Error("cannot open '" + path + "' for writing");
  f << text;
  f.close();
  if (!f) throw Error("could not write '" + path + "'");
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error("cannot open '" + path + "'");
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

Report read_report(const std::string& path) {
  const auto j = nlohmann::ordered_json::parse(read_file(path), nullptr, false);
  if (j.is_discarded()) throw Error("'" + path + "' is not JSON");
  try {
    return report_from_json(j);
  } catch (const Error& e) {
    throw Error("'" + path + "': " + e.what());
  }
}

/// A scratch file removed when it goes out of scope.
struct ScratchFile {
  std::string path;
  explicit ScratchFile(const std::string& suffix)
      : path((std::filesystem::temp_directory_path() / fmt::format("gpulab-{}-{}{}", getpid(), counter()++, suffix)).string()) {}
  ~ScratchFile() {
    std::error_code ec;
    std::filesystem::remove(path, ec);
  }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;
  static int& counter() {
    static int n = 0;
    return n;
  }
};

/// The page of reports, each with the file it is in (the charts are drawn from those files).
void write_page(const std::vector<std::pair<std::string, Report>>& runs, const std::string& html, bool charts,
                std::ostream& err) {
  std::vector<std::string> args{"report"};
  for (const auto& run : runs) args.push_back(run.first);
  Plots plots;
  if (charts) plots = draw_plots(args);
  else plots.missing = "asked for none (--no-charts)";
  if (charts && !plots.missing.empty()) err << "gpulab: the page has no charts: " << plots.missing << "\n";
  write_file(html, report_page(runs, plots));
}

void write_outputs(const Report& report, const OutputFiles& files, std::ostream& err) {
  const std::string json = to_json(report).dump(2) + "\n";
  if (!files.json.empty()) write_file(files.json, json);
  if (!files.csv.empty()) write_file(files.csv, to_csv(report));
  if (!files.md.empty()) write_file(files.md, to_markdown(report));
  if (!files.html.empty()) {
    std::optional<ScratchFile> scratch;  // the charts are drawn from a file
    if (files.json.empty()) write_file(scratch.emplace(".json").path, json);
    const std::string path = files.json.empty() ? scratch->path : files.json;
    write_page({{path, report}}, files.html, true, err);
  }
}

/// The options every `bench PROBLEM` has (the harness's), beside the problem's own.
struct BenchOptions {
  std::string variants;
  int reps = 0, warmup = 3, end_to_end_reps = 3, loops = 0;
  std::vector<int> gpus;  // not empty: the problem's multi-GPU form on these numbers of GPUs (and on one)
  bool weak = false;  // with gpus: the sizes are per GPU
  std::vector<std::string> placements{"resident", "host"};
  std::uint64_t seed = 1;
  bool no_cpu = false, no_ceilings = false;
  OutputFiles files;

  /// `multi_gpu_problems`: the problems with a multi-GPU form, named in --gpus's help.
  void add_to(CLI::App* app, const std::string& multi_gpu_problems) {
    app->add_option("--variants", variants, "rungs by number or name, library, vendor (comma list; default: all)");
    app->add_option("--reps", reps, "timed repetitions (median reported)")->check(CLI::Range(1, 100000))->capture_default_str();
    app->add_option("--warmup", warmup, "untimed warm-up runs")->check(CLI::Range(0, 1000))->capture_default_str();
    app->add_option("--e2e-reps", end_to_end_reps, "repetitions of the end-to-end timing")
        ->check(CLI::Range(1, 1000))->capture_default_str();
    app->add_option("--loops", loops, "also run each rung as a whole program LOOPS times and show where the time goes (allocation, copies in and out, the kernel)")
        ->check(CLI::Range(0, 1000))->capture_default_str();
    app->add_option("--seed", seed, "seed of the random input")->capture_default_str();
    app->add_flag("--no-cpu", no_cpu, "skip timing the CPU baseline (the reference still checks)");
    app->add_flag("--no-ceilings", no_ceilings, "do not measure the ceilings first");
    files.add_to(app);
    app->add_option("--gpus", gpus,
                    "split each case over N GPUs of this host through NCCL (" + multi_gpu_problems + "): 1 and N GPUs "
                    "timed in the same run, with NCCL's bus bandwidth and what the host gives them; a comma list (2,4) "
                    "times each count in the same run")
        ->delimiter(',')
        ->check(CLI::Range(1, 1024));
    app->add_option("--placement", placements,
                    "with --gpus: resident (each GPU holds its shard) and/or host (the data starts in host memory)")
        ->delimiter(',')
        ->check(CLI::IsMember({"resident", "host"}))
        ->capture_default_str();
    app->add_flag("--weak", weak,
                  "with --gpus: weak scaling, the sizes are per GPU (elements, or rows of A or of the image): the N-GPU rows run "
                  "N times the one-GPU rows' work");
  }
};

/// One problem's `bench NAME` (or `run`, `check`, `profile NAME`): its own instance, so its options
/// bind to it.
struct ProblemCommand {
  std::unique_ptr<Problem> problem;
  CLI::App* app = nullptr;
  BenchOptions options;
  bool markers = false;     // check --markers: a line before and after each rung (for `sanitize`)
  std::string ncu{};        // profile --ncu
  bool ncu_target = false;  // profile --ncu-target: the run under ncu (launches in NVTX ranges)
};

/// A new instance of the i-th problem of the registry: its options at their defaults.
std::unique_ptr<Problem> fresh_problem(std::size_t i) {
  auto all = make_problems();
  return std::move(all.at(i));
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
  r.clocks_start = read_clocks(device.index);
  return r;
}

std::string ladder_listing(const Problem& p) {
  std::string s = fmt::format("{} — {}\n  ({})\n", p.name(), p.summary(), p.semantics());
  const auto ladder = p.ladder();
  for (std::size_t i = 0; i < ladder.size(); ++i) {
    const RungInfo& r = ladder[i];
    const char* role = r.role == Role::library ? " [library]" : "";
    const std::string needs = needs_text(r.needs);
    s += fmt::format("  {:>6}  {:<27} {}{}{}\n", rung_id(ladder, i), r.name, r.adds, role, needs.empty() ? "" : " [" + needs + "]");
  }
  return s;
}

std::string footer(const std::vector<std::unique_ptr<Problem>>& problems) {
  std::string s = "Semantics:\n";
  for (const auto& p : problems) s += fmt::format("  {}: {}.\n", p->name(), p->semantics());
  s += "Rungs are named by number (their place in `gpulab list`), name, `library` or `vendor`.\n"
       "Exit codes: 0 ok, 1 a check failed (or a sanitizer found an error) or a run-time error, 2 bad command\n"
       "line, 3 no CUDA device, 4 (compare) a row got slower beyond its noise, 5 a tool it needs (ncu,\n"
       "compute-sanitizer) is missing.";
  return s;
}

/// Every case of `cmd`'s problem through the harness, into `report`.
void bench_problem(const ProblemCommand& cmd, const DeviceFacts& device, Report& report, Progress& progress) {
  BenchSettings s;
  s.ladder = cmd.problem->ladder();
  s.rungs = select_rungs(s.ladder, split_commas(cmd.options.variants), cmd.problem->name());
  s.reps = cmd.options.reps > 0 ? cmd.options.reps : cmd.problem->default_reps();
  s.warmup = cmd.options.warmup;
  s.end_to_end_reps = cmd.options.end_to_end_reps;
  s.loops = cmd.options.loops;
  s.cpu = !cmd.options.no_cpu;
  const Ceilings* ceilings = report.ceilings ? &*report.ceilings : nullptr;
  cmd.problem->for_each_case(cmd.options.seed, [&](BenchCase& c) {
    CaseResult r = run_case(c, s, device, ceilings, progress);
    r.problem = std::string(cmd.problem->name());
    report.cases.push_back(std::move(r));
  });
}

/// `gpulab run NAME`: one rung on each case, checked, with every launch printed.
int run_problem(const ProblemCommand& cmd, const std::string& variant, int reps, const DeviceFacts& device,
                std::ostream& out) {
  const auto ladder = cmd.problem->ladder();
  const std::size_t rung = find_rung(ladder, variant, cmd.problem->name());
  bool all_ok = true;
  cmd.problem->for_each_case(cmd.options.seed, [&](BenchCase& c) {
    out << cmd.problem->name() << "  " << params_text(c.params(), "  ") << "\n";
    if (auto why = why_not_run(c, ladder, rung, device)) {
      out << "* " << ladder[rung].name << ": " << *why << "; not run\n\n";
      return;
    }
    require_case_fits(c, std::span(&rung, 1), device.l2_bytes);
    c.compute_reference();
    Stream stream;
    const DeviceArrays arrays(c, stream.get());
    const OwnedWorkspace ws(c, rung, stream.get());
    const CheckResult check = run_checked(c, rung, arrays, ws.get(), stream.get());
    const TimingStats t = print_launches(c, rung, ladder[rung], arrays, ws.get(), reps, device.l2_bytes, stream.get(), out);
    out << fmt::format("* Time of the rung: {:.4f} ms median of {} ({:.4f}..{:.4f}), {:.1f} GB/s\n", t.median_ms, t.reps,
                       t.min_ms, t.max_ms, c.work().bytes / (t.median_ms * 1e6));
    out << (check.ok ? "* Check: OK\n\n" : "* Check: FAILED: " + check.detail + "\n\n");
    all_ok = all_ok && check.ok;
  });
  return all_ok ? kExitOk : kExitFailure;
}

/// `gpulab check NAME`: every selected rung once on each case, checked (fresh arrays each time), no
/// timing. With --markers each rung's run is enclosed in the lines `sanitize` attributes reports by.
int check_problem(const ProblemCommand& cmd, const DeviceFacts& device, std::ostream& out) {
  const auto ladder = cmd.problem->ladder();
  const auto rungs = select_rungs(ladder, split_commas(cmd.options.variants), cmd.problem->name());
  std::vector<std::string> failed;
  std::map<std::size_t, std::string> skipped;  // rungs this GPU cannot run, each with its line once
  std::size_t case_index = 0;
  cmd.problem->for_each_case(cmd.options.seed, [&](BenchCase& c) {
    c.compute_reference();
    std::string line = fmt::format("{}  {}:", cmd.problem->name(), params_text(c.params(), "  "));
    for (std::size_t r : rungs) {
      const std::string id = rung_id(ladder, r);
      if (auto unmet = unmet_needs(ladder[r], device.compute_capability())) skipped.emplace(r, *unmet);
      if (why_not_run(c, ladder, r, device)) {
        line += " " + id + " –";
        continue;
      }
      require_case_fits(c, std::span(&r, 1), device.l2_bytes);
      if (cmd.markers) out << begin_marker(r, case_index) << std::endl;  // flushed: the tool writes between
      const CheckResult result = run_checked(c, r);
      if (cmd.markers) out << end_marker(r, result.ok, result.detail) << std::endl;
      line += " " + id + (result.ok ? " ok" : " FAILED");
      if (!result.ok)
        failed.push_back(fmt::format("{} {} at {}: {}", id, ladder[r].name, params_text(c.params()), result.detail));
    }
    out << line << "\n" << std::flush;
    ++case_index;
  });
  for (const auto& [r, unmet] : skipped) out << "skipped " << rung_id(ladder, r) << " " << ladder[r].name << ": " << unmet << "\n";
  for (const auto& f : failed) out << "FAILED " << f << "\n";
  out << fmt::format("{} case(s), {} rung(s): {}\n", case_index, rungs.size(),
                     failed.empty() ? "every result right" : fmt::format("{} wrong", failed.size()));
  return failed.empty() ? kExitOk : kExitFailure;
}

/// `gpulab sanitize`: each rung of each named problem at its small edge sizes under each tool.
std::vector<SanitizerRow> sanitize_problems(const std::vector<std::unique_ptr<Problem>>& registry,
                                            const std::vector<std::string>& only, const std::vector<std::string>& tools,
                                            const std::string& sanitizer, int device_index, std::ostream& out) {
  std::vector<SanitizerRow> rows;
  for (const auto& p : registry) {
    if (!only.empty() && std::find(only.begin(), only.end(), p->name()) == only.end()) continue;
    const auto ladder = p->ladder();
    SanitizeJob job;
    job.sanitizer = sanitizer;
    job.child_args = {executable_path(), "--device", std::to_string(device_index), "check", std::string(p->name())};
    for (const auto& a : p->sanitize_args()) job.child_args.push_back(a);
    job.child_args.push_back("--markers");
    for (std::size_t r = 0; r < ladder.size(); ++r) {
      job.rung_indices.push_back(r);
      job.rung_ids.push_back(rung_id(ladder, r));
    }
    std::map<std::size_t, SanitizerRow> by_rung;
    for (const auto& tool : tools) {
      const auto start = std::chrono::steady_clock::now();
      int passed = 0, failed = 0;
      for (auto& [r, verdict] : run_sanitizer(job, tool)) {
        SanitizerRow& row = by_rung[r];
        if (row.tools.empty()) {
          row.problem = std::string(p->name());
          row.id = r == kOutsideRungs ? "–" : rung_id(ladder, r);
          row.name = r == kOutsideRungs ? "(outside every rung)" : std::string(ladder[r].name);
        }
        passed += verdict.verdict == "pass";
        failed += verdict.verdict == "fail";
        row.tools.push_back(std::move(verdict));
      }
      out << fmt::format("{} {}: {} pass, {} fail ({:.0f} s)\n", p->name(), tool, passed, failed,
                         std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count())
          << std::flush;
    }
    for (auto& [r, row] : by_rung) rows.push_back(std::move(row));
  }
  return rows;
}

/// An external tool `command` needs (`given` by its option, else $ENV, PATH, /usr/local/cuda/bin),
/// or "" after saying on `err` why none was found.
std::string needed_tool(const std::string& command, const std::string& tool, const std::string& described,
                        const std::string& given, const std::string& option, const char* env, std::ostream& err) {
  const std::string path = find_tool(tool, given, env);
  if (path.empty())
    err << "gpulab: " << command << " needs " << described << " and found none ("
        << (given.empty() ? fmt::format("not on PATH nor in /usr/local/cuda/bin; name it with {} or {}", option, env)
                          : "'" + given + "' is not an executable file")
        << ")\n";
  return path;
}

/// The words of the command line after `word` (the subcommand), to run the same command again.
std::vector<std::string> args_after(const std::vector<std::string>& args, const std::string& word) {
  const auto it = std::find(args.begin() + (args.empty() ? 0 : 1), args.end(), word);
  return it == args.end() ? std::vector<std::string>{} : std::vector<std::string>(it + 1, args.end());
}

/// What went wrong under ncu: its ==ERROR== lines and the target's own "gpulab:" lines.
std::string ncu_errors(const ProcessResult& r) {
  std::string lines;
  std::istringstream in(r.out + "\n" + r.err);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("==ERROR==", 0) == 0 || line.rfind("gpulab:", 0) == 0) lines += (lines.empty() ? "" : " | ") + line;
  return lines.empty() ? "(it printed no error)" : lines;
}

int finish_report(Report& report, const OutputFiles& files, std::ostream& out, std::ostream& err) {
  if (report.device) report.clocks_end = read_clocks(report.device->index);
  print_terminal(out, report);
  write_outputs(report, files, err);
  if (!all_checks_passed(report)) {
    err << "gpulab: some results were wrong (see FAILED above)\n";
    return kExitFailure;
  }
  return kExitOk;
}

/// The sizes NCCL's bus bandwidth is measured at: latency (8 B) to bandwidth (1 GiB).
const std::vector<std::size_t> kBusSizes{8, std::size_t{1} << 16, std::size_t{1} << 20, std::size_t{1} << 26, std::size_t{1} << 30};

/// `gpulab bench NAME --gpus N[,M…]`: what the host gives the GPUs and NCCL's bus bandwidth, then
/// every case on one GPU and on each count — all from this process, or, under `mpirun -np N`, one
/// rank per process — as a report (rank 0 prints and writes it; every process exits by the same rows).
int bench_multi_gpu(const ProblemCommand& cmd, const std::vector<std::string>& args, const DeviceFacts& device,
                    std::ostream& out, std::ostream& err) {
  const std::unique_ptr<World> world = launched_by_mpi() ? mpi_world() : single_process();
  std::vector<int> counts = cmd.options.gpus;
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  const int most_gpus = counts.back();
  const auto fail = [&](const std::string& what, int code) {
    // Who speaks: an MPI rank, or the one process that drives every GPU.
    const std::string who = world->size() > 1 ? fmt::format("rank {} of {}", world->rank(), world->size())
                                              : fmt::format("one process over {} GPU(s)", most_gpus);
    err << "gpulab (" << who << "): " << what << "\n" << std::flush;
    if (world->size() > 1) world->abort(code);  // never leave the other ranks waiting in a collective
    return code;
  };
  if (world->size() > 1 && (cmd.options.gpus.size() != 1 || world->size() != most_gpus))
    return fail(fmt::format("--gpus {} but the launcher started {} processes (one per GPU: mpirun -np {}, and one number of GPUs)",
                            fmt::join(cmd.options.gpus, ","), world->size(), most_gpus),
                kExitUsage);
  try {
    MultiSettings s;  // more GPUs than the host has: the communicators refuse, before any case
    s.gpus = counts;
    s.world = world.get();
    s.placements = cmd.options.placements;
    s.reps = cmd.options.reps > 0 ? cmd.options.reps : cmd.problem->default_reps();
    s.weak = cmd.options.weak;
    Report report = new_report(args, device);
    MultiGpuRun& run = report.multi_gpu.emplace();
    run.gpus = most_gpus;
    run.processes = world->size();
    run.host_links = measure_host_links(host_link_counts(s.gpus, world->size()), s.reps, world.get());
    run.bus = measure_bus_bandwidth(most_gpus, kBusSizes, s.reps, world.get(), s.timeout_s);
    cmd.problem->for_each_multi_case(cmd.options.seed, [&](const MultiCaseMaker& make) {
      run.cases.push_back(run_multi_case(make, s));
      run.cases.back().problem = std::string(cmd.problem->name());
    });
    if (world->rank() == 0) return finish_report(report, cmd.options.files, out, err);
    return all_checks_passed(report) ? kExitOk : kExitFailure;
  } catch (const UsageError& e) {
    return fail(e.what(), kExitUsage);
  } catch (const NoDeviceError& e) {
    return fail(e.what(), kExitNoDevice);
  } catch (const std::exception& e) {
    return fail(e.what(), kExitFailure);
  }
}

/// `showcase --parts`' words.
const std::map<std::string, ShowcasePart> kShowcaseParts{
    {"runs", ShowcasePart::runs},     {"profiles", ShowcasePart::profiles},   {"peers", ShowcasePart::peers},
    {"multi", ShowcasePart::multi},   {"multi-mpi", ShowcasePart::multi_mpi}, {"multi-weak", ShowcasePart::multi_weak},
    {"multi-more", ShowcasePart::multi_more}};

/// `gpulab showcase`: each part asked for, in turn; in each, every problem's recorded runs of that
/// part. gpulab's own runs go through this process (`program` is its argv[0]); peers scripts and
/// MPI's processes are started as programs, their output printed when they end. Returns the worst
/// exit code. `dry_run`: each command printed on a line instead.
int run_showcase(const std::vector<std::unique_ptr<Problem>>& registry, const std::vector<std::string>& only,
                 const std::vector<std::string>& parts, int gpus, const std::string& dir, int device_index,
                 const std::string& program, bool dry_run, std::ostream& out, std::ostream& err) {
  std::filesystem::create_directories(dir);
  const std::string tmp = (std::filesystem::path(dir) / "tmp").string();
  std::filesystem::create_directories(tmp);
  const auto report_path = [&](const std::string& name, const char* ext) {
    return (std::filesystem::path(dir) / (name + "." + ext)).string();
  };
  if (gpus == 0 && cudaGetDeviceCount(&gpus) != cudaSuccess) {  // no device: the runs themselves say so
    (void)cudaGetLastError();
    gpus = 1;
  }
  int worst = kExitOk;
  for (const std::string& part_name : parts) {
    const ShowcasePart part = kShowcaseParts.at(part_name);
    const bool multi = part == ShowcasePart::multi || part == ShowcasePart::multi_mpi || part == ShowcasePart::multi_weak ||
                       part == ShowcasePart::multi_more;
    if (part == ShowcasePart::multi_weak && gpus < 2 && !dry_run) {
      out << "== weak scaling: one GPU here, nothing to scale\n";
      continue;
    }
    for (const auto& p : registry) {
      if (!only.empty() && std::find(only.begin(), only.end(), p->name()) == only.end()) continue;
      for (const Showcase& s : p->showcase()) {
        if (s.part != part) continue;
        std::vector<std::string> words;
        for (std::string w : s.args) {
          if (const auto at = w.find("{tmp}"); at != std::string::npos) w.replace(at, 5, tmp);
          words.push_back(w);
        }
        // The one-process benches time 2, 4, … GPUs up to every GPU, so that the charts show the
        // scaling's course; MPI, weak scaling and the more shapes time every GPU alone (the time of a call).
        if (multi)
          words.insert(words.end(), {"--gpus", part == ShowcasePart::multi ? fmt::format("{}", fmt::join(gpu_counts_up_to(gpus), ","))
                                                                           : std::to_string(gpus)});
        if (s.reports && part == ShowcasePart::peers) words.insert(words.end(), {"--json", report_path(s.name, "json")});
        else if (s.reports)
          for (const char* ext : {"json", "md", "csv"}) words.insert(words.end(), {std::string("--") + ext, report_path(s.name, ext)});
        std::vector<std::string> argv;  // the peers script's interpreter, MPI over this program, or this program
        if (part == ShowcasePart::peers) argv = {"python3"};
        else if (part == ShowcasePart::multi_mpi) argv = {"mpirun", "-np", std::to_string(gpus), executable_path()};
        else argv = {program, "--device", std::to_string(device_index)};
        argv.insert(argv.end(), words.begin(), words.end());
        if (dry_run) {
          for (std::size_t i = 0; i < argv.size(); ++i) out << (i ? " " : "") << argv[i];
          out << "\n";
          continue;
        }
        if (!s.what.empty()) out << "== " << s.what << "\n" << std::flush;
        int code = kExitOk;
        if (part == ShowcasePart::peers || part == ShowcasePart::multi_mpi) {
          if (part == ShowcasePart::peers && !std::filesystem::exists(words.front())) {
            out << s.name << ": skipped, " << words.front() << " not found (peers scripts run from the source tree)\n";
            continue;
          }
          try {
            const ProcessResult r = run_process(argv, true);
            out << r.out;
            code = r.exit_code;
          } catch (const Error& e) {
            err << "gpulab: " << s.name << ": " << e.what() << "\n";
            code = kExitFailure;
          }
        } else {
          code = run_cli(argv, out, err);
        }
        out << s.name << " exit code: " << code << "\n" << std::flush;
        worst = std::max(worst, code);
      }
    }
  }
  std::filesystem::remove_all(tmp);
  return worst;
}

}  // namespace

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const std::vector<std::unique_ptr<Problem>> registry = make_problems();
  std::string multi_gpu_problems;  // "NAME, NAME, …": the registry's problems with a multi-GPU form
  for (const auto& p : registry)
    if (p->has_multi_gpu()) multi_gpu_problems += (multi_gpu_problems.empty() ? "" : ", ") + std::string(p->name());
  CLI::App app{"gpulab — a laboratory and library of classic data-parallel GPU problems", "gpulab"};
  app.footer(footer(registry));
  app.require_subcommand(1, 1);
  int device_index = 0;
  app.add_option("--device", device_index, "CUDA device index")->check(CLI::NonNegativeNumber);
  std::string treat_as;
  app.add_option("--treat-as", treat_as,
                 "treat the GPU as an older family (" + gpu_family_names() +
                     "): its compute capability and limits in every choice; with a build of that family's PTX alone, its "
                     "kernels (sets GPULAB_TREAT_AS; the device line says so)")
      ->check([](const std::string& word) {
        return gpu_family(word) ? std::string() : "not one of " + gpu_family_names();
      });
  app.set_version_flag("--version", std::string(kVersion) + " (" GPULAB_GIT_COMMIT ")");

  auto* info = app.add_subcommand("info", "print the device's facts (seeds 000/003, 004's cudastats)");
  auto* ceilings_cmd = app.add_subcommand("ceilings", "measure copy, read, write, L2, FMA and the TF32 and INT8 tensor ceilings");
  int ceiling_reps = 20;
  ceilings_cmd->add_option("--reps", ceiling_reps, "repetitions per ceiling")->check(CLI::Range(1, 10000));
  int ceiling_gpus = 0;
  ceilings_cmd
      ->add_option("--gpus", ceiling_gpus,
                   "also what the host gives 1, 2, 4 … N GPUs copying at once (pinned) and NCCL's bus bandwidth over N")
      ->check(CLI::Range(1, 1024));
  bool ceiling_in_flight = false;
  ceilings_cmd->add_flag("--in-flight", ceiling_in_flight,
                         "also the read at 2 KiB to 256 KiB in flight an SM (warps an SM x loads a thread): what a kernel must keep in flight here");
  OutputFiles ceiling_files;
  ceiling_files.add_to(ceilings_cmd);
  auto* list = app.add_subcommand("list", "list the problems and their rungs");
  std::vector<std::string> list_only;
  list->add_option("PROBLEM", list_only, "only these problems (default: all)");

  auto* bench = app.add_subcommand("bench", "check and time one problem's ladder");
  bench->require_subcommand(1, 1);
  auto* run = app.add_subcommand("run", "one rung of one problem: checked, each kernel launch printed with its time");
  run->require_subcommand(1, 1);
  auto* check = app.add_subcommand("check", "every rung of one problem once on each case, checked against the CPU, untimed");
  check->require_subcommand(1, 1);
  auto* profile = app.add_subcommand(
      "profile", "one problem's ladder timed and checked, with Nsight Compute's counters of each rung (needs ncu)");
  profile->require_subcommand(1, 1);
  std::string run_variant = "library";
  int run_reps = 20;
  // Each command owns its problem instance and options where CLI11 can bind to them for good.
  std::vector<std::unique_ptr<ProblemCommand>> benches, runs, checks, profiles;
  for (const auto& p : registry) {
    for (auto* parent : {bench, run, check, profile}) {
      auto cmd = std::make_unique<ProblemCommand>();
      cmd->problem = fresh_problem(static_cast<std::size_t>(&p - registry.data()));
      cmd->app = parent->add_subcommand(std::string(p->name()), std::string(p->summary()));
      cmd->app->footer("Rungs:\n" + ladder_listing(*p));
      cmd->problem->add_options(*cmd->app);
      if (parent == bench || parent == profile) {
        cmd->options.reps = p->default_reps();
        cmd->options.add_to(cmd->app, multi_gpu_problems);
      }
      if (parent == bench) {
        benches.push_back(std::move(cmd));
      } else if (parent == profile) {
        cmd->app->add_option("--ncu", cmd->ncu, "Nsight Compute's ncu (default: $GPULAB_NCU, PATH, /usr/local/cuda/bin)");
        cmd->app->add_flag("--ncu-target", cmd->ncu_target)->group("");  // the run ncu measures
        profiles.push_back(std::move(cmd));
      } else if (parent == check) {
        cmd->app->add_option("--variants", cmd->options.variants, "rungs by number or name, library, vendor (default: all)");
        cmd->app->add_option("--seed", cmd->options.seed, "seed of the random input")->capture_default_str();
        cmd->app->add_flag("--markers", cmd->markers)->group("");  // for `gpulab sanitize`
        checks.push_back(std::move(cmd));
      } else {
        cmd->app->add_option("--variant", run_variant, "rung number or name, library or vendor")->capture_default_str();
        cmd->app->add_option("--reps", run_reps, "timed repetitions")->check(CLI::Range(1, 10000))->capture_default_str();
        cmd->app->add_option("--seed", cmd->options.seed, "seed of the random input")->capture_default_str();
        runs.push_back(std::move(cmd));
      }
    }
  }
  std::vector<Command> commands;
  for (const auto& p : registry)
    for (auto& c : p->add_commands(app)) commands.push_back(std::move(c));

  auto* suite = app.add_subcommand("suite", "measure the ceilings and run every problem's ladder with its defaults");
  OutputFiles suite_files;
  suite_files.add_to(suite, true);
  bool suite_sanitize = false;
  suite->add_flag("--sanitize", suite_sanitize, "also run `gpulab sanitize` on every problem (needs compute-sanitizer)");

  auto* sanitize = app.add_subcommand(
      "sanitize", "each rung at its problem's small edge sizes under compute-sanitizer's memcheck, racecheck, synccheck, initcheck");
  std::vector<std::string> sanitize_only, sanitize_tools(std::begin(kSanitizerTools), std::end(kSanitizerTools));
  std::string sanitizer_option;
  OutputFiles sanitize_files;
  sanitize->add_option("PROBLEM", sanitize_only, "only these problems (default: all)");
  sanitize->add_option("--tools", sanitize_tools, "the tools, a comma list")
      ->delimiter(',')
      ->check(CLI::IsMember(std::vector<std::string>(std::begin(kSanitizerTools), std::end(kSanitizerTools))))
      ->capture_default_str();
  for (auto* cmd : {sanitize, suite})
    cmd->add_option("--compute-sanitizer", sanitizer_option,
                    "compute-sanitizer's path (default: $GPULAB_COMPUTE_SANITIZER, PATH, /usr/local/cuda/bin)");
  sanitize_files.add_to(sanitize);
  auto* showcase = app.add_subcommand(
      "showcase", "the runs worth recording: every ladder, the seeds' own tables, profiles, peers and multi-GPU benches");
  std::string showcase_dir;
  std::vector<std::string> showcase_only;
  std::vector<std::string> showcase_parts{"runs", "profiles", "peers"};
  int showcase_gpus = 0;
  showcase->add_option("--out", showcase_dir, "folder for the reports (NAME.json, .md, .csv)")->required();
  showcase->add_option("PROBLEM", showcase_only, "only these problems (default: all)");
  showcase
      ->add_option("--parts", showcase_parts,
                   "runs (benches, tools), profiles (Nsight Compute), peers (Python scripts of the source tree), multi, "
                   "multi-mpi, multi-weak, multi-more (benches over GPUs); default: runs,profiles,peers")
      ->delimiter(',')
      ->check(CLI::IsMember(kShowcaseParts));
  showcase->add_option("--gpus", showcase_gpus, "GPUs of the multi-GPU parts (default: every GPU of this host)")
      ->check(CLI::Range(1, 1024));
  bool showcase_dry_run = false;
  showcase->add_flag("--dry-run", showcase_dry_run, "print each command, one a line, instead of running it");

  auto* report_cmd = app.add_subcommand("report", "one self-contained HTML page of JSON reports: device, ceilings, every table and chart");
  std::vector<std::string> report_inputs;
  std::string report_out;
  bool report_no_charts = false;
  report_cmd->add_option("RUN", report_inputs, "JSON reports (bench, suite or showcase --json)")->required()->check(CLI::ExistingFile);
  report_cmd->add_option("-o,--out", report_out, "the page to write")->required();
  report_cmd->add_flag("--no-charts", report_no_charts, "tables only (the charts need python3 with matplotlib)");

  auto* compare_cmd = app.add_subcommand(
      "compare", "two runs side by side: each row's ratio and whether it moved beyond its noise; exit code 4 when a row got slower");
  std::string compare_a, compare_b, compare_html, compare_md, compare_json;
  CompareOptions compare_options;
  bool compare_no_charts = false;
  compare_cmd->add_option("A", compare_a, "the reference run's JSON report")->required()->check(CLI::ExistingFile);
  compare_cmd->add_option("B", compare_b, "the run judged against it")->required()->check(CLI::ExistingFile);
  compare_cmd->add_option("--alpha", compare_options.alpha, "significance level of the rank test")
      ->check(CLI::Range(1e-9, 0.5))->capture_default_str();
  compare_cmd->add_option("--min-change", compare_options.min_change, "smallest change that counts, as a fraction")
      ->check(CLI::Range(0.0, 10.0))->capture_default_str();
  compare_cmd->add_option("--min-change-us", compare_options.min_change_us, "smallest change of a median that counts, µs")
      ->check(CLI::Range(0.0, 1e9))->capture_default_str();
  compare_cmd->add_option("--html", compare_html, "also write the comparison as a page");
  compare_cmd->add_option("--md", compare_md, "also write it as Markdown");
  compare_cmd->add_option("--json", compare_json, "also write it as JSON");
  compare_cmd->add_flag("--no-charts", compare_no_charts, "a page without charts");

  std::vector<std::string> argv_tail(args.begin() + (args.empty() ? 0 : 1), args.end());
  std::reverse(argv_tail.begin(), argv_tail.end());  // CLI11 takes the arguments reversed
  try {
    app.parse(argv_tail);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e, out, err);
    return code == 0 ? kExitOk : kExitUsage;
  }
  // Before anything asks the device: the library and the processes started from here read it.
  if (!treat_as.empty()) setenv("GPULAB_TREAT_AS", treat_as.c_str(), 1);
  // The rest of the command line is checked before any GPU work.
  auto parsed_in = [](const std::vector<std::unique_ptr<ProblemCommand>>& cmds) -> const ProblemCommand* {
    for (const auto& c : cmds)
      if (c->app->parsed()) return c.get();
    return nullptr;
  };
  const ProblemCommand* bench_cmd = parsed_in(benches);
  const ProblemCommand* run_cmd = parsed_in(runs);
  const ProblemCommand* check_cmd = parsed_in(checks);
  const ProblemCommand* profile_cmd = parsed_in(profiles);
  try {
    for (const ProblemCommand* c : {bench_cmd, run_cmd, check_cmd, profile_cmd}) {
      if (!c) continue;
      c->problem->validate();
      const auto ladder = c->problem->ladder();
      if (c == run_cmd) find_rung(ladder, run_variant, c->problem->name());
      else select_rungs(ladder, split_commas(c->options.variants), c->problem->name());
      if (!c->options.gpus.empty() && c == profile_cmd) throw UsageError("profile takes one GPU (no --gpus)");
      if (c->options.weak && c->options.gpus.empty()) throw UsageError("--weak goes with --gpus N (weak scaling over N GPUs)");
      if (!c->options.gpus.empty() && !c->problem->has_multi_gpu())
        throw UsageError(std::string(c->problem->name()) + " has no multi-GPU form (--gpus: " + multi_gpu_problems + ")");
    }
    for (const auto* names : {&showcase_only, &sanitize_only, &list_only})
      for (const auto& name : *names)
        if (std::none_of(registry.begin(), registry.end(), [&](const auto& p) { return p->name() == name; }))
          throw UsageError("no problem '" + name + "' (see `gpulab list`)");
  } catch (const Error& e) {
    err << "gpulab: " << e.what() << "\nRun with --help for more information.\n";
    return kExitUsage;
  }
  // The external tools are looked for before any GPU work too.
  std::string ncu, sanitizer;
  if (profile_cmd && !profile_cmd->ncu_target) {
    ncu = needed_tool("profile", "ncu", "Nsight Compute's command-line profiler, ncu", profile_cmd->ncu, "--ncu",
                      "GPULAB_NCU", err);
    if (ncu.empty()) return kExitMissingTool;
  }
  if (sanitize->parsed() || suite_sanitize) {
    sanitizer = needed_tool(sanitize->parsed() ? "sanitize" : "suite --sanitize", "compute-sanitizer",
                            "compute-sanitizer (CUDA toolkit)", sanitizer_option, "--compute-sanitizer",
                            "GPULAB_COMPUTE_SANITIZER", err);
    if (sanitizer.empty()) return kExitMissingTool;
  }

  try {
    if (list->parsed()) {
      for (const auto& p : registry)
        if (list_only.empty() || std::find(list_only.begin(), list_only.end(), p->name()) != list_only.end())
          out << ladder_listing(*p) << "\n";
      return kExitOk;
    }
    if (showcase->parsed())
      return run_showcase(registry, showcase_only, showcase_parts, showcase_gpus, showcase_dir, device_index,
                          args.empty() ? "gpulab" : args[0], showcase_dry_run, out, err);
    if (report_cmd->parsed()) {
      std::vector<std::pair<std::string, Report>> pages;
      for (const auto& path : report_inputs) pages.emplace_back(path, read_report(path));
      write_page(pages, report_out, !report_no_charts, err);
      out << "wrote " << report_out << "\n";
      return kExitOk;
    }
    if (compare_cmd->parsed()) {
      const Comparison c = compare_reports(read_report(compare_a), read_report(compare_b), compare_options, compare_a, compare_b);
      print_comparison(out, c);
      const std::string json = comparison_json(c).dump(2) + "\n";
      if (!compare_json.empty()) write_file(compare_json, json);
      if (!compare_md.empty()) write_file(compare_md, comparison_markdown(c));
      if (!compare_html.empty()) {
        Plots plots;
        if (compare_no_charts) {
          plots.missing = "asked for none (--no-charts)";
        } else {
          const ScratchFile scratch(".json");
          write_file(scratch.path, json);
          plots = draw_plots({"compare", scratch.path});
          if (!plots.missing.empty()) err << "gpulab: the page has no charts: " << plots.missing << "\n";
        }
        write_file(compare_html, comparison_page(c, plots));
      }
      if (c.regressed()) {
        err << fmt::format("gpulab: {} row(s) slower beyond their noise, {} broken in B\n", c.count(Verdict::slower),
                           c.count(Verdict::broken));
        return kExitSlower;
      }
      return kExitOk;
    }
    for (const Command& c : commands) {
      if (!c.app->parsed()) continue;
      std::optional<DeviceFacts> device;
      if (c.needs_device) device = open_device(device_index);
      try {
        return c.run(CommandContext{out, device ? &*device : nullptr});
      } catch (const UsageError& e) {
        err << "gpulab: " << e.what() << "\nRun with --help for more information.\n";
        return kExitUsage;
      }
    }
    const DeviceFacts device = open_device(device_index);
    if (info->parsed()) {
      print_device_facts(out, device);
      return kExitOk;
    }
    if (ceilings_cmd->parsed()) {
      Report report = new_report(args, device);
      report.ceilings = measure_ceilings(device, ceiling_reps);
      if (ceiling_in_flight) report.ceilings->in_flight = measure_in_flight(device);
      if (ceiling_gpus > 0) {
        MultiGpuRun& links = report.multi_gpu.emplace();
        links.gpus = ceiling_gpus;
        links.host_links = measure_host_links(host_link_counts(gpu_counts_up_to(ceiling_gpus), 1), ceiling_reps);
        links.bus = measure_bus_bandwidth(ceiling_gpus, kBusSizes, ceiling_reps);
      }
      return finish_report(report, ceiling_files, out, err);
    }
    if (run_cmd) return run_problem(*run_cmd, run_variant, run_reps, device, out);
    if (bench_cmd && !bench_cmd->options.gpus.empty()) return bench_multi_gpu(*bench_cmd, args, device, out, err);
    if (check_cmd) return check_problem(*check_cmd, device, out);
    if (sanitize->parsed()) {
      Report report = new_report(args, device);
      report.sanitizer = sanitize_problems(registry, sanitize_only, sanitize_tools, sanitizer, device_index, out);
      return finish_report(report, sanitize_files, out, err);
    }
    if (profile_cmd && profile_cmd->ncu_target) {
      const auto ladder = profile_cmd->problem->ladder();
      auto rungs = select_rungs(ladder, split_commas(profile_cmd->options.variants), profile_cmd->problem->name());
      std::erase_if(rungs, [&](std::size_t r) { return unmet_needs(ladder[r], device.compute_capability()).has_value(); });
      std::size_t case_index = 0;
      profile_cmd->problem->for_each_case(profile_cmd->options.seed, [&](BenchCase& c) {
        launch_for_profiler(c, case_index++, rungs, device);
      });
      return kExitOk;
    }
    ProfiledKernels profiled;
    if (profile_cmd) {
      std::vector<std::string> target{executable_path(), "--device", std::to_string(device_index), "profile"};
      for (const auto& a : args_after(args, "profile")) target.push_back(a);
      target.push_back("--ncu-target");
      err << "gpulab: every rung once under ncu (" << ncu << ")…\n" << std::flush;
      const ProcessResult r = run_process(ncu_command(ncu, target));
      if (r.exit_code != 0) throw Error(fmt::format("ncu ended with exit code {}: {}", r.exit_code, ncu_errors(r)));
      profiled = parse_ncu_csv(r.out);
      if (profiled.empty()) throw Error("ncu measured no rung's launch: " + ncu_errors(r));
    }
    const ProblemCommand* ladder_cmd = bench_cmd ? bench_cmd : profile_cmd;

    Report report = new_report(args, device);
    {
      // A status line only on the program's own terminal: never into a caller's stream or a pipe.
      Progress progress(err, &err == &std::cerr && stderr_is_terminal());
      if (suite->parsed() || !ladder_cmd->options.no_ceilings) {
        progress.message("measuring ceilings…");
        report.ceilings = measure_ceilings(device);
      }
      if (suite->parsed()) {
        std::vector<ProblemCommand> all;
        std::size_t cases = 0;
        for (std::size_t i = 0; i < registry.size(); ++i) {
          all.push_back({fresh_problem(i), nullptr, {}});
          all.back().options.reps = registry[i]->default_reps();
          cases += all.back().problem->case_count();
        }
        progress.plan(cases);
        for (const auto& p : all) {
          progress.problem(std::string(p.problem->name()), static_cast<int>(&p - all.data()), static_cast<int>(all.size()));
          bench_problem(p, device, report, progress);
        }
      } else {
        progress.plan(ladder_cmd->problem->case_count());
        progress.problem(std::string(ladder_cmd->problem->name()), 0, 1);
        bench_problem(*ladder_cmd, device, report, progress);
      }
    }
    if (profile_cmd) attach_counters(report.cases, 0, profiled, profile_cmd->problem->ladder());
    if (suite->parsed()) {
      if (suite_sanitize)
        report.sanitizer = sanitize_problems(registry, {}, sanitize_tools, sanitizer, device_index, err);
      suite_files.default_page();
      return finish_report(report, suite_files, out, err);
    }
    return finish_report(report, ladder_cmd->options.files, out, err);
  } catch (const NoDeviceError& e) {
    err << "gpulab: " << e.what() << "\n";
    return kExitNoDevice;
  } catch (const std::exception& e) {
    err << "gpulab: " << e.what() << "\n";
    return kExitFailure;
  }
}

}  // namespace gpulab
