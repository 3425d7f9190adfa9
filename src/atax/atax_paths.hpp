// The atax paths beside the library's own, callable one by one so that the ladder can time rung 3
// (two passes), rung 4 (the first fused pass), rung 5 (the cooperative pass) and rung 6 (half-size
// blocks, two rows a barrier) apart from the library's choice between the last two.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace gpulab::atax_detail {

/// Temporary bytes of two_pass(): t (rows floats, 256-byte aligned) and the chunks' partial y.
std::size_t two_pass_temp_bytes(std::uint32_t rows, std::uint32_t cols);

/// y = Aᵀ(A·x) in two passes over A: a warp per row for t, then columns over row chunks, the
/// chunks added in a fixed order. Deterministic.
void two_pass(const float* a, const float* x, std::uint32_t rows, std::uint32_t cols, float* y, void* temp,
              cudaStream_t stream);

/// Whether a fused pass can hold a row of this many columns in registers (cols ≤ 16384).
bool fused_takes(std::uint32_t cols);

/// Rung 4: one pass over A by one 1024-thread block per SM, then a second launch adding the
/// blocks' partial y in order (two_pass() where fused_takes() is false). Deterministic.
std::size_t first_fused_temp_bytes(std::uint32_t rows, std::uint32_t cols);
void first_fused(const float* a, const float* x, std::uint32_t rows, std::uint32_t cols, float* y, void* temp,
                 cudaStream_t stream);

/// Rung 5: the cooperative fused pass in 256- or 1024-thread blocks (the library's below 15 bytes of
/// DRAM a cycle an SM), two_pass() where the fused kernels do not take the width. Rung 6: the same in
/// 512-thread blocks from 4097 to 10240 columns where rows load 16 bytes at a time, its rows two at
/// a time (the library's from 15 bytes a cycle an SM). Both check their arguments as atax() and take
/// atax_temp_bytes(rows, cols). Deterministic.
void cooperative_pass(const float* a, const float* x, std::uint32_t rows, std::uint32_t cols, float* y, void* temp,
                      std::size_t temp_bytes, cudaStream_t stream);
void half_blocks(const float* a, const float* x, std::uint32_t rows, std::uint32_t cols, float* y, void* temp, std::size_t temp_bytes,
                 cudaStream_t stream);

}  // namespace gpulab::atax_detail
