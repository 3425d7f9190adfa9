// The library's atax paths, callable one by one so that the ladder can time rung 3 (the two-pass
// path) apart from the library's choice (rung 4).
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

/// Whether atax() takes the fused single pass for this many columns.
bool fused_takes(std::uint32_t cols);

}  // namespace gpulab::atax_detail
