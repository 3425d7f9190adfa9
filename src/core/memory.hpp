// Refusing sizes that do not fit, before anything is allocated.
#pragma once

#include <cstddef>
#include <string_view>

namespace gpulab {

/// Throws gpulab::Error naming `what`, the bytes needed and the bytes free when `bytes` (plus a
/// small safety margin for the CUDA context's own allocations) exceeds the device's free memory.
void require_device_bytes(std::size_t bytes, std::string_view what);

/// Half the machine's physical memory: what one input file may take when loaded.
std::size_t host_memory_allowance();

/// Fills `bytes` of device memory with `byte` on `stream` (the poison of a checked run).
void poison_device(void* ptr, std::size_t bytes, unsigned char byte, void* stream);

}  // namespace gpulab
