// What a run over several GPUs reports (`gpulab bench PROBLEM --gpus N`): per case, a row per
// number of GPUs and data placement, timed in one run, and NCCL's all-reduce bus bandwidth as the
// communication ceiling. It is a section of the Report (core/report.hpp), so the JSON, CSV,
// Markdown, terminal, page and comparison of a multi-GPU run come from the one code path of every
// other run; this file holds the section's rows, their JSON and their tables.
#pragma once

#include "core/check.hpp"
#include "core/timing.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

namespace gpulab {

struct Table;  // core/tables.hpp

/// One row: a placement on a number of GPUs.
struct MultiRow {
  int gpus = 1;
  std::string placement;
  TimingStats local, total;  // milliseconds, the slowest rank each repetition
  double speedup = 0.0, efficiency = 0.0, gbs = 0.0;
  double host_bytes = 0.0;  // from host memory: the bytes every rank together copies in per run
  // Small cases, resident data: the local part and the whole function replayed from CUDA graphs
  // (captured once per rank), or why they could not be captured.
  bool graphed = false;
  TimingStats graph_local, graph_total;
  std::string graph_failure;  // why the case could not be captured (not graphed)
  CheckResult check;
  bool identical = true;  // every rank, a repeated run and a replayed graph gave the same bits
};

struct MultiCaseResult {
  std::string problem;
  std::vector<std::pair<std::string, std::string>> params;  // of the one-GPU case
  std::size_t scale = 1;                                     // the several-GPU rows' case: params' sizes × scale
  std::vector<MultiRow> rows;
};

/// NCCL's all-reduce bus bandwidth at one size, measured like nccl-tests (algbw × 2(n−1)/n).
struct BusBandwidth {
  std::size_t bytes = 0;
  double time_us = 0.0, algbw_gbs = 0.0, busbw_gbs = 0.0;
};

/// What the host gives `gpus` GPUs copying at once, pinned memory, GB/s of all of them together.
struct HostLink {
  int gpus = 1;
  std::size_t bytes_per_gpu = 0;
  double to_gpus_gbs = 0.0, from_gpus_gbs = 0.0;
};

/// The several-GPU section of a report.
struct MultiGpuRun {
  int gpus = 1;       // the several-GPU rows' number of GPUs
  int processes = 1;  // 1: one process drove every GPU; N: a process per GPU (MPI)
  std::vector<BusBandwidth> bus;
  std::vector<HostLink> host_links;  // 1 GPU and each count of the run
  std::vector<MultiCaseResult> cases;
};

/// How the ranks ran, in words: "2 GPUs driven by one process", "2 GPUs, one MPI process each".
std::string ranks_words(int gpus, int processes);

/// True when every row passed its check and gave the same bits on every rank and run.
bool multi_gpu_passed(const MultiGpuRun& run);

nlohmann::ordered_json multi_row_json(const MultiRow& row);
MultiRow multi_row_from(const nlohmann::ordered_json& j);  // throws nlohmann::json::exception when malformed
nlohmann::ordered_json multi_gpu_json(const MultiGpuRun& run);
MultiGpuRun multi_gpu_from(const nlohmann::ordered_json& j);

/// "NAME  type=float32  n=2^31 …" (and the weak-scaling words where the rows ran more work).
std::string multi_case_heading(const MultiCaseResult& c);
Table bus_table(const std::vector<BusBandwidth>& bus);
Table host_link_table(const std::vector<HostLink>& links);
/// The case's rows; a row from host memory also as a share of what the host gave its GPUs (`links`).
Table multi_case_table(const MultiCaseResult& c, const std::vector<HostLink>& links);
/// The rows that failed, in words ("on 2 GPU(s), resident: …"): a wrong result on a rank, or
/// different bits across ranks or runs. Empty when every row passed; as failures() of a ladder case.
std::vector<std::string> multi_case_failures(const MultiCaseResult& c);
/// What else a row's table cannot say: a case that could not be captured into graphs.
std::vector<std::string> multi_case_notes(const MultiCaseResult& c);

void print_multi(std::ostream& os, const MultiGpuRun& run);
void render_multi_markdown(std::string& out, const MultiGpuRun& run);  // under a "## Several GPUs" heading
std::string multi_csv(const MultiGpuRun& run);                          // a line per row of every case

}  // namespace gpulab
