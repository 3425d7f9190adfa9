// Copying the rows of a 2-D byte array between any two alignments at about the copy ceiling.
// cudaMemcpy2DAsync moves rows that do not start on 16-byte boundaries at about half of it (a packed
// 12345×6789 RGB image, 37035-byte rows: 0.33 ms a copy on an H100, docs/conv.md).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace gpulab {

/// dst's rows[0, rows) = src's, `row_bytes` each; rows `src_pitch` and `dst_pitch` bytes apart, at
/// any byte alignment. Reads and writes only the rows' bytes (never padding, never a byte before a
/// row or after it). The two must not overlap. Asynchronous on `stream`.
void copy_rows(const void* src, std::size_t src_pitch, void* dst, std::size_t dst_pitch, std::size_t row_bytes,
               std::size_t rows, cudaStream_t stream);

}  // namespace gpulab
