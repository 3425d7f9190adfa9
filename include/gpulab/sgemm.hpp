// gpulab/sgemm.hpp — C = alpha·op(A)·op(B) + beta·C in float32, row-major, the top rung of gpulab's
// SGEMM ladder.
//
//   // A: m × k, B: k × n, C: m × n, all packed (leading dimension = columns)
//   gpulab::sgemm(m, n, k, 1.0f, d_a, k, d_b, n, 0.0f, d_c, n, stream);
//   // A linear layer, y = x·wᵀ: x m × k, w stored n × k, read in place
//   gpulab::sgemm(gpulab::Op::as_is, gpulab::Op::transposed, m, n, k, 1.0f, d_x, k, d_w, k, 0.0f, d_y, n, stream);
//
// Operands stored transposed (Op::transposed): op(A) = Aᵀ with A stored k × m (lda ≥ m), op(B) = Bᵀ
// with B stored n × k (ldb ≥ k), read where they lie, never copied. Every precision takes every
// form within the same bounds (gpulab's own paths with the same arithmetic). The paths below that
// stream A or B once (few rows or columns, the fringe) and the copies to 16-byte rows take operands
// as stored: a product with an operand stored transposed runs on the big tiles (128 × 256, 128 ×
// 128 or 64 × 128, measured per shape) on the CUDA cores, and on the tensor cores as below but on
// compute capability 8.x, whose mma.sync path stages operands as stored: there fp32_tensor and tf32
// take the CUDA cores' FP32 (within either's bound). Element (i, p) of A stored transposed is
// a[p·lda + i].
//
// Contract
// - Row-major operands in device memory: element (i, j) of A is a[i·lda + j]. lda ≥ k, ldb ≥ n,
//   ldc ≥ n (in elements; any value, aligned or not: 16-byte-aligned rows take the faster loads).
//   Any m, n, k ≥ 0 below 2^31 − 1024 each: m = 0 or n = 0 does nothing (nothing is read or
//   checked but the leading dimensions), k = 0 gives C = beta·C.
//   Elements between a row's end and the next row (padding) are never read or written.
// - beta = 0: C is not read (it may hold NaNs or garbage), as in BLAS. alpha = 0: A and B are not
//   read (C = beta·C; their Inf and NaN do not reach C), as in BLAS.
// - Arithmetic is FP32 on the CUDA cores (no tensor cores, no TF32): every C element is one
//   thread's fused multiply-add chain over k in order, then c = fma(alpha, acc, beta·c), except
//   when the output has too few tiles to keep the GPU's SMs evenly busy and k is long enough: then
//   k is cut into slices (their count fixed by the shape and the device) whose partial sums are
//   added in a fixed order (split-K). C of at most 8 rows
//   (or at most 8 columns and many rows) takes a path that reads B (or A) once: k is cut among
//   the threads of a block or a cluster and their partial sums are added in a fixed order; so do
//   the last 1–8 rows (or columns) of a larger product (k ≥ 64) where leaving them out of the
//   tiles saves a wave of tiles, and always from m·n·k ≥ 2^34. The path depends on the shape and
//   the device only, so results are bitwise reproducible on one device.
//   Componentwise error: |ĉ − c| ≤ γ(k+2)·(|alpha|·|A|·|B| + |beta|·|C|), γ(j) = j·u/(1 − j·u).
// - Tile sizes are chosen per shape and device by measurement: the first call of a new shape on
//   a stream that is not being captured times the candidates and waits for the stream once; later
//   calls reuse the choice. With beta = 0 they run on the caller's own operands (C is overwritten
//   by each, then by the chosen one); with beta ≠ 0 they write a scratch output of m × n floats
//   taken in stream order from gpulab's pool (outputs over 256 MiB take a rule instead). Captured
//   calls use the choice when there is one, otherwise the rule, and never wait.
// - Work is issued on `stream`; a split-K call allocates its partial sums in stream order on that
//   stream (cudaMallocFromPoolAsync, so concurrent calls on other streams are safe) from a memory
//   pool of gpulab's own per device, which keeps what it holds for later calls. A large product
//   (k ≥ 64, m·n·k ≥ 2^32 and at least 3072 times the elements of the operands concerned) whose A
//   or B rows do not start on 16-byte boundaries (an odd packed k or n) first copies those
//   operands, in stream order, into rows padded to 16 bytes from the same pool (up to 1 GiB a copy;
//   larger ones, or a pool out of memory, run on the rows as given, slower): the results are the
//   same bits either way.
// - Precision (the last argument): SgemmPrecision::fp32, the default, is everything above.
//   SgemmPrecision::fp32_tensor lets a large product run on the tensor cores as 3xTF32: each value
//   x of A and B split into big = tf32(x) and small = tf32(x − big), a·b ≈ big·big + big·small +
//   small·big, each slice of k summed in a fresh tensor-core accumulator and added to the element's
//   sum by a rounding FP32 add. Before the split, each row of A and column of B whose largest
//   magnitude lies outside [2^−50, 2^51) is scaled by the power of two that brings it into [1, 2),
//   and each sum scaled back (exactly, but for results in FP32's subnormal range): subnormal, tiny
//   and near-overflow operands keep the bound. Bound: |ĉ − c| ≤ (γ(6k+4) + 2^−20)·(|alpha|·|A|·|B| +
//   |beta|·|C|), wherever no nonzero product of two elements, as scaled, lies below 2^−100 (an
//   element far smaller than its row's or column's largest, times another); measured errors are
//   smaller than the FP32 path's (docs/sgemm.md). Rows of A and columns of B holding ±Inf or NaN are
//   left unscaled and their elements of C computed as FP32 FMA chains: Inf and NaN reach C as in
//   the fp32 path. Which tensor cores, by the GPU's family (a policy per architecture):
//     compute capability 9.0 (H100, H200): wgmma fed by TMA, A and B split once in stream order
//       into gpulab's pool (8 bytes a value of A and of B); and large products, in any form
//       (k ≥ 4096 and m·n·k ≥ 2^36, or k ≥ 2048 and 2^37; no copies of C), take the Ozaki
//       scheme II on INT8 tensor cores instead (below);
//     8.0 (A100): mma.sync, each value split as its tile is staged (m + n words of scales);
//     7.5 (T4), 8.6, 8.9 (Ampere and Ada RTX, A10, L4) and 10.0+: the fp32 call (no TF32 tensor
//       cores on 7.5; on the others three TF32 products cost more than one FP32 product).
//   Taken only where it is faster (m, n > 8, k ≥ 128, m·n/(m + n) ≥ 256, m·n·k ≥ 2^29 — a rule of
//   the shape, so results are reproducible per device); elsewhere, and where the pool cannot hold
//   the scratch, the call is the fp32 one. The Ozaki path scales each row of A and column of B by a
//   power of two to integers of 2-norm ≤ 2^27, multiplies their residues modulo 7 moduli exactly on
//   INT8 tensor cores and rebuilds the sums by the Chinese remainder theorem. Its error is relative
//   to the rows' and columns' norms and can exceed the bound above where a row's and a column's
//   large elements miss each other, so a guard proves the bound element by element (one INT8
//   product more, of |A| and |B| rounded down over every 4th p, bounds |A|·|B| from below): an
//   element it cannot clear is recomputed as an FP32 FMA chain, and where more than a 16th of C's
//   128 × 128 tiles hold one, the whole product is the 3xTF32 path's, decided on the GPU without a
//   wait. The same bound either way, reproducible per device; rows and columns holding ±Inf or NaN
//   fail the guard, so Inf and NaN reach C as in the fp32 path. Its scratch, from gpulab's pool in
//   stream order: 7·(m + n)·k bytes of residues, (m + n)·k/4 of the guard's, 8·m·n of products,
//   and 3xTF32's split operands for the fallback (where the pool cannot hold the first, the call
//   is 3xTF32's; where not the fallback's, the FMA chains take every failing tile, slower).
//   SgemmPrecision::tf32 is for callers who want speed and
//   not FP32 accuracy: one TF32 product (inputs of 11 significant bits; bound (γ(2k+4) + 2^−10 +
//   2^−20)·…; gpulab's own kernels scale rows and columns as fp32_tensor does, cuBLAS does not). On
//   9.0 (H100, H200) it is cuBLAS's TF32 GEMM (cublasGemmEx, or cublasGemmStridedBatchedEx for a
//   batch, with CUBLAS_COMPUTE_32F_FAST_TF32: the vendor is one of the library's paths, measured
//   faster there), opened at run time (libcublas.so of the CUDA major version gpulab was built
//   with; the process's own copy where it holds one; libgpulab does not link it), but for the
//   products gpulab's own kernels run faster: rows not on 16-byte boundaries from m·n·k ≥ 2^33, A
//   stored transposed with B as stored from 2^36, and calls that cannot be passed to cuBLAS
//   (leading dimensions of 2^31 or more); its results are cuBLAS's bits (reproducible per device
//   and cuBLAS version). gpulab's own, and the whole call where no cuBLAS opens: a wider rule than
//   fp32_tensor's (k ≥ 64, m·n/(m + n) ≥ 128), inputs rounded to TF32, on wgmma (9.0) or mma.sync
//   (8.0 and newer), else the fp32 call. A GPU without TF32 tensor cores (7.5) refuses tf32
//   (gpulab::Error; sgemm_precision_supported says so beforehand).
// - C must not overlap A or B. Throws gpulab::Error on a null matrix that has elements, a
//   leading dimension smaller than its row, a side of 2^31 − 1024 or more, pointers that are not
//   4-byte aligned, an overlap, and on any CUDA error.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace gpulab {

