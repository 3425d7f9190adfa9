#include "matrix/matrix_cpu.hpp"

#include "core/random.hpp"
#include "core/sizes.hpp"

#include <gpulab/error.hpp>

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace gpulab {

std::optional<MatrixShape> parse_matrix_shape(std::string_view text) {
  const auto sides = parse_size_pair(text);
  constexpr std::size_t kMaxSide = 0x7FFFFFFF;
  if (!sides) return std::nullopt;
  const auto [rows, cols] = *sides;
  if (rows < 1 || cols < 1 || rows > kMaxSide || cols > kMaxSide) return std::nullopt;
  return MatrixShape{rows, cols};
}

std::string matrix_shape_name(MatrixShape s) { return fmt::format("{}x{}", s.rows, s.cols); }

std::string_view triangle_name(Triangle part) { return part == Triangle::upper ? "upper" : "lower"; }

HostMatrix::HostMatrix(MatrixShape shape, std::size_t pitch_bytes, bool pinned) : shape_(shape), pitch_(pitch_bytes) {
  if (pitch_bytes < shape.cols * sizeof(float) || pitch_bytes % sizeof(float) != 0)
    throw Error(fmt::format("a {} matrix cannot have a pitch of {} bytes", matrix_shape_name(shape), pitch_bytes));
  const std::size_t bytes = std::max<std::size_t>(size_bytes(), 1);
  if (pinned) {
    void* p = nullptr;
    GPULAB_CUDA_CHECK(cudaMallocHost(&p, bytes));
    bytes_ = {static_cast<std::byte*>(p), [](std::byte* q) { cudaFreeHost(q); }};
  } else {
    bytes_ = {new std::byte[bytes], [](std::byte* q) { delete[] q; }};
  }
  const std::size_t row_bytes = shape.cols * sizeof(float);
  if (pitch_ > row_bytes) {
    const auto rows = static_cast<std::int64_t>(shape.rows);
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < rows; ++i)
      std::memset(bytes_.get() + static_cast<std::size_t>(i) * pitch_ + row_bytes, kPaddingByte, pitch_ - row_bytes);
  }
}

void HostMatrix::copy_from(const HostMatrix& other) {
  if (other.shape_ != shape_ || other.pitch_ != pitch_)
    throw Error("HostMatrix::copy_from: " + matrix_shape_name(other.shape_) + " into " + matrix_shape_name(shape_));
  std::memcpy(bytes_.get(), other.bytes_.get(), size_bytes());
}

void fill_matrix_random(HostMatrix& m, std::uint64_t seed) {
  const auto rows = static_cast<std::int64_t>(m.shape().rows);
  const std::size_t cols = m.shape().cols;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < rows; ++i) {
    float* row = m.row(static_cast<std::size_t>(i));
    for (std::size_t j = 0; j < cols; ++j) {
      const std::uint64_t h = hash64(seed, static_cast<std::uint64_t>(i) * cols + j);
      const float v = static_cast<float>(static_cast<double>(h >> 40) * 0x1p-23 - 1.0);  // 24 random bits in [-1, 1)
      row[j] = v == 0.f ? 0.5f : v;
    }
  }
}

void transpose_cpu(const HostMatrix& a, HostMatrix& b, bool parallel) {
  constexpr std::size_t kBlock = 32;  // a block of a's rows and columns stays in cache both ways
  const MatrixShape s = a.shape();
  const auto row_blocks = static_cast<std::int64_t>((s.rows + kBlock - 1) / kBlock);
#pragma omp parallel for schedule(static) if (parallel)
  for (std::int64_t ib = 0; ib < row_blocks; ++ib) {
    const std::size_t i0 = static_cast<std::size_t>(ib) * kBlock, i1 = std::min(i0 + kBlock, s.rows);
    for (std::size_t j0 = 0; j0 < s.cols; j0 += kBlock) {
      const std::size_t j1 = std::min(j0 + kBlock, s.cols);
      for (std::size_t j = j0; j < j1; ++j) {
        float* out = b.row(j);
        for (std::size_t i = i0; i < i1; ++i) out[i] = a.row(i)[j];
      }
    }
  }
}

void add_cpu(float alpha, const HostMatrix& a, float beta, const HostMatrix& b, HostMatrix& c, bool parallel) {
  const auto rows = static_cast<std::int64_t>(c.shape().rows);
  const std::size_t cols = c.shape().cols;
#pragma omp parallel for schedule(static) if (parallel)
  for (std::int64_t i = 0; i < rows; ++i) {
    const auto r = static_cast<std::size_t>(i);
    const float *x = a.row(r), *y = b.row(r);
    float* z = c.row(r);
    for (std::size_t j = 0; j < cols; ++j) z[j] = std::fma(alpha, x[j], beta * y[j]);
  }
}

