// Measured ceilings of the device: what the best possible kernel of each kind reaches here.
// Every report of a run divides by these, so "% of ceiling" means "% of what this GPU did today".
#pragma once

#include "core/device_info.hpp"
#include "core/timing.hpp"

#include <cstddef>

namespace gpulab {

struct Ceilings {
  std::size_t buffer_bytes = 0;  // size of each streamed buffer
  double copy_gbs = 0.0;         // device-to-device cudaMemcpy, bytes read + bytes written
  double read_gbs = 0.0;         // read-only stream (16-byte loads, nothing written back)
  double write_gbs = 0.0;        // write-only stream (16-byte stores)
  double add_gbs = 0.0;          // STREAM's add, c = a + b: two streams read, one written (all bytes)
  double fma_gflops = 0.0;       // fp32 FMA rate, 2 flops per FMA
  double l2_read_gbs = 0.0;      // read-only stream over a buffer a quarter of the L2, kept in it
  TimingStats copy, read, write, add, fma, l2_read;
};

/// The read ceiling's kernel over `bytes` (a multiple of 16) of `data`: `blocks` blocks of 256
/// threads, block b adding what it read into sink[b] (the L2 flush of GpuTimer).
void read_through(const void* data, std::size_t bytes, float* sink, unsigned blocks, cudaStream_t stream);

/// Measures the four ceilings with buffers of up to 1 GiB (less on a small card).
Ceilings measure_ceilings(const DeviceFacts& device, int reps = 20);

}  // namespace gpulab
