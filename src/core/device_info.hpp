// Device facts: what seeds 000, 003 and 004 (`cudastats`) print about the GPU, read once.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>

namespace gpulab {

struct DeviceFacts {
  int index = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int compute_capability() const { return cc_major * 10 + cc_minor; }  // 90 for 9.0, as GpuNeeds counts
  int sm_count = 0;
  int warp_size = 32;
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;
  int max_threads_per_block = 0;
  int max_block_dim[3] = {0, 0, 0};
  int regs_per_sm = 0;
  int regs_per_block = 0;
  std::size_t smem_per_sm = 0;
  std::size_t smem_per_block = 0;        // without opting in
  std::size_t smem_per_block_optin = 0;  // after cudaFuncSetAttribute
  std::size_t l2_bytes = 0;
  std::size_t global_mem_bytes = 0;
  int sm_clock_khz = 0;
  int mem_clock_khz = 0;
  int mem_bus_bits = 0;
  int driver_version = 0, runtime_version = 0;

  /// 2 transfers a clock (DDR) × bus width: the datasheet-style peak the clock and bus imply.
  double theoretical_bandwidth_gbs() const {
    return 2.0 * mem_clock_khz * 1e3 * (mem_bus_bits / 8.0) / 1e9;
  }
  /// Seed 004's table: how many blocks of `threads` can be resident at once on the whole GPU.
  int max_resident_blocks(int threads) const;
};

/// Number of CUDA devices; throws NoDeviceError with a clear message when there is none.
int require_cuda_device();

/// Facts of device `index` (after require_cuda_device()).
DeviceFacts query_device(int index);

/// A CUDA version number as CUDA writes it: 13000 → "13.0".
std::string cuda_version_text(int version);

/// The seed-style listing, one fact a line.
void print_device_facts(std::ostream& os, const DeviceFacts& d);

}  // namespace gpulab
