// The `gpulab` program as a function, so tests can drive it in-process.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace gpulab {

/// Exit codes of `gpulab` (also in `gpulab --help` and the README).
enum ExitCode : int {
  kExitOk = 0,
  kExitFailure = 1,   // a check failed, a CUDA error, a file could not be written, too little memory
  kExitUsage = 2,     // bad command line
  kExitNoDevice = 3,  // no CUDA device or driver
};

/// args[0] is the program name. Writes results to `out`, messages and progress to `err`.
int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace gpulab
