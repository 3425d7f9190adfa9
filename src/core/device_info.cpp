#include "core/device_info.hpp"

#include "lib/treat_as.hpp"

#include <gpulab/error.hpp>

#include <algorithm>
#include <fmt/format.h>
#include <ostream>

namespace gpulab {

int DeviceFacts::max_resident_blocks(int threads) const {
  if (threads <= 0 || max_threads_per_sm <= 0) return 0;
  const int by_threads = max_threads_per_sm / threads;
  return sm_count * std::min(by_threads, max_blocks_per_sm);
}

int require_cuda_device() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver || (err == cudaSuccess && count == 0)) {
    cudaGetLastError();
    throw NoDeviceError(std::string("no CUDA device found (") +
                        (err == cudaSuccess ? "device count is 0" : cudaGetErrorString(err)) +
                        "): gpulab needs an NVIDIA GPU and its driver for this command");
  }
  GPULAB_CUDA_CHECK(err);
  return count;
}

DeviceFacts query_device(int index) {
  cudaDeviceProp p{};
  GPULAB_CUDA_CHECK(cudaGetDeviceProperties(&p, index));
  auto attr = [index](cudaDeviceAttr a) {
    int v = 0;
    GPULAB_CUDA_CHECK(cudaDeviceGetAttribute(&v, a, index));
    return v;
  };
  DeviceFacts d;
  d.index = index;
  d.name = p.name;
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.sm_count = p.multiProcessorCount;
  d.warp_size = p.warpSize;
  d.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  d.max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
  d.max_threads_per_block = p.maxThreadsPerBlock;
  for (int i = 0; i < 3; ++i) d.max_block_dim[i] = p.maxThreadsDim[i];
  d.regs_per_sm = p.regsPerMultiprocessor;
  d.regs_per_block = p.regsPerBlock;
  d.smem_per_sm = p.sharedMemPerMultiprocessor;
  d.smem_per_block = p.sharedMemPerBlock;
  d.smem_per_block_optin = p.sharedMemPerBlockOptin;
  d.l2_bytes = static_cast<std::size_t>(p.l2CacheSize);
  d.global_mem_bytes = p.totalGlobalMem;
  // CUDA 13 dropped the clock fields from cudaDeviceProp; the attributes remain.
  d.sm_clock_khz = attr(cudaDevAttrClockRate);
  d.mem_clock_khz = attr(cudaDevAttrMemoryClockRate);
  d.mem_bus_bits = attr(cudaDevAttrGlobalMemoryBusWidth);
  GPULAB_CUDA_CHECK(cudaDriverGetVersion(&d.driver_version));
  GPULAB_CUDA_CHECK(cudaRuntimeGetVersion(&d.runtime_version));
  if (const GpuFamily* f = treated_as()) {  // an older family's limits stand in; the name says so
    if (d.compute_capability() < f->compute_capability)
      throw Error(fmt::format("GPULAB_TREAT_AS={} asks for more than this GPU has (compute capability {}.{})", f->name,
                              d.cc_major, d.cc_minor));
    d.name += fmt::format(", treated as {} ({}'s limits)", f->name, f->reference);
    // The same answers the library's queries get (lib/treat_as.cpp holds the one table).
    auto treated = [](cudaDeviceAttr a, auto real) { return static_cast<decltype(real)>(treated_attribute(a, static_cast<int>(real))); };
    d.cc_major = treated(cudaDevAttrComputeCapabilityMajor, d.cc_major);
    d.cc_minor = treated(cudaDevAttrComputeCapabilityMinor, d.cc_minor);
    d.smem_per_sm = treated(cudaDevAttrMaxSharedMemoryPerMultiprocessor, d.smem_per_sm);
    d.smem_per_block_optin = treated(cudaDevAttrMaxSharedMemoryPerBlockOptin, d.smem_per_block_optin);
    d.l2_bytes = treated(cudaDevAttrL2CacheSize, d.l2_bytes);
    d.max_threads_per_sm = treated(cudaDevAttrMaxThreadsPerMultiProcessor, d.max_threads_per_sm);
    d.max_blocks_per_sm = treated(cudaDevAttrMaxBlocksPerMultiprocessor, d.max_blocks_per_sm);
  }
  return d;
}

std::string cuda_version_text(int version) { return fmt::format("{}.{}", version / 1000, (version % 1000) / 10); }

void print_device_facts(std::ostream& os, const DeviceFacts& d) {
  const double gib = 1024.0 * 1024.0 * 1024.0;
  os << fmt::format("Device {}: \"{}\" (compute capability {}.{})\n", d.index, d.name, d.cc_major,
                    d.cc_minor);
  os << fmt::format("  CUDA driver / runtime              {} / {}\n", cuda_version_text(d.driver_version),
                    cuda_version_text(d.runtime_version));
  os << fmt::format("  multiprocessors (SMs)              {}\n", d.sm_count);
  os << fmt::format("  max threads per SM / per block     {} / {}\n", d.max_threads_per_sm,
                    d.max_threads_per_block);
  os << fmt::format("  max blocks per SM                  {}\n", d.max_blocks_per_sm);
  os << fmt::format("  max block dimensions               {} x {} x {}\n", d.max_block_dim[0],
                    d.max_block_dim[1], d.max_block_dim[2]);
  os << fmt::format("  registers per SM / per block       {} / {}\n", d.regs_per_sm,
                    d.regs_per_block);
  os << fmt::format("  shared memory per SM               {} KiB\n", d.smem_per_sm / 1024);
  os << fmt::format("  shared memory per block            {} KiB ({} KiB opt-in)\n",
                    d.smem_per_block / 1024, d.smem_per_block_optin / 1024);
  os << fmt::format("  L2 cache                           {:.1f} MiB\n",
                    static_cast<double>(d.l2_bytes) / (1024.0 * 1024.0));
  os << fmt::format("  global memory                      {:.1f} GiB ({} bytes)\n",
                    static_cast<double>(d.global_mem_bytes) / gib, d.global_mem_bytes);
  os << fmt::format("  SM clock                           {} MHz\n", d.sm_clock_khz / 1000);
  os << fmt::format("  memory clock / bus width           {} MHz / {} bits\n",
                    d.mem_clock_khz / 1000, d.mem_bus_bits);
  os << fmt::format("  theoretical memory bandwidth       {:.0f} GB/s (2 x clock x bus width)\n",
                    d.theoretical_bandwidth_gbs());
  os << "  max resident blocks for            ";
  for (int t : {64, 128, 256, 512}) os << fmt::format("{} thr.: {}   ", t, d.max_resident_blocks(t));
  os << "\n";
}

}  // namespace gpulab
