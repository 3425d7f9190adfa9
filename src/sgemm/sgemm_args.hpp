// The operands of one SGEMM call as every kernel, launcher and ladder row takes them.
#pragma once

#include "lib/host_device.hpp"

#include <cstddef>

namespace gpulab::sgemm_device {

/// C = alpha·op(A)·op(B) + beta·C, row-major, leading dimensions in elements; sides checked to fit
/// an int. op(A) is m × k: A as stored (a[i·lda + p]), or, a_transposed, A stored k × m
/// (a[p·lda + i]); op(B) is k × n: B as stored (b[p·ldb + j]) or, b_transposed, stored n × k
/// (b[j·ldb + p]).
struct GemmArgs {
  int m = 0, n = 0, k = 0;
  float alpha = 1.f, beta = 0.f;
  const float* a = nullptr;
  std::size_t lda = 0;
  const float* b = nullptr;
  std::size_t ldb = 0;
  float* c = nullptr;
  std::size_t ldc = 0;
  bool a_transposed = false, b_transposed = false;
  /// A strided batch: `batch` products, member i's A, B and C at a + i·stride_a, b + i·stride_b
  /// and c + i·stride_c (elements), member(i). The tiled kernels take member blockIdx.y.
  int batch = 1;
  std::size_t stride_a = 0, stride_b = 0, stride_c = 0;
  /// Copies of C written with it (sgemm_with_copies: multi::sgemm's rows sent to the other GPUs as
  /// they are made): the element at C + e is also stored at C + e + copy_offsets[q] (bytes, a
  /// multiple of 16, so that C's 16-byte stores stay aligned there), for q < copies. As offsets,
  /// they follow C through a block's arithmetic; in device memory, so that a kernel indexes them
  /// without copying its arguments to each thread's local memory.
  static constexpr int kMaxCopies = 7;
  int copies = 0;
  const std::ptrdiff_t* copy_offsets = nullptr;
  /// The arguments from member i of the batch on (its A, B and C first).
  GPULAB_HOST_DEVICE GemmArgs member(std::size_t i) const {
    GemmArgs g = *this;
    g.a += i * stride_a, g.b += i * stride_b, g.c += i * stride_c;
    return g;
  }
  /// Both operands as stored (the form every path takes; the big tiles and the tensor cores take
  /// the others).
  bool as_stored() const { return !a_transposed && !b_transposed; }
};

/// The arguments of one call (sides already checked to fit an int): one place builds them.
inline GemmArgs gemm_args(std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a, std::size_t lda,
                          const float* b, std::size_t ldb, float beta, float* c, std::size_t ldc) {
  GemmArgs g;
  g.m = static_cast<int>(m), g.n = static_cast<int>(n), g.k = static_cast<int>(k);
  g.alpha = alpha, g.beta = beta;
  g.a = a, g.lda = lda, g.b = b, g.ldb = ldb, g.c = c, g.ldc = ldc;
  return g;
}

}  // namespace gpulab::sgemm_device
