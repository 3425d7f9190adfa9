// Measured ceilings of the device: what the best possible kernel of each kind reaches here.
// Every report of a run divides by these, so "% of ceiling" means "% of what this GPU did today".
#pragma once

#include "core/device_info.hpp"
#include "core/timing.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace gpulab {

/// The read stream with a given concurrency: `warps_per_sm` warps on every SM, each thread keeping
/// `loads_per_thread` 16-byte loads in flight, so bytes_per_sm = warps · 32 · loads · 16.
/// `latency_ns`: what Little's law makes of it (bytes in flight over the whole GPU ÷ bandwidth), the
/// time a load took under that load.
struct InFlightPoint {
  int warps_per_sm = 0, loads_per_thread = 0;
  std::size_t bytes_per_sm = 0;
  double gbs = 0.0, latency_ns = 0.0;
  TimingStats time;
};

/// A tensor-core ceiling: GFLOP/s (TF32) or GOP/s (INT8), 2 a multiply-add; 0 where the GPU has no
/// such tensor cores. `form`: the instruction measured ("wgmma m64n256k8 tf32", "mma.sync …").
struct TensorCeiling {
  double gflops = 0.0;
  std::string form;
  TimingStats time;
};

struct Ceilings {
  std::size_t buffer_bytes = 0;  // size of each streamed buffer
  double copy_gbs = 0.0;         // device-to-device cudaMemcpy, bytes read + bytes written
  double read_gbs = 0.0;         // read-only stream (16-byte loads, nothing written back)
  double write_gbs = 0.0;        // write-only stream (16-byte stores)
  double add_gbs = 0.0;          // STREAM's add, c = a + b: two streams read, one written (all bytes)
  double fma_gflops = 0.0;       // fp32 FMA rate, 2 flops per FMA
  double l2_read_gbs = 0.0;      // read-only stream over a buffer a quarter of the L2, kept in it
  TimingStats copy, read, write, add, fma, l2_read;
  TensorCeiling tf32, int8;              // dense tensor-core rates, by the form the family's GEMMs use
  std::vector<InFlightPoint> in_flight;  // `gpulab ceilings --in-flight`: the read by bytes in flight an SM
};

/// The fewest bytes in flight an SM among the points that read at `fraction` of the fastest point or
/// more (0 where there are no points).
std::size_t in_flight_bytes_for(const std::vector<InFlightPoint>& points, double fraction);

/// The read ceiling's kernel over `bytes` (a multiple of 16) of `data`: `blocks` blocks of 256
/// threads, block b adding what it read into sink[b] (the L2 flush of GpuTimer).
void read_through(const void* data, std::size_t bytes, float* sink, unsigned blocks, cudaStream_t stream);

/// Measures the four ceilings with buffers of up to 1 GiB (less on a small card).
Ceilings measure_ceilings(const DeviceFacts& device, int reps = 20);

/// The TF32 and INT8 tensor ceilings (Ceilings::tf32, int8) by the form the family's GEMMs use:
/// wgmma on 9.0, mma.sync on 8.x (INT8 on 7.5 too); left at 0 where the GPU has none.
void measure_tensor_ceilings(const DeviceFacts& device, Ceilings& c, int reps = 20);

/// The read stream at 4 to 64 warps an SM times 1 to 8 loads a thread (2 KiB to 256 KiB in flight an
/// SM) over 256 MiB (less on a small card): how many bytes each SM must keep in flight for the
/// memory's bandwidth (a GPU with more bandwidth at the same latency needs more).
std::vector<InFlightPoint> measure_in_flight(const DeviceFacts& device, int reps = 5);

}  // namespace gpulab
