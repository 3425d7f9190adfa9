#include "atax/atax_file.hpp"

#include "core/random.hpp"

#include <gpulab/error.hpp>

#include <fmt/format.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>

namespace gpulab {
namespace {

static_assert(std::endian::native == std::endian::little, "the seed's files are little-endian");

using Header = std::array<unsigned char, kAtaxHeaderBytes>;

Header make_header(std::uint32_t cols, std::uint32_t rows) {
  Header h{};
  const std::int32_t c = static_cast<std::int32_t>(cols), r = static_cast<std::int32_t>(rows);
  std::memcpy(h.data(), &c, 4);
  std::memcpy(h.data() + 4, &r, 4);
  return h;
}

std::ofstream open_for_writing(const std::filesystem::path& path) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw Error(fmt::format("cannot open '{}' for writing", path.string()));
  return f;
}

void write_floats(std::ofstream& f, std::span<const float> v) {
  f.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size_bytes()));
}

void finish(std::ofstream& f, const std::filesystem::path& path) {
  f.close();
  if (!f) throw Error(fmt::format("could not write '{}' (disk full?)", path.string()));
}

/// Opens `path`, checks it is a regular file and returns its size and its 16-byte header.
std::ifstream open_with_header(const std::filesystem::path& path, std::uint64_t& size, std::int32_t& cols,
                               std::int32_t& rows) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw Error(fmt::format("'{}' does not exist or is not a regular file", path.string()));
  size = std::filesystem::file_size(path, ec);
  if (ec) throw Error(fmt::format("cannot read the size of '{}': {}", path.string(), ec.message()));
  if (size < kAtaxHeaderBytes)
    throw Error(fmt::format("'{}' has {} bytes: too short for the 16-byte header", path.string(), size));
  std::ifstream f(path, std::ios::binary);
  Header h{};
  if (!f.read(reinterpret_cast<char*>(h.data()), kAtaxHeaderBytes))
    throw Error(fmt::format("cannot read the header of '{}'", path.string()));
  std::memcpy(&cols, h.data(), 4);
  std::memcpy(&rows, h.data() + 4, 4);
  for (std::size_t i = 8; i < kAtaxHeaderBytes; ++i)
    if (h[i] != 0)
      throw Error(fmt::format("'{}': header byte {} is {:#04x}; bytes 8-15 must be zero padding", path.string(), i, h[i]));
  return f;
}

void require_size(const std::filesystem::path& path, std::uint64_t size, std::uint64_t expected, std::string_view what) {
  if (size < expected)
    throw Error(fmt::format("'{}' is truncated: {} bytes, but {} needs {}", path.string(), size, what, expected));
  if (size > expected)
    throw Error(fmt::format("'{}' has {} trailing bytes after the {} bytes that {} needs", path.string(),
                            size - expected, expected, what));
}

/// Element k of a generated file (A row by row, then x): 24 random bits scaled to [-1, 1).
float random_value(std::uint64_t seed, std::uint64_t k) {
  return static_cast<float>(static_cast<std::int64_t>(hash64(seed, k) >> 40) - (1 << 23)) / (1 << 23);
}

void read_floats(std::ifstream& f, std::span<float> out, const std::filesystem::path& path) {
  if (!f.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(out.size_bytes())))
    throw Error(fmt::format("'{}' ended early while reading", path.string()));
}

}  // namespace

void validate_atax_shape(std::int64_t cols, std::int64_t rows) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int32_t>::max();
  if (cols < 1 || rows < 1 || cols > kMax || rows > kMax)
    throw Error(fmt::format("atax: {} columns × {} rows; both must be in [1, 2^31 - 1]", cols, rows));
}

