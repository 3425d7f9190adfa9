// gpulab/atax.hpp — y = Aᵀ(A·x) for a row-major float32 matrix A (rows × cols), the top rung of
// gpulab's atax ladder (seed 004).
//
//   std::size_t bytes = gpulab::atax_temp_bytes(rows, cols);
//   gpulab::DeviceBuffer<std::byte> temp(bytes);
//   gpulab::atax(d_a, d_x, rows, cols, d_y, temp.data(), bytes, stream);
//
// Contract
// - `a` holds rows × cols floats (row-major), `x` cols floats, `y` cols floats, all in device
//   memory; 1 ≤ rows, cols < 2^31. `y` is overwritten.
// - Path by shape: for 128 ≤ cols ≤ 16384 one pass over A in one cooperative launch (each block
//   owns a panel of rows: tᵢ = aᵢ·x, then y += tᵢ·aᵢ with the row still in registers; after a
//   grid-wide barrier the blocks' partial y are added in block order); otherwise two passes (a
//   warp per row for t, columns split over row chunks for y, chunks added in a fixed order).
//   Where each SM must take 15 bytes of DRAM a cycle or more (an H200; not an H100, A100 or T4)
//   and 4096 < cols ≤ 10240 with 16-byte rows, the pass runs in 512-thread blocks that take their
//   rows two at a time (fewer instructions a byte); the device decides, so results stay
//   deterministic per device.
// - Any alignment of the pointers: where cols % 4 == 0 and `a` is 16-byte aligned (as
//   cudaMalloc's pointers are), A is read 16 bytes at a time, otherwise 4.
// - Deterministic: same input, same device → same bits. The result is within the bound of
//   check_atax (docs/atax.md) of the exact y.
// - Asynchronous on `stream`; one kernel launch (three on the two-pass path); nothing is
//   allocated. The temporary storage needs no initialisation.
// - Throws gpulab::Error on a null pointer, a bad shape, too little temporary storage, or any
//   CUDA error of the launches.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace gpulab {

/// Bytes of temporary device storage atax() needs for this shape on the current device.
std::size_t atax_temp_bytes(std::uint32_t rows, std::uint32_t cols);

/// y = Aᵀ(A·x) (see the contract above).
void atax(const float* a, const float* x, std::uint32_t rows, std::uint32_t cols, float* y, void* temp,
          std::size_t temp_bytes, cudaStream_t stream = nullptr);

}  // namespace gpulab
