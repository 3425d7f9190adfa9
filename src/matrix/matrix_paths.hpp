// The matrix library's paths, callable one by one so that the ladders can time a path apart from
// the library's choice among them (the library adds the dispatch by shape and layout).
#pragma once

#include <gpulab/matrix.hpp>

#include <cuda_runtime.h>

namespace gpulab::matrix_detail {

/// Throws gpulab::Error when `v` breaks the contract of gpulab/matrix.hpp; `who` names it.
void require_valid_view(MatrixView<const float> v, const char* who);

/// Whether every row of `v` starts on a 16-byte boundary (data and pitch multiples of 16).
bool rows_aligned16(MatrixView<const float> v);

/// Transpose rung 6: 64 × 64 tiles, a 4 × 4 block per thread transposed in registers, 16-byte
/// loads and stores when both matrices' rows are 16-byte aligned, a swizzled shared tile.
void transpose_tiled(MatrixView<const float> a, MatrixView<float> b, cudaStream_t stream);

/// Transpose rung 7: b's rows stored 16 bytes at a time on their own 16-byte boundaries, whatever
/// the pitches (a 64-row tile of b per block, a's rows loaded with a halo of 4); `strip_major`,
/// rung 8: the blocks launched strip by strip, so that a wave of them writes whole rows of b.
void transpose_realigned_tiles(MatrixView<const float> a, MatrixView<float> b, cudaStream_t stream, bool strip_major);

/// Square in-place transpose: tiles (I, J) and (J, I) swapped through shared memory by one block.
void transpose_square_in_place(MatrixView<float> m, cudaStream_t stream);

/// Add rung 2: a resident grid, a warp per row, 16-byte accesses when all rows are aligned.
void add_by_rows(float alpha, MatrixView<const float> a, float beta, MatrixView<const float> b, MatrixView<float> c,
                 cudaStream_t stream);

}  // namespace gpulab::matrix_detail