AtaxInput read_atax_file(const std::filesystem::path& path, std::uint64_t max_bytes) {
  std::uint64_t size = 0;
  std::int32_t cols = 0, rows = 0;
  std::ifstream f = open_with_header(path, size, cols, rows);
  if (cols < 1 || rows < 1)
    throw Error(fmt::format("'{}': the header says {} columns × {} rows; both must be positive", path.string(), cols, rows));
  AtaxInput in;
  in.shape = {static_cast<std::uint32_t>(cols), static_cast<std::uint32_t>(rows)};
  const std::uint64_t expected = atax_file_bytes(in.shape);
  const std::uint64_t data_bytes = expected - kAtaxHeaderBytes;
  if (data_bytes > max_bytes)
    throw Error(fmt::format("'{}' holds a {}x{} matrix ({:.2f} GiB), more than the {:.2f} GiB of memory allowed for it",
                            path.string(), cols, rows, static_cast<double>(data_bytes) / (1u << 30),
                            static_cast<double>(max_bytes) / (1u << 30)));
  require_size(path, size, expected, fmt::format("a {}x{} matrix and its vector", cols, rows));
  in.a.resize(in.shape.elements());
  in.x.resize(in.shape.cols);
  read_floats(f, in.a, path);
  read_floats(f, in.x, path);
  for (std::size_t k = 0; k < in.a.size(); ++k)
    if (!std::isfinite(in.a[k]))
      throw Error(fmt::format("'{}': A[row {}, col {}] is {}", path.string(), k / in.shape.cols, k % in.shape.cols,
                              std::isnan(in.a[k]) ? "NaN" : "Inf"));
  for (std::size_t j = 0; j < in.x.size(); ++j)
    if (!std::isfinite(in.x[j]))
      throw Error(fmt::format("'{}': x[{}] is {}", path.string(), j, std::isnan(in.x[j]) ? "NaN" : "Inf"));
  return in;
}

void write_atax_file(const std::filesystem::path& path, const AtaxInput& input) {
  if (input.a.size() != input.shape.elements() || input.x.size() != input.shape.cols)
    throw Error("write_atax_file: the arrays do not match the shape");
  validate_atax_shape(input.shape.cols, input.shape.rows);
  std::ofstream f = open_for_writing(path);
  const Header h = make_header(input.shape.cols, input.shape.rows);
  f.write(reinterpret_cast<const char*>(h.data()), kAtaxHeaderBytes);
  write_floats(f, input.a);
  write_floats(f, input.x);
  finish(f, path);
}

void generate_atax_file(const std::filesystem::path& path, AtaxShape shape, std::uint64_t seed) {
  validate_atax_shape(shape.cols, shape.rows);
  std::ofstream f = open_for_writing(path);
  const Header h = make_header(shape.cols, shape.rows);
  f.write(reinterpret_cast<const char*>(h.data()), kAtaxHeaderBytes);
  std::vector<float> row(shape.cols);
  auto fill = [&](std::uint64_t first) {
    for (std::size_t j = 0; j < row.size(); ++j) row[j] = random_value(seed, first + j);
  };
  for (std::uint64_t r = 0; r <= shape.rows; ++r) {  // rows of A, then x
    fill(r * shape.cols);
    write_floats(f, row);
    if (!f) break;
  }
  finish(f, path);
}

AtaxInput make_atax_input(AtaxShape shape, std::uint64_t seed) {
  validate_atax_shape(shape.cols, shape.rows);
  AtaxInput in{shape, std::vector<float>(shape.elements()), std::vector<float>(shape.cols)};
  const auto elements = static_cast<std::int64_t>(shape.elements());
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < elements; ++k) in.a[static_cast<std::size_t>(k)] = random_value(seed, static_cast<std::uint64_t>(k));
  for (std::size_t j = 0; j < in.x.size(); ++j) in.x[j] = random_value(seed, shape.elements() + j);
  return in;
}

void write_atax_result(const std::filesystem::path& path, std::span<const float> y) {
  validate_atax_shape(static_cast<std::int64_t>(y.size()), 1);
  std::ofstream f = open_for_writing(path);
  const Header h = make_header(static_cast<std::uint32_t>(y.size()), 1);
  f.write(reinterpret_cast<const char*>(h.data()), kAtaxHeaderBytes);
  write_floats(f, y);
  finish(f, path);
}

std::vector<float> read_atax_result(const std::filesystem::path& path, std::uint32_t expected_cols) {
  std::uint64_t size = 0;
  std::int32_t cols = 0, rows = 0;
  std::ifstream f = open_with_header(path, size, cols, rows);
  if (rows != 1 || cols < 1)
    throw Error(fmt::format("'{}' is not a result file: its header says {} columns × {} rows (a result has 1 row)",
                            path.string(), cols, rows));
  if (expected_cols != 0 && static_cast<std::uint32_t>(cols) != expected_cols)
    throw Error(fmt::format("'{}' holds {} values, but the input has {} columns", path.string(), cols, expected_cols));
  require_size(path, size, kAtaxHeaderBytes + 4 * std::uint64_t(cols), fmt::format("a result of {} values", cols));
  std::vector<float> y(static_cast<std::size_t>(cols));
  read_floats(f, y, path);
  return y;
}

}  // namespace gpulab
