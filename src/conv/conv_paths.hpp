// The library's conv path, for the ladder's table.
#pragma once

#include "conv/conv_args.hpp"

#include <cuda_runtime.h>

namespace gpulab::conv_detail {

/// The library's kernel: 32 × 8 pixels a block from a shared 34 × 10 neighbourhood.
void run_shared_tile(const conv_device::ConvArgs& a, cudaStream_t stream);

}  // namespace gpulab::conv_detail
