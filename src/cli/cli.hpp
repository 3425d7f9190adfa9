// The `gpulab` program as a function, so tests can drive it in-process.
#pragma once

#include "core/exit_codes.hpp"

#include <iosfwd>
#include <string>
#include <vector>

namespace gpulab {

/// args[0] is the program name. Writes results to `out`, messages and progress to `err`.
int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace gpulab
