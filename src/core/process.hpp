// Running a helper program (the plotting script) and collecting what it prints.
#pragma once

#include <string>
#include <vector>

namespace gpulab {

struct ProcessResult {
  int exit_code = 0;  // the program's, or 128 + the signal that ended it
  std::string out, err;
};

/// Runs argv[0] (looked up on PATH) with the arguments, waits, and returns its exit code and output;
/// with `merge_stderr` both streams go to `out`, in the order they were written.
/// Throws gpulab::Error when it cannot be started (not found, not executable).
ProcessResult run_process(const std::vector<std::string>& argv, bool merge_stderr = false);

/// The running executable's path, and its folder ("" where it cannot be told).
std::string executable_path();
std::string executable_dir();

/// An external tool (ncu, compute-sanitizer): `explicit_path` when given, else $ENV_VAR, else the
/// first `name` on PATH, else /usr/local/cuda/bin/NAME. "" when none of them is an executable file.
std::string find_tool(const std::string& name, const std::string& explicit_path, const char* env_var);

}  // namespace gpulab
