// What the current device allows a launch, asked in one place: the library's paths size their
// resident grids with it, and `gpulab atax run` reports it.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace gpulab {

/// An attribute of the current device (cudaDeviceGetAttribute, errors thrown).
int current_device_attribute(cudaDeviceAttr attribute);

/// Blocks of `kernel` the current device holds at once with this block size and dynamic shared
/// memory: the occupancy per SM (registers, threads, shared memory) times the SMs. 0 when a
/// block does not fit an SM at all.
unsigned resident_blocks(const void* kernel, unsigned block, std::size_t dynamic_smem = 0);

}  // namespace gpulab
