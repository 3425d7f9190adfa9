// The matrix problems' CPU side: host matrices in their device layout (rows a pitch apart, the
// padding bytes set to a known value), shapes as people write them, the three operations
// (serial for the reference, OpenMP for the baseline) and the exact check, padding included.
#pragma once

#include "core/check.hpp"

#include <gpulab/matrix.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace gpulab {

struct MatrixShape {
  std::size_t rows = 0, cols = 0;
  std::size_t elements() const { return rows * cols; }
  bool operator==(const MatrixShape&) const = default;
};

/// "16383x16385" (rows x cols), each side a size as parse_size reads it ("1x2^26"), 1 to 2^31 − 1.
std::optional<MatrixShape> parse_matrix_shape(std::string_view text);
std::string matrix_shape_name(MatrixShape s);  // "16383x16385"

/// What the bytes between rows hold in every host matrix, and what a device output is poisoned
/// with: a rung that writes padding, or leaves an element unwritten, changes or keeps 0xFF bytes
/// where the reference has none (0xFFFFFFFF is a NaN, never a result).
inline constexpr unsigned char kPaddingByte = 0xFF;

/// A row-major float matrix in host memory with a row pitch in bytes (pinned when asked: the
/// inputs a bench uploads), padding bytes kPaddingByte. Move-only: copies of gigabytes are asked
/// for by name (copy_from).
class HostMatrix {
 public:
  HostMatrix() = default;
  HostMatrix(MatrixShape shape, std::size_t pitch_bytes, bool pinned = false);
  HostMatrix(HostMatrix&&) = default;
  HostMatrix& operator=(HostMatrix&&) = default;

  MatrixShape shape() const { return shape_; }
  std::size_t pitch_bytes() const { return pitch_; }
  std::size_t size_bytes() const { return shape_.rows * pitch_; }
  std::byte* bytes() { return bytes_.get(); }
  const std::byte* bytes() const { return bytes_.get(); }
  float* row(std::size_t i) { return reinterpret_cast<float*>(bytes_.get() + i * pitch_); }
  const float* row(std::size_t i) const { return reinterpret_cast<const float*>(bytes_.get() + i * pitch_); }
  MatrixView<const float> view() const { return {row(0), shape_.rows, shape_.cols, pitch_}; }
  /// This matrix's bytes set to `other`'s (one shape and pitch).
  void copy_from(const HostMatrix& other);

 private:
  MatrixShape shape_;
  std::size_t pitch_ = 0;
  std::unique_ptr<std::byte[], void (*)(std::byte*)> bytes_{nullptr, nullptr};
};

/// Uniform values in [-1, 1) with no zero among them (so zeroing always changes what it must),
/// element (i, j) a hash of (seed, i, j).
void fill_matrix_random(HostMatrix& m, std::uint64_t seed);

/// b = aᵀ, by 32 × 32 blocks; `parallel`: the blocks' rows over OpenMP threads.
void transpose_cpu(const HostMatrix& a, HostMatrix& b, bool parallel);
/// c = fma(alpha, a, beta·b), the operation the library defines.
void add_cpu(float alpha, const HostMatrix& a, float beta, const HostMatrix& b, HostMatrix& c, bool parallel);
/// m's triangle set to 0 (m already holds the input).
void zero_triangle_cpu(HostMatrix& m, Triangle part, bool parallel);

/// `got` (a device output read back: rows × pitch bytes) against `want`, byte for byte, padding
/// included; the detail names the first differing element (row, column, expected, got) or
/// padding byte, and the count of differing elements.
CheckResult check_matrix_bits(std::span<const std::byte> got, const HostMatrix& want);

/// For results whose rounding the producer does not document (cuBLAS geam): every element of
/// `got` within 2 rounding errors, 2u·(|alpha·a| + |beta·b|), of the exact alpha·a + beta·b;
/// padding byte for byte.
CheckResult check_add_within_rounding(std::span<const std::byte> got, float alpha, const HostMatrix& a, float beta,
                                      const HostMatrix& b);

std::string_view triangle_name(Triangle part);  // "upper", "lower"

}  // namespace gpulab
