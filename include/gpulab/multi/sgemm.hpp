// gpulab/multi/sgemm.hpp — gpulab::sgemm over several GPUs, A split by rows.
// The contract every multi-GPU function shares is gpulab/multi_gpu.hpp's. The second form takes
// every rank at once, for one process driving several GPUs (communicators from ncclCommInitAll).
#pragma once

#include <gpulab/multi_gpu.hpp>

#include <cstddef>
#include <cstdint>
#include <span>

namespace gpulab::multi {

/// C = alpha·A·B + beta·C with A split by rows: this rank passes its rows of A (rows_of(m, …), lda
/// apart), the whole B, and C whole and packed (m × n, ldc = n) on every rank. Each rank computes
/// its rows of C (gpulab::sgemm's contract; beta ≠ 0 reads only its own rows), and every rank ends
/// with the whole C, the same bits as one GPU computing those rows (each element is one rank's,
/// nothing is added across ranks). How the rows travel: from one process whose GPUs reach each
/// other's memory (the all-ranks form), each rank writes its rows into every rank's C as its tiles
/// are made; otherwise NCCL sends each rank's rows to the others after they are made (a large
/// product in stages, each stage's rows sent while the next are computed).
void sgemm(std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a_rows, std::size_t lda,
           const float* b, std::size_t ldb, float beta, float* c, ncclComm_t comm, cudaStream_t stream = nullptr);

/// Every rank at once, each with its device (one process driving several GPUs).
struct SgemmRank {
  int device;
  const float* a_rows;
  const float* b;
  float* c;
  ncclComm_t comm;
  cudaStream_t stream;
};
void sgemm(std::span<const SgemmRank> ranks, std::size_t m, std::size_t n, std::size_t k, float alpha, std::size_t lda,
           std::size_t ldb, float beta);

}  // namespace gpulab::multi
