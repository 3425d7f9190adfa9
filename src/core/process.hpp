// Running a helper program (the plotting script) and collecting what it prints.
#pragma once

#include <string>
#include <vector>

namespace gpulab {

struct ProcessResult {
  int exit_code = 0;  // the program's, or 128 + the signal that ended it
  std::string out, err;
};

/// Runs argv[0] (looked up on PATH) with the arguments, waits, and returns its exit code and output.
/// Throws gpulab::Error when it cannot be started (not found, not executable).
ProcessResult run_process(const std::vector<std::string>& argv);

/// The folder holding the running executable ("" where it cannot be told).
std::string executable_dir();

}  // namespace gpulab
