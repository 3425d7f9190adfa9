// The atax ladder's first kernels, y = Aᵀ(A·x), A rows × cols row-major float32. Rungs 3 and 4
// are the library's two paths (atax.cu); the launchers and the table are in atax_ladder.cu.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpulab::atax_ladder {

// ---- rung 1: the seed's mult_MatByVec / mult_TransByVec --------------------------------------------
// A block owns `lines_per_block` ≤ kSeedLines output values ("lines": rows of A for A·x, columns for
// Aᵀ·t), as few as lets every block of the grid be resident at once (the seed's findBlockCount
// looked for the same: one line per block where the GPU holds that many blocks). The
// input vector goes through shared memory one tile ("part") at a time; for every line the block's
// threads multiply their share of the tile, sum it with a tree in shared memory, and thread 0 adds
// it to the line's accumulator (the seed's Rds). For Aᵀ·t the line is a column, so the threads
// of a block read addresses `cols` floats apart: uncoalesced, as in the seed. Correct for any
// shape (the seed needed multiples of its tile and block).
constexpr unsigned kSeedThreads = 128;
constexpr unsigned kSeedTile = 15 * kSeedThreads;  // the seed's 1920 numbers
constexpr unsigned kSeedLines = 64;

template <bool kTransposed>
__global__ void __launch_bounds__(kSeedThreads)
seed_tiled(const float* __restrict__ a, const float* __restrict__ v, std::uint32_t rows, std::uint32_t cols,
           std::uint32_t lines_per_block, float* __restrict__ out) {
  __shared__ float tile[kSeedTile];
  __shared__ float line_sums[kSeedLines];
  __shared__ float partial[kSeedThreads];
  const std::uint32_t lines = kTransposed ? cols : rows, length = kTransposed ? rows : cols;
  const std::uint32_t first = blockIdx.x * lines_per_block;
  const std::uint32_t here = min(lines_per_block, lines - first);
  if (threadIdx.x < kSeedLines) line_sums[threadIdx.x] = 0.f;
  for (std::uint32_t part = 0; part < length; part += kSeedTile) {
    const std::uint32_t part_len = min(kSeedTile, length - part);
    __syncthreads();  // the previous part's tile is no longer read
    for (std::uint32_t k = threadIdx.x; k < part_len; k += kSeedThreads) tile[k] = v[part + k];
    __syncthreads();
    for (std::uint32_t l = 0; l < here; ++l) {
      const std::size_t line = first + l;
      float s = 0.f;
      for (std::uint32_t k = threadIdx.x; k < part_len; k += kSeedThreads) {
        const std::size_t along = part + k;
        s += a[kTransposed ? along * cols + line : line * cols + along] * tile[k];
      }
      partial[threadIdx.x] = s;
      __syncthreads();
      for (unsigned stride = kSeedThreads / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
      }
      if (threadIdx.x == 0) line_sums[l] += partial[0];
    }
  }
  __syncthreads();
  if (threadIdx.x < here) out[first + threadIdx.x] = line_sums[threadIdx.x];
}

// ---- rung 2: naive, a thread per output -----------------------------------------------------------
// A·x: thread r walks row r (neighbouring threads read addresses a row apart: uncoalesced).
__global__ void naive_rows(const float* __restrict__ a, const float* __restrict__ x, std::uint32_t rows,
                           std::uint32_t cols, float* __restrict__ t) {
  const std::size_t r = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.f;
  for (std::size_t j = 0; j < cols; ++j) s += a[r * cols + j] * x[j];
  t[r] = s;
}
// Aᵀ·t: thread j walks column j (neighbouring threads read neighbouring floats: coalesced, but
// only `cols` threads, far too few for a wide GPU when cols is small).
__global__ void naive_cols(const float* __restrict__ a, const float* __restrict__ t, std::uint32_t rows,
                           std::uint32_t cols, float* __restrict__ y) {
  const std::size_t j = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  float s = 0.f;
  for (std::size_t i = 0; i < rows; ++i) s += a[i * cols + j] * t[i];
  y[j] = s;
}

}  // namespace gpulab::atax_ladder
