// The harness: a problem describes one configuration of itself as a BenchCase (what it must move,
// its arrays, its CPU reference and baseline, how each rung runs and how an output is checked);
// the harness does the rest, for every problem alike: preflight, the CPU rows, the checked run
// on poisoned outputs with guard bands, kernel and end-to-end timing with noise control, the
// whole-program run, and the derived columns. The GPU tests go through the same checked run.
#pragma once

#include "core/ceilings.hpp"
#include "core/check.hpp"
#include "core/device_info.hpp"
#include "core/ladder.hpp"
#include "core/progress.hpp"
#include "core/report.hpp"
#include "core/timing.hpp"

#include <gpulab/device_buffer.hpp>

#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace gpulab {

/// Which measured ceiling judges a case (core/ceilings.hpp).
enum class CeilingKind { read, copy, write, add, fma };

/// What one run of a case must do (nvbench's element count, reads and writes): the harness turns
/// it into GB/s, GFLOP/s and the share of the ceiling.
struct Work {
  double bytes = 0.0;                 // each input read once, each output written once
  double flops = 0.0;                 // arithmetic that must be done (0: a problem of moving bytes)
  CeilingKind ceiling = CeilingKind::read;
  std::size_t working_set_bytes = 0;  // what one run touches: decides the L2 flush and the L2 label
};

/// An input array: host bytes copied to the device before a run, `offset_bytes` past a 256-byte
/// boundary (to test misaligned inputs).
struct InputArray {
  const void* host = nullptr;
  std::size_t bytes = 0;
  std::size_t offset_bytes = 0;
};

/// An output array: the harness allocates it with a guard band after it, fills both with `poison`
/// before every checked run, reads it back and hands it to check(); a write into the guard band
/// fails the check.
struct OutputArray {
  std::size_t bytes = 0;
  unsigned char poison = 0xFF;
};

/// Device addresses of a case's arrays for one run, in the order the case declared them.
struct Arrays {
  std::vector<const void*> in;
  std::vector<void*> out;
  template <class T> const T* input(std::size_t i) const { return static_cast<const T*>(in.at(i)); }
  template <class T> T* output(std::size_t i) const { return static_cast<T*>(out.at(i)); }
};

/// Temporary device storage for one rung's run, zero-filled once when allocated.
struct Workspace {
  void* data = nullptr;
  std::size_t bytes = 0;
};

/// A read-back output as T.
template <class T>
std::span<const T> as(std::span<const std::byte> bytes) {
  return {reinterpret_cast<const T*>(bytes.data()), bytes.size() / sizeof(T)};
}

/// One configuration of a problem (a point of its axes), with its input made.
class BenchCase {
 public:
  virtual ~BenchCase() = default;

  virtual std::vector<std::pair<std::string, std::string>> params() const = 0;
  virtual Work work() const = 0;
  virtual std::vector<InputArray> inputs() const = 0;
  virtual std::vector<OutputArray> outputs() const = 0;

  // The CPU side: the reference every rung is checked against (timed once by the harness) and
  // the multi-threaded baseline (timed, then checked).
  virtual std::string reference_name() const = 0;
  virtual void compute_reference() = 0;
  virtual std::string baseline_name() const { return "OpenMP baseline"; }
  virtual int baseline_threads() const;
  virtual void run_baseline() = 0;
  virtual CheckResult check_baseline() const = 0;

  // The rungs, by their index in the problem's table.
  /// Why the rung cannot run this case on the current device, or nullopt.
  virtual std::optional<std::string> unsupported(std::size_t /*rung*/) const { return std::nullopt; }
  virtual std::size_t workspace_bytes(std::size_t /*rung*/) const { return 0; }
  /// Whether the rung works in place on output 0: a checked run then starts that output as a copy
  /// of input 0 (the same number of bytes) instead of poison; its guard band is poisoned still.
  virtual bool in_place(std::size_t /*rung*/) const { return false; }
  /// Issues the rung's work on `stream`, asynchronously.
  virtual void launch(std::size_t rung, const Arrays& arrays, Workspace workspace, cudaStream_t stream) const = 0;
  /// Checks the outputs of one run (read back, in declaration order) against the reference.
  virtual CheckResult check(std::size_t rung, std::span<const std::span<const std::byte>> outputs) const = 0;
};

/// Device copies of a case's arrays: the inputs uploaded, the outputs with their guard bands.
class DeviceArrays {
 public:
  static constexpr std::size_t kGuardBytes = 256;