/// How gpulab::sgemm reads an operand: as stored, or as the transpose of what is stored.
enum class Op {
  as_is,       ///< A stored m × k, B stored k × n
  transposed,  ///< A stored k × m (op(A) = Aᵀ), B stored n × k (op(B) = Bᵀ)
};

/// Op::transposed for an operand stored transposed, Op::as_is otherwise.
constexpr Op op_of(bool transposed) { return transposed ? Op::transposed : Op::as_is; }

/// The arithmetic gpulab::sgemm may use (see the contract above).
enum class SgemmPrecision {
  fp32,         ///< FP32 on the CUDA cores (the default)
  fp32_tensor,  ///< FP32-accurate: the Ozaki scheme (INT8, Hopper) or 3xTF32 on the tensor cores where faster, else fp32
  tf32,         ///< TF32 on the tensor cores (not FP32 accuracy): cuBLAS's where faster (Hopper), else gpulab's; sm_80+
};

void sgemm(std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a, std::size_t lda, const float* b,
           std::size_t ldb, float beta, float* c, std::size_t ldc, cudaStream_t stream = nullptr,
           SgemmPrecision precision = SgemmPrecision::fp32);

/// C = alpha·op(A)·op(B) + beta·C: op(A) is m × k, op(B) k × n (see Op); the contract above.
void sgemm(Op op_a, Op op_b, std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a, std::size_t lda,
           const float* b, std::size_t ldb, float beta, float* c, std::size_t ldc, cudaStream_t stream = nullptr,
           SgemmPrecision precision = SgemmPrecision::fp32);

