// `gpulab atax gen`, `run` and `check`: seed 004's three programs (gen and check need no GPU).
#pragma once

#include "atax/atax_file.hpp"
#include "core/device_info.hpp"

#include <cstdint>
#include <iosfwd>
#include <string>

namespace gpulab {

/// Writes a random input file; returns the exit code.
int atax_gen(AtaxShape shape, const std::string& path, std::uint64_t seed, std::ostream& out);

/// Loads `input_path`, runs rung `rung` of the ladder (checked against nothing: `check` does that),
/// prints the seed's lines and the median time of `reps` runs, writes the result file.
int atax_run(const std::string& input_path, std::string output_path, std::size_t rung, int reps, const DeviceFacts& device,
             std::ostream& out);

/// Recomputes y serially, compares with the result file and prints the seed's `check` report:
/// 0 when every value is within its bound, 1 otherwise. Throws gpulab::Error on unreadable files.
int atax_check(const std::string& input_path, const std::string& result_path, std::ostream& out);

}  // namespace gpulab
