// gpulab/multi/atax.hpp — gpulab::atax over several GPUs, A split by rows.
// The contract every multi-GPU function shares is gpulab/multi_gpu.hpp's. The second form takes
// every rank at once, for one process driving several GPUs (communicators from ncclCommInitAll).
#pragma once

#include <gpulab/multi_gpu.hpp>

#include <cstddef>
#include <cstdint>
#include <span>

namespace gpulab::multi {

/// Bytes of temporary storage atax needs on a rank holding `rows` rows of `cols` among `ranks`.
std::size_t atax_temp_bytes(std::uint32_t rows, std::uint32_t cols, int ranks);

/// y = Σ_r A_rᵀ(A_r·x) with A split by rows (this rank's `rows` rows, row-major, and the whole x),
/// on every rank. rows may be 0.
void atax(const float* a_rows, const float* x, std::uint32_t rows, std::uint32_t cols, float* y, void* temp,
          std::size_t temp_bytes, ncclComm_t comm, cudaStream_t stream = nullptr);

/// Every rank at once, each with its device (one process driving several GPUs).
struct AtaxRank {
  int device;
  const float* a_rows;
  const float* x;
  std::uint32_t rows;
  float* y;
  void* temp;
  std::size_t temp_bytes;
  ncclComm_t comm;
  cudaStream_t stream;
};
void atax(std::span<const AtaxRank> ranks, std::uint32_t cols);

}  // namespace gpulab::multi
