// Seed 004's binary files for y = Aᵀ(A·x), read strictly and written exactly.
//
// Input file:  16-byte header = int32 cols (the width), int32 rows (the height), 8 zero bytes, all
//              little-endian; then A row by row (rows × cols float32); then x (cols float32).
// Result file: the same header with rows = 1; then y (cols float32).
// "512x768" in the seed means 512 columns × 768 rows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

namespace gpulab {

struct AtaxShape {
  std::uint32_t cols = 0;  // the width: entries of x and y
  std::uint32_t rows = 0;  // the height: entries of t = A·x
  constexpr std::uint64_t elements() const { return std::uint64_t{rows} * cols; }
};

struct AtaxInput {
  AtaxShape shape;
  std::vector<float> a;  // rows × cols, row-major
  std::vector<float> x;  // cols
};

constexpr std::uint64_t kAtaxHeaderBytes = 16;

/// The exact size of an input file of this shape.
constexpr std::uint64_t atax_file_bytes(AtaxShape s) { return kAtaxHeaderBytes + 4 * (s.elements() + s.cols); }

/// Throws gpulab::Error unless 1 ≤ cols, rows ≤ 2^31 − 1 (what an int32 header can say).
void validate_atax_shape(std::int64_t cols, std::int64_t rows);

/// Reads and checks an input file: the header (positive dimensions, zero padding), the size
/// (exactly what the header implies, else "truncated" or "trailing bytes"), the memory it needs
/// (refused before reading when above `max_bytes`), and every value (NaN or Inf refused, with its
/// row and column). Each fault is a gpulab::Error with a message naming the file.
AtaxInput read_atax_file(const std::filesystem::path& path, std::uint64_t max_bytes);

/// Writes an input file.
void write_atax_file(const std::filesystem::path& path, const AtaxInput& input);

/// Writes a file of the given shape with reproducible random values in [-1, 1) (element k of the
/// file depends only on seed and k), a row at a time: any size needs only a row of memory.
void generate_atax_file(const std::filesystem::path& path, AtaxShape shape, std::uint64_t seed);

/// The random input `generate_atax_file` writes, made in memory (for benches and tests).
AtaxInput make_atax_input(AtaxShape shape, std::uint64_t seed);

/// Result files: y with its header (rows = 1); reading checks the header, the size and that there
/// are `expected_cols` values (when non-zero).
void write_atax_result(const std::filesystem::path& path, std::span<const float> y);
std::vector<float> read_atax_result(const std::filesystem::path& path, std::uint32_t expected_cols);

}  // namespace gpulab
