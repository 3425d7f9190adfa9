// `gpulab atax gen` and `gpulab atax check`: seed 004's file tools (CPU only).
#pragma once

#include "atax/atax_file.hpp"

#include <cstdint>
#include <iosfwd>
#include <string>

namespace gpulab {

/// Writes a random input file; returns the exit code.
int atax_gen(AtaxShape shape, const std::string& path, std::uint64_t seed, std::ostream& out);

/// Recomputes y serially, compares with the result file and prints the seed's `check` report:
/// 0 when every value is within its bound, 1 otherwise. Throws gpulab::Error on unreadable files.
int atax_check(const std::string& input_path, const std::string& result_path, std::ostream& out);

}  // namespace gpulab