  /// Allocates the arrays and, unless `upload_inputs` is false, copies the inputs in.
  DeviceArrays(const BenchCase& c, cudaStream_t stream, bool upload_inputs = true);
  /// Bytes of device memory the arrays of `c` take.
  static std::size_t bytes_needed(const BenchCase& c);

  const Arrays& arrays() const { return arrays_; }
  void upload(cudaStream_t stream) const;                    // inputs: host → device
  void poison(cudaStream_t stream) const;                    // outputs and guards
  void copy_input_to_output(std::size_t in, std::size_t out, cudaStream_t stream) const;  // an in-place start
  void download(cudaStream_t stream, bool with_guard) const;  // outputs (and guards) → host
  std::vector<std::span<const std::byte>> host_outputs() const;
  /// After a download with guards: which output's guard band was written, or nullopt.
  std::optional<std::string> damaged_guard() const;

 private:
  std::vector<InputArray> in_specs_;
  std::vector<OutputArray> out_specs_;
  std::vector<DeviceBuffer<std::byte>> in_, out_;
  std::vector<PinnedBuffer<std::byte>> host_out_;
  Arrays arrays_;
};

/// A rung's workspace, zero-filled once.
class OwnedWorkspace {
 public:
  OwnedWorkspace(const BenchCase& c, std::size_t rung, cudaStream_t stream);
  Workspace get() const { return {buffer_.data(), buffer_.size()}; }

 private:
  DeviceBuffer<std::byte> buffer_;
};

/// Why rung `r` does not run on this case here: what it needs of the GPU (unmet_needs), or what it
/// needs of the case (BenchCase::unsupported); nothing when it runs.
std::optional<std::string> why_not_run(const BenchCase& c, std::span<const RungInfo> ladder, std::size_t r,
                                       const DeviceFacts& device);

/// Refuses, before anything is allocated, a case whose arrays, largest workspace of `rungs` and
/// L2-flush buffer do not fit the device's free memory.
void require_case_fits(const BenchCase& c, std::span<const std::size_t> rungs, std::size_t l2_bytes);

/// How a case's runs are timed: what one run touches (decides the L2 flush) and writes (its outputs'
/// bytes: the flush leaves as many dirty lines), with `warmup` and `reps`.
TimingOptions case_timing(const BenchCase& c, int warmup, int reps);

/// Outputs as a rung's run expects them: poisoned, or for an in-place rung output 0 a copy of input 0.
void prepare_outputs(const BenchCase& c, std::size_t rung, const DeviceArrays& arrays, cudaStream_t stream);

/// The step every check goes through, in the bench and the tests alike: poison the outputs and
/// their guard bands, run the rung once, read everything back, check the outputs and the guards.
CheckResult run_checked(const BenchCase& c, std::size_t rung, const DeviceArrays& arrays, Workspace workspace,
                        cudaStream_t stream);

/// run_checked with freshly made arrays and workspace (the tests' one-liner).
CheckResult run_checked(const BenchCase& c, std::size_t rung);

/// How the harness runs the selected rungs of a case.
struct BenchSettings {
  std::vector<std::size_t> rungs;  // indices into the problem's table
  std::vector<RungInfo> ladder;    // the problem's table
  int reps = 20;
  int warmup = 3;
  int end_to_end_reps = 3;
  int loops = 0;     // > 0: also one whole-program run per rung (allocate, copy in, run, copy out, free), LOOPS times
  bool cpu = true;   // time the CPU baseline (the reference is always computed)
};

/// Checks, then times, every selected rung of `c`; the CPU rows beside them.
CaseResult run_case(BenchCase& c, const BenchSettings& settings, const DeviceFacts& device, const Ceilings* ceilings,
                    Progress& progress);

/// Timing a row so that one slow spell cannot pass for the rung's speed: the median of `opt`
/// repetitions, then a short re-run; a row whose noise is high, or that was slower than its short
/// re-run by more than its noise, is measured again, and flagged noisy if it stays so.
struct RowTiming {
  TimingStats stats;
  bool remeasured = false;
  bool noisy = false;
};
RowTiming time_row(GpuTimer& timer, const std::function<void(cudaStream_t)>& launch, const TimingOptions& opt);

/// Noise (interquartile range ÷ median) above which a row is measured again.
constexpr double kNoisyRow = 0.10;

}  // namespace gpulab
