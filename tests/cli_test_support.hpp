// The `gpulab` program run in-process by the CPU tests: its exit code and what it printed.
#pragma once

#include "cli/cli.hpp"

#include <sstream>
#include <string>
#include <vector>

namespace gpulab::test {

struct CliRun {
  int code;
  std::string out, err;
};

/// run_cli with "gpulab" as the program name.
inline CliRun cli(std::vector<std::string> args) {
  args.insert(args.begin(), "gpulab");
  std::ostringstream out, err;
  const int code = run_cli(args, out, err);
  return {code, out.str(), err.str()};
}

}  // namespace gpulab::test
