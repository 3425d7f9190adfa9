// Device helpers the matrix ladders and the library share: rows of a pitched matrix, the span of a
// row that triangle zeroing changes.
#pragma once

#include <gpulab/matrix.hpp>

#include <cstddef>

namespace gpulab {

/// Row r of a matrix with a byte pitch.
template <class T>
__host__ __device__ __forceinline__ T* row_of(MatrixView<T> m, std::size_t r) {
  using Byte = std::conditional_t<std::is_const_v<T>, const char, char>;
  return reinterpret_cast<T*>(reinterpret_cast<Byte*>(m.data) + r * m.pitch_bytes);
}

/// The columns [first, last) of row i that zero_triangle sets to 0: j > i (upper) or j < i (lower),
/// within the row's `cols` columns.
struct ColumnSpan {
  std::size_t first, last;
};
__host__ __device__ __forceinline__ ColumnSpan zeroed_span(std::size_t i, std::size_t cols, Triangle part) {
  if (part == Triangle::upper) return {i + 1 < cols ? i + 1 : cols, cols};
  return {0, i < cols ? i : cols};
}

__host__ __device__ __forceinline__ bool in_zeroed_triangle(std::size_t i, std::size_t j, Triangle part) {
  return part == Triangle::upper ? j > i : j < i;
}

}  // namespace gpulab
