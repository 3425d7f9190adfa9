// What a problem tells the harness and the CLI about itself: its name and semantics, its table of
// rungs, its options (its axes: sizes, types, shapes…) with their validation, the cases of a bench,
// the runs worth recording, and commands of its own (`gpulab NAME gen|run|check`). The CLI knows problems
// only through this interface and the registry (src/problems.cpp).
#pragma once

#include "core/bench.hpp"
#include "core/ladder.hpp"

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
}

namespace gpulab {

class MultiCase;
/// One multi-GPU case of a problem's options, made at a scale: its split dimension (elements, or
/// rows of A or of the image) times `scale` — 1, or N for weak scaling over N GPUs. The same alias
/// as multi/multi_bench.hpp's.
using MultiCaseMaker = std::function<std::unique_ptr<MultiCase>(std::size_t scale)>;

/// A bad command line found after parsing: the CLI exits with its usage code.
class UsageError : public Error {
 public:
  using Error::Error;
};

/// What a problem's own command may use: the output stream and, when it asked for one, the
/// device's facts (opened by the CLI first).
struct CommandContext {
  std::ostream& out;
  const DeviceFacts* device = nullptr;
};

/// A problem's own command (`gpulab NAME gen`): the CLI runs it when `app` was parsed; it returns the
/// exit code and throws UsageError for a bad argument.
struct Command {
  CLI::App* app = nullptr;
  bool needs_device = false;
  std::function<int(const CommandContext&)> run;
};

/// The part of a device run a recorded run belongs to (`gpulab showcase --parts`): its bench or
/// tool runs; its rungs under Nsight Compute (`gpulab profile`); its peers script (what users call
/// instead, timed in Python); its bench over every GPU from one process, one process per GPU under
/// MPI, with weak scaling, or at more sizes.
enum class ShowcasePart { runs, profiles, peers, multi, multi_mpi, multi_weak, multi_more };

/// A run worth recording (`gpulab showcase`): gpulab's words (`bench PROBLEM …`, `profile PROBLEM
/// …`, a problem command's), or for peers a Python script of the source tree and its options;
/// "{tmp}" stands for a scratch folder. The multi-GPU parts get `--gpus N` added.
struct Showcase {
  std::string name;               // file stem of its reports, e.g. "seed003"
  std::string what;               // one line, printed before it runs
  std::vector<std::string> args;  // e.g. {"bench", NAME, "--type", "float32"}
  bool reports = true;            // add --json/--md/--csv DIR/name.* to the args (peers: --json)
  ShowcasePart part = ShowcasePart::runs;
};

/// The same bench over every GPU from one process and from one process a GPU (MPI).
inline std::vector<Showcase> over_gpus(const std::string& name, const std::string& what, const std::vector<std::string>& args) {
  return {{"multi_" + name, what + ", one process over every GPU", args, true, ShowcasePart::multi},
          {"multi_mpi_" + name, what + ", one process a GPU (MPI)", args, true, ShowcasePart::multi_mpi}};
}

class Problem {
 public:
  virtual ~Problem() = default;

  virtual std::string_view name() const = 0;
  virtual std::string_view summary() const = 0;    // "sum of a vector"
  virtual std::string_view semantics() const = 0;  // one line: what counts as right
  virtual std::vector<RungInfo> ladder() const = 0;

  /// Adds the problem's own options (its axes, with their defaults) to `bench NAME` or `run NAME`.
  virtual void add_options(CLI::App& command) = 0;
  /// Checks the options once parsed; throws gpulab::Error before any GPU work.
  virtual void validate() const = 0;
  /// How many cases for_each_case makes with the options as they are (for the progress estimate).
  virtual std::size_t case_count() const = 0;
  /// Makes each case of the options' cross product in turn (inputs from `seed`) and hands it to `run`.
  virtual void for_each_case(std::uint64_t seed, const std::function<void(BenchCase&)>& run) const = 0;
  /// Timed repetitions by default (fewer for problems whose rows take long).
  virtual int default_reps() const { return 20; }

  /// The bench options of a few small cases of awkward sizes that reach every path of every rung,
  /// for `gpulab sanitize` (compute-sanitizer runs each in seconds), e.g. {"-n", "1,1000,2^16+3"}.
  virtual std::vector<std::string> sanitize_args() const = 0;

  /// Its form over several GPUs (`bench NAME --gpus N`, multi/multi_bench.hpp): each case of the
  /// options as a maker of a MultiCase at a scale. Problems without one keep these defaults and the
  /// CLI refuses --gpus.
  virtual bool has_multi_gpu() const { return false; }
  virtual void for_each_multi_case(std::uint64_t /*seed*/, const std::function<void(const MultiCaseMaker&)>& /*run*/) const {
    throw UsageError(std::string(name()) + " has no multi-GPU form");
  }

  /// Commands of its own under `gpulab NAME`; none by default.
  virtual std::vector<Command> add_commands(CLI::App& /*app*/) { return {}; }
  /// The runs `gpulab showcase` records (the seeds' own tables, its profiles, peers and multi-GPU
  /// benches), each in its part of a device run.
  virtual std::vector<Showcase> showcase() const { return {}; }
};

/// The registry: every problem, in the order `list`, `suite` and the help show them.
std::vector<std::unique_ptr<Problem>> make_problems();

}  // namespace gpulab
