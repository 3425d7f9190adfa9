// The library's conv paths (conv.cu, conv_window.cu), for the library and the ladder's table.
#pragma once

#include "conv/conv_args.hpp"

#include <cuda_runtime.h>

namespace gpulab::conv_detail {

/// 32 × 8 pixels a block from a shared 34 × 10 neighbourhood.
void run_shared_tile(const conv_device::ConvArgs& a, cudaStream_t stream);
/// 16 pixels × 8 rows a thread from a 3-row window in registers; 16-byte accesses where the
/// images' rows are 16-byte aligned (rows_aligned16), bytes otherwise.
void run_sliding_window(const conv_device::ConvArgs& a, cudaStream_t stream);
/// The same window with two channels a register (conv_window.cu): needs lanes_fit.
void run_lanes(const conv_device::ConvArgs& a, cudaStream_t stream);
/// The lanes on rows at any alignment (16-byte accesses realigned in registers): needs lane_weights_fit.
void run_lanes_realigned(const conv_device::ConvArgs& a, cudaStream_t stream);
bool rows_aligned16(const conv_device::ConvArgs& a);
/// The weights' magnitudes summing to at most 128 (two channels fit a register).
bool lane_weights_fit(const conv_device::ConvArgs& a);
/// Rows 16-byte aligned and lane_weights_fit.
bool lanes_fit(const conv_device::ConvArgs& a);

}  // namespace gpulab::conv_detail
