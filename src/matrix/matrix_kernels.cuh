// The matrix ladders' kernels below the library's, in ladder order. Each comment says what the
// kernel adds over the rung before and what it still costs. Grids are 2-D: x across columns
// (or tiles of them), y across rows, looping where the rows outnumber gridDim.y's 65535.
#pragma once

#include "matrix/matrix_device.cuh"

#include <cstddef>

namespace gpulab::matrix_ladder {

// ---- transpose: b (cols × rows) = aᵀ -------------------------------------------------------------------

/// Rung 1, naive: a thread per element, threads of a warp along a row of a. Reads are coalesced
/// (32 neighbours), writes are not: the warp's 32 stores land in 32 rows of b, a sector each.
__global__ void transpose_naive_rows(MatrixView<const float> a, MatrixView<float> b) {
  const std::size_t j = std::size_t{blockIdx.x} * 32 + threadIdx.x;
  for (std::size_t i = std::size_t{blockIdx.y} * 8 + threadIdx.y; i < a.rows; i += std::size_t{gridDim.y} * 8)
    if (j < a.cols) row_of(b, j)[i] = row_of(a, i)[j];
}

/// Rung 2, the reverse: threads of a warp down a column of a, so the writes are coalesced and the
/// reads scattered. Scattered reads cost less than scattered writes: a read sector serves the
/// neighbouring warps from L1/L2, a partial write must be merged.
__global__ void transpose_naive_cols(MatrixView<const float> a, MatrixView<float> b) {
  const std::size_t i = std::size_t{blockIdx.x} * 32 + threadIdx.x;
  for (std::size_t j = std::size_t{blockIdx.y} * 8 + threadIdx.y; j < a.cols; j += std::size_t{gridDim.y} * 8)
    if (i < a.rows) row_of(b, j)[i] = row_of(a, i)[j];
}

/// Rungs 3 and 4: a 32 × 32 tile through shared memory, a thread per element (32 × 32 threads):
/// rows of the tile are read coalesced, columns of it written coalesced. Without padding (rung 3)
/// the column read of the tile hits one bank 32 times; a 33rd column (rung 4) spreads it.
template <unsigned kPad>
__global__ void transpose_tile(MatrixView<const float> a, MatrixView<float> b, std::size_t tile_rows) {
  __shared__ float tile[32][32 + kPad];
  const unsigned tx = threadIdx.x, ty = threadIdx.y;
  const std::size_t j0 = std::size_t{blockIdx.x} * 32;
  for (std::size_t ti = blockIdx.y; ti < tile_rows; ti += gridDim.y) {
    const std::size_t i0 = ti * 32;
    if (i0 + ty < a.rows && j0 + tx < a.cols) tile[ty][tx] = row_of(a, i0 + ty)[j0 + tx];
    __syncthreads();
    if (j0 + ty < a.cols && i0 + tx < a.rows) row_of(b, j0 + ty)[i0 + tx] = tile[tx][ty];
    __syncthreads();
  }
}

/// Rung 5: the padded tile with 32 × 8 threads, four elements each: four loads in flight per
/// thread and the index arithmetic paid once for four, a quarter of the threads to schedule.
__global__ void transpose_tile_4_per_thread(MatrixView<const float> a, MatrixView<float> b, std::size_t tile_rows) {
  __shared__ float tile[32][33];
  const unsigned tx = threadIdx.x, ty = threadIdx.y;
  const std::size_t j0 = std::size_t{blockIdx.x} * 32;
  for (std::size_t ti = blockIdx.y; ti < tile_rows; ti += gridDim.y) {
    const std::size_t i0 = ti * 32;
#pragma unroll
    for (unsigned y = ty; y < 32; y += 8)
      if (i0 + y < a.rows && j0 + tx < a.cols) tile[y][tx] = row_of(a, i0 + y)[j0 + tx];
    __syncthreads();
#pragma unroll
    for (unsigned y = ty; y < 32; y += 8)
      if (j0 + y < a.cols && i0 + tx < a.rows) row_of(b, j0 + y)[i0 + tx] = tile[tx][y];
    __syncthreads();
  }
}

// ---- add: c = alpha·a + beta·b --------------------------------------------------------------------------

/// Rung 1: a thread per element on a 2-D grid of 32 × 8 blocks: coalesced 4-byte accesses, one
/// element per thread, a block's worth of index arithmetic per 256 elements.
__global__ void add_thread_per_element(float alpha, MatrixView<const float> a, float beta, MatrixView<const float> b,
                                       MatrixView<float> c) {
  const std::size_t j = std::size_t{blockIdx.x} * 32 + threadIdx.x;
  for (std::size_t i = std::size_t{blockIdx.y} * 8 + threadIdx.y; i < c.rows; i += std::size_t{gridDim.y} * 8)
    if (j < c.cols) row_of(c, i)[j] = fmaf(alpha, row_of(a, i)[j], beta * row_of(b, i)[j]);
}

// ---- triangle zeroing: m[i][j] = 0 for j > i (upper) or j < i (lower) --------------------------------------

/// Rung 1, the way a first program (and torch.triu_) does it: every element read and written
/// back, zero where the test says so.
__global__ void zero_read_write_all(MatrixView<float> m, Triangle part) {
  const std::size_t j = std::size_t{blockIdx.x} * 32 + threadIdx.x;
  for (std::size_t i = std::size_t{blockIdx.y} * 8 + threadIdx.y; i < m.rows; i += std::size_t{gridDim.y} * 8)
    if (j < m.cols) {
      float* row = row_of(m, i);
      row[j] = in_zeroed_triangle(i, j, part) ? 0.f : row[j];
    }
}

/// Rung 2: still a thread per element, but only the triangle is written and nothing is read: the
/// bytes moved halve or better, while every thread of the untouched part is still launched.
__global__ void zero_test_per_element(MatrixView<float> m, Triangle part) {
  const std::size_t j = std::size_t{blockIdx.x} * 32 + threadIdx.x;
  for (std::size_t i = std::size_t{blockIdx.y} * 8 + threadIdx.y; i < m.rows; i += std::size_t{gridDim.y} * 8)
    if (j < m.cols && in_zeroed_triangle(i, j, part)) row_of(m, i)[j] = 0.f;
}

}  // namespace gpulab::matrix_ladder
