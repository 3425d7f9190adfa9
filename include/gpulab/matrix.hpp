// gpulab/matrix.hpp — transpose, add and triangle zeroing of row-major float32 matrices, the top
// rungs of gpulab's matrix ladders.
//
//   // a packed 1000 × 3000 matrix and its transpose in memory from cudaMallocPitch
//   auto a = gpulab::packed_matrix<const float>(d_a, 1000, 3000);
//   gpulab::MatrixView<float> b{d_b, 3000, 1000, b_pitch_bytes};
//   gpulab::transpose(a, b, stream);                              // b = aᵀ
//   gpulab::add(1.0f, a, 1.0f, a2, c, stream);                     // c = a + a2
//   gpulab::zero_triangle(c, gpulab::Triangle::upper, stream);     // c[i][j] = 0 for j > i
//
// Contract (every function)
// - A MatrixView is rows × cols floats in device memory, row r starting `pitch_bytes` × r bytes
//   after `data`: packed (pitch = cols·4) or pitched (cudaMallocPitch's pitch, or any other).
//   The pitch must be a multiple of 4 and at least cols·4; `data` must be 4-byte aligned. Any
//   shape (1 × 1, 1 × N, N × 1, primes, rows and cols up to 2^31 − 1); an empty matrix does nothing.
// - The bytes between a row's last element and the next row (the padding) are never read or
//   written: they may hold anything, another array included.
// - Work is issued on `stream`, asynchronously to the host; nothing is allocated. 16-byte accesses
//   are used where every row involved is 16-byte aligned (a pitch that is a multiple of 16, e.g.
//   cudaMallocPitch's, or a packed matrix, whose rows are one vector); other layouts take a
//   slower scalar path, with the same results.
// - Results are exact: transpose and zeroing move bits; add rounds once per element
//   (c = fma(alpha, a, beta·b): for alpha = beta = 1, the float sum a + b).
// - Throws gpulab::Error on a bad view (null data with elements, pitch too small or not a multiple
//   of 4, misaligned data), mismatched shapes, outputs that overlap inputs (except where stated),
//   and on any CUDA error of the launch.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <type_traits>

namespace gpulab {

/// A row-major matrix in device memory (see the contract above).
template <class T>
struct MatrixView {
  T* data = nullptr;
  std::size_t rows = 0;
  std::size_t cols = 0;
  std::size_t pitch_bytes = 0;  // bytes from the start of one row to the start of the next

  /// A view of mutable elements is also a view of const ones.
  template <class U>
    requires(std::is_same_v<U, const T> && !std::is_const_v<T>)
  constexpr operator MatrixView<U>() const {
    return {data, rows, cols, pitch_bytes};
  }
};

/// A view of `rows` × `cols` elements stored without padding (pitch = cols · sizeof(T)).
template <class T>
constexpr MatrixView<T> packed_matrix(T* data, std::size_t rows, std::size_t cols) {
  return {data, rows, cols, cols * sizeof(T)};
}

/// b = aᵀ. `b` must be a.cols × a.rows. Out of place (the two must not overlap), or in place when
/// a and b are the same square matrix (same data and pitch).
void transpose(MatrixView<const float> a, MatrixView<float> b, cudaStream_t stream = nullptr);

/// c = alpha·a + beta·b, element by element (cuBLAS's geam without transposes). All three have one
/// shape; c may be a or b (same data and pitch), and must not overlap them otherwise.
void add(float alpha, MatrixView<const float> a, float beta, MatrixView<const float> b, MatrixView<float> c,
         cudaStream_t stream = nullptr);

/// Which elements zero_triangle sets to 0: above the main diagonal (j > i) or below it (j < i).
enum class Triangle { upper, lower };

/// Sets the elements of `m` strictly above (upper) or below (lower) its main diagonal to 0, in
/// place; rectangular matrices included (the diagonal is i = j). Nothing else is read or written.
void zero_triangle(MatrixView<float> m, Triangle part, cudaStream_t stream = nullptr);

}  // namespace gpulab
