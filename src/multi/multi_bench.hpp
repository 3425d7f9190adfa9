// Several GPUs of one host in one process: a communicator per GPU (ncclCommInitAll), a problem's
// case split over them, checked against the CPU on every rank, and timed against one GPU in the
// same run. A problem describes one configuration as a MultiCase; the runner does the rest.
//   gpulab bench NAME --gpus 2 …
#pragma once

#include "core/check.hpp"
#include "core/multi_report.hpp"
#include "core/report.hpp"

#include <nccl.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace gpulab {

/// Rank r's share of n items among `ranks`: [begin, end), the first n % ranks ranks one more.
std::pair<std::size_t, std::size_t> shard_range(std::size_t n, int r, int ranks);

/// `count` values at `data` as the host bytes a rank's input is copied from.
template <class T>
std::span<const std::byte> host_bytes(const T* data, std::size_t count) {
  return {reinterpret_cast<const std::byte*>(data), count * sizeof(T)};
}

/// What one rank runs with: its device, its arrays, its communicator and stream.
struct RankRun {
  int device = 0, rank = 0, ranks = 1;
  std::vector<const void*> in;
  void* out = nullptr;
  void* temp = nullptr;
  std::size_t temp_bytes = 0;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
};

/// One configuration of a problem split over ranks.
class MultiCase {
 public:
  virtual ~MultiCase() = default;
  virtual std::vector<std::pair<std::string, std::string>> params() const = 0;
  /// Bytes every rank together must read (the GB/s column), and what one GPU's run moves.
  virtual double bytes() const = 0;
  /// Rank r's inputs as host bytes (its shard, or a whole copy of an input every rank reads).
  virtual std::vector<std::span<const std::byte>> inputs(int r, int ranks) const = 0;
  /// Rank r's output bytes: the whole result on every rank, or its shard of it.
  virtual std::size_t output_bytes(int r, int ranks) const = 0;
  /// Whether every rank holds the whole result (then every rank's bits must be equal).
  virtual bool replicated() const { return true; }
  /// Temporary storage rank r needs (on its device, which is current); zero-filled once.
  virtual std::size_t temp_bytes(int r, int ranks) const = 0;
  /// The one-GPU library function on one rank's shard: the local part of a run (its device is current).
  virtual void local(const RankRun& rank) const = 0;
  /// The multi-GPU library function, every rank at once (its all-ranks form: one thread drives
  /// every GPU, so the collectives must go in one NCCL group).
  virtual void run(std::span<const RankRun> ranks) const = 0;
  virtual void compute_reference() = 0;
  /// Checks what rank r got (every rank must pass).
  virtual CheckResult check(std::span<const std::byte> out, int r, int ranks) const = 0;
};

/// One case made at a scale: its split dimension times `scale` (1, or N for weak scaling over N
/// GPUs). The same alias as core/problem.hpp's.
using MultiCaseMaker = std::function<std::unique_ptr<MultiCase>(std::size_t scale)>;

/// How the runner measures.
class World;

struct MultiSettings {
  // The several-GPU counts, ascending (e.g. {2, 4}: one run gives 1, 2 and 4 GPUs); under MPI the
  // world's size alone.
  std::vector<int> gpus{2};
  const World* world = nullptr;  // the processes (MPI: one rank each); none: this process drives every GPU
  std::vector<std::string> placements{"resident", "host"};
  int reps = 20;
  // Weak scaling: the cases' sizes are per GPU; the N-GPU rows run the case made at scale N (for
  // each N of `gpus`), the one-GPU rows at scale 1, and speed-up counts work per second (N·T(1)/T(N)).
  bool weak = false;
  double timeout_s = 60.0;  // a rank that does not finish by then: every communicator aborted
  // Tests on one GPU: the several-rank rows as this many ranks on GPU 0, their collectives done by
  // the library's loopback copies (lib/multi_loopback.hpp) instead of NCCL; checked, not timed
  // meaningfully.
  int loopback_ranks = 0;
};

/// NCCL's all-reduce bus bandwidth over `gpus` GPUs (under MPI: the world's ranks), measured like
/// nccl-tests (algbw × 2(n−1)/n) at each size: the communication ceiling. Empty for one GPU.
std::vector<BusBandwidth> measure_bus_bandwidth(int gpus, const std::vector<std::size_t>& sizes, int reps,
                                                const World* world = nullptr, double timeout_s = 60.0);

/// The several-GPU counts of a run over up to `gpus` GPUs: the powers of two below it, and it
/// (2, 4, 8 for eight; 2, 3 for three).
std::vector<int> gpu_counts_up_to(int gpus);

/// The GPU counts whose host links a run measures: 1 and each of `gpus` (under MPI: the processes).
std::vector<int> host_link_counts(const std::vector<int>& gpus, int processes);

/// What the host gives each count of GPUs 0 … n − 1 copying at once from and to pinned host memory
/// (under MPI: every process's GPU): the ceiling of the rows whose data starts in host memory.
std::vector<HostLink> measure_host_links(const std::vector<int>& counts, int reps, const World* world = nullptr);

/// Checks, then times, the case on 1 GPU and on each count of settings.gpus (under MPI: the world's
/// ranks, one per process; the one-GPU rows by process 0), each placement: made once (strong
/// scaling), or at scale 1 and at each count N (weak). Every process gets the same rows: per
/// placement, one GPU first, then each count.
MultiCaseResult run_multi_case(const MultiCaseMaker& make, const MultiSettings& settings);

}  // namespace gpulab
