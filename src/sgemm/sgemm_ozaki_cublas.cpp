// The lab's Ozaki rungs with cuBLAS's INT8 GEMM for the products (one batched call a chunk of k,
// every modulus in it), and the choice between those and gpulab's own (sgemm_ozaki.hpp).
#include "core/cublas_handle.hpp"
#include "lib/launch_log.hpp"
#include "sgemm/sgemm_ozaki.hpp"

#include <algorithm>
#include <cstddef>

namespace gpulab::sgemm_ozaki {
namespace {

// Row-major C (m × n) is column-major Cᵀ = B̂ᵀ·Â: B's residue planes (n × depth, k contiguous) as
// the transposed operand, A's (m × depth) as the plain one — the TN form INT8 GEMMs want.
void cublas_chunks(const ChunkOperands& o, cudaStream_t stream) {
  const std::size_t a_plane = static_cast<std::size_t>(o.m) * o.depth, b_plane = static_cast<std::size_t>(o.n) * o.depth;
  const std::size_t elements = static_cast<std::size_t>(o.m) * o.n;
  const std::int32_t one = 1, zero = 0;
  for (int c = 0; c < o.chunks; ++c) {
    const std::size_t offset = static_cast<std::size_t>(c) * kChunk;
    const int kc = static_cast<int>(std::min<std::size_t>(kChunk, o.depth - offset));
    check_cublas(cublasGemmStridedBatchedEx(cublas_on(stream), CUBLAS_OP_T, CUBLAS_OP_N, o.n, o.m, kc, &one, o.b + offset, CUDA_R_8I,
                                            static_cast<int>(o.depth), static_cast<long long>(b_plane), o.a + offset, CUDA_R_8I,
                                            static_cast<int>(o.depth), static_cast<long long>(a_plane), &zero,
                                            o.products + static_cast<std::size_t>(c) * o.moduli * elements, CUDA_R_32I, o.n,
                                            static_cast<long long>(elements), o.moduli, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT),
                 "cublasGemmStridedBatchedEx (INT8, the Ozaki scheme's products)");
    note_library_call("cublasGemmStridedBatchedEx", "cuBLAS INT8, a product a modulus, its kernels not listed", stream);
  }
}

}  // namespace

void run(const sgemm_device::GemmArgs& g, cudaStream_t stream, int moduli, Products by) {
  product(g, stream, moduli, by == Products::cublas ? cublas_chunks : nullptr);
}

}  // namespace gpulab::sgemm_ozaki