/// A strided batch, as cublasSgemmStridedBatched: for i < batch, C_i = alpha·op(A_i)·op(B_i) +
/// beta·C_i with A_i at a + i·stride_a, B_i at b + i·stride_b and C_i at c + i·stride_c (elements;
/// strides of 0 give every member the same A or B). Each member as sgemm's contract says, within
/// its precision's bound: members of at most 8 rows or columns, and members the tensor cores take,
/// are one call each (their bits those of that call); the others run in one launch of the tiles
/// over the whole batch (blockIdx.y), without split-K or the fringe paths (bits of the tiles, one
/// FMA chain over k per element). The members of C must not overlap (stride_c at least a member's
/// span); the whole batch of C must not overlap the batches of A and B. batch = 0 does nothing.
void sgemm_strided_batched(Op op_a, Op op_b, std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a, std::size_t lda,
                           std::size_t stride_a, const float* b, std::size_t ldb, std::size_t stride_b, float beta, float* c,
                           std::size_t ldc, std::size_t stride_c, std::size_t batch, cudaStream_t stream = nullptr,
                           SgemmPrecision precision = SgemmPrecision::fp32);

/// Whether the current device runs sgemm with `precision` (tf32 needs TF32 tensor cores: compute
/// capability 8.0 and newer; fp32 and fp32_tensor run everywhere).
bool sgemm_precision_supported(SgemmPrecision precision);

}  // namespace gpulab
