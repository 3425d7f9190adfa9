// NPP's 3×3 filter (nppiFilterBorder_8u_C3R_Ctx), the conv ladder's vendor, found at run time: NPP
// ships with the CUDA toolkit on the GPU machines (/usr/local/cuda/lib64) but not on the build
// machine, so gpulab declares the few types of its ABI it uses and loads libnppif with dlopen.
#pragma once

#include "conv/conv_args.hpp"

#include <cuda_runtime.h>

#include <optional>
#include <string>

namespace gpulab {

/// Why NPP cannot be used here (the library not found, or the function not in it), or nullopt.
std::optional<std::string> npp_unavailable();

/// out = NPP's filter over in (replicate border only: NPP's FilterBorder supports no other);
/// a.weights_reversed must hold the weights in device memory. Throws gpulab::Error on an NPP error.
void npp_filter_border(const conv_device::ConvArgs& a, cudaStream_t stream);

}  // namespace gpulab
