// The operands of one SGEMM call as every kernel, launcher and ladder row takes them.
#pragma once

#include <cstddef>

namespace gpulab::sgemm_device {

/// C = alpha·A·B + beta·C, row-major, leading dimensions in elements; sides checked to fit an int.
struct GemmArgs {
  int m = 0, n = 0, k = 0;
  float alpha = 1.f, beta = 0.f;
  const float* a = nullptr;
  std::size_t lda = 0;
  const float* b = nullptr;
  std::size_t ldb = 0;
  float* c = nullptr;
  std::size_t ldc = 0;
};

}  // namespace gpulab::sgemm_device