void zero_triangle_cpu(HostMatrix& m, Triangle part, bool parallel) {
  const auto rows = static_cast<std::int64_t>(m.shape().rows);
  const std::size_t cols = m.shape().cols;
#pragma omp parallel for schedule(dynamic, 64) if (parallel)
  for (std::int64_t i = 0; i < rows; ++i) {
    const auto r = static_cast<std::size_t>(i);
    const std::size_t first = part == Triangle::upper ? std::min(r + 1, cols) : 0;
    const std::size_t last = part == Triangle::upper ? cols : std::min(r, cols);
    std::fill(m.row(r) + first, m.row(r) + last, 0.f);
  }
}

namespace {

/// Where byte `offset` of a pitched matrix lies, in words: "element (i, j)" or "padding of row i".
std::string locate(const HostMatrix& m, std::size_t offset) {
  const std::size_t i = offset / m.pitch_bytes(), col_byte = offset % m.pitch_bytes();
  if (col_byte >= m.shape().cols * sizeof(float)) return fmt::format("the padding of row {} (byte {})", i, col_byte);
  return fmt::format("element ({}, {})", i, col_byte / sizeof(float));
}

CheckResult failure(std::string detail) {
  CheckResult r;
  r.error = INFINITY;
  r.detail = std::move(detail);
  return r;
}

bool size_matches(std::span<const std::byte> got, const HostMatrix& want, CheckResult& r) {
  if (got.size() == want.size_bytes()) return true;
  r = failure(fmt::format("the output has {} bytes, the matrix {}", got.size(), want.size_bytes()));
  return false;
}

}  // namespace

CheckResult check_matrix_bits(std::span<const std::byte> got, const HostMatrix& want) {
  CheckResult r;
  if (!size_matches(got, want, r)) return r;
  if (std::memcmp(got.data(), want.bytes(), got.size()) == 0) return {true, 0.0, 0.0, ""};
  // Find the first difference and count the differing 4-byte words (elements or padding).
  std::size_t first = got.size(), differing = 0;
  for (std::size_t w = 0; w + 4 <= got.size(); w += 4)
    if (std::memcmp(got.data() + w, want.bytes() + w, 4) != 0) {
      if (first == got.size()) first = w;
      ++differing;
    }
  float expected = 0.f, actual = 0.f;
  std::memcpy(&expected, want.bytes() + first, 4);
  std::memcpy(&actual, got.data() + first, 4);
  return failure(fmt::format("{} words differ; the first is {}: expected {} (0x{:08x}), got {} (0x{:08x})", differing,
                             locate(want, first), expected, std::bit_cast<std::uint32_t>(expected), actual,
                             std::bit_cast<std::uint32_t>(actual)));
}

CheckResult check_add_within_rounding(std::span<const std::byte> got, float alpha, const HostMatrix& a, float beta,
                                      const HostMatrix& b) {
  CheckResult r{true, 0.0, 0.0, ""};
  if (!size_matches(got, a, r)) return r;
  const MatrixShape s = a.shape();
  const std::size_t pitch = a.pitch_bytes(), row_bytes = s.cols * sizeof(float);
  for (std::size_t i = 0; i < s.rows; ++i) {
    const auto* row = reinterpret_cast<const float*>(got.data() + i * pitch);
    for (std::size_t j = 0; j < s.cols; ++j) {
      const double x = static_cast<double>(alpha) * a.row(i)[j], y = static_cast<double>(beta) * b.row(i)[j];
      const double exact = x + y, allowed = 2.0 * unit_roundoff<float>() * (std::abs(x) + std::abs(y));
      const double error = std::abs(static_cast<double>(row[j]) - exact);
      if (!(error <= allowed))
        return failure(fmt::format("element ({}, {}): {} is {:.3g} from alpha*a + beta*b = {}, more than 2 roundings ({:.3g})",
                                   i, j, row[j], error, exact, allowed));
      r.error = std::max(r.error, error);
    }
    for (std::size_t k = row_bytes; k < pitch; ++k)
      if (got[i * pitch + k] != std::byte{kPaddingByte}) return failure(fmt::format("the padding of row {} was written", i));
  }
  return r;
}

}  // namespace gpulab
