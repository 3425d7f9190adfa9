#include "lib/launch_limits.hpp"

#include "lib/per_device.hpp"
#include "lib/treat_as.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include <gpulab/error.hpp>

namespace gpulab {

namespace {
/// The current GPU's own answer, treated as an older family or not.
int own_device_attribute(cudaDeviceAttr attribute) {
  int device = 0, value = 0;
  GPULAB_CUDA_CHECK(cudaGetDevice(&device));
  GPULAB_CUDA_CHECK(cudaDeviceGetAttribute(&value, attribute, device));
  return value;
}
}  // namespace

int current_device_attribute(cudaDeviceAttr attribute) {
  // an older family's, where the GPU is treated as one
  return treated_attribute(attribute, own_device_attribute(attribute));
}

std::size_t current_l2_bytes() {
  static PerDevice<std::size_t> bytes;
  return bytes.get([] { return static_cast<std::size_t>(current_device_attribute(cudaDevAttrL2CacheSize)); });
}

double current_dram_bytes_per_sm_cycle() {
  static PerDevice<double> bytes;
  return bytes.get([] {
    // The GPU's own: clocks and memory are not a treated-as family's.
    const auto real = [](cudaDeviceAttr attribute) { return static_cast<double>(own_device_attribute(attribute)); };
    const double bytes_per_s = 2.0 * real(cudaDevAttrMemoryClockRate) * 1e3 * real(cudaDevAttrGlobalMemoryBusWidth) / 8;
    const double sm_cycles_per_s = real(cudaDevAttrMultiProcessorCount) * real(cudaDevAttrClockRate) * 1e3;
    return sm_cycles_per_s > 0 ? bytes_per_s / sm_cycles_per_s : 0.0;
  });
}

int current_compute_capability() {
  static PerDevice<int> capability;
  return capability.get([] {
    return current_device_attribute(cudaDevAttrComputeCapabilityMajor) * 10 + current_device_attribute(cudaDevAttrComputeCapabilityMinor);
  });
}

bool current_device_follows() { return current_compute_capability() >= 90; }

std::size_t dynamic_smem_limit(const void* kernel) {
  cudaFuncAttributes attributes{};
  GPULAB_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  const auto optin = static_cast<std::size_t>(current_device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin));
  return optin > attributes.sharedSizeBytes ? optin - attributes.sharedSizeBytes : 0;
}

void allow_dynamic_smem(const void* kernel, std::size_t bytes, const char* who) {
  const std::size_t limit = dynamic_smem_limit(kernel);
  if (bytes > limit)
    throw Error(std::string(who) + ": a block needs " + std::to_string(bytes) + " bytes of shared memory; this GPU allows " +
                std::to_string(limit));
  GPULAB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
}

std::size_t allow_most_dynamic_smem(std::span<const void* const> kernels, const char* who) {
  std::size_t most = std::numeric_limits<std::size_t>::max();
  for (const void* k : kernels) most = std::min(most, dynamic_smem_limit(k));
  for (const void* k : kernels) allow_dynamic_smem(k, most, who);
  return most;
}

unsigned resident_blocks(const void* kernel, unsigned block, std::size_t dynamic_smem) {
  int per_sm = 0;
  GPULAB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, static_cast<int>(block), dynamic_smem));
  return static_cast<unsigned>(per_sm * current_device_attribute(cudaDevAttrMultiProcessorCount));
}

int resident_clusters(const void* kernel, unsigned block, unsigned ranks, std::size_t dynamic_smem) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim = {ranks, 1, 1};
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(ranks);
  config.blockDim = dim3(block);
  config.dynamicSmemBytes = dynamic_smem;
  config.attrs = &attribute;
  config.numAttrs = 1;
  int clusters = 0;
  GPULAB_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &config));
  return clusters;
}

unsigned checked_grid(std::size_t blocks, const char* who) {
  if (blocks > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw Error(std::string(who) + ": " + std::to_string(blocks) + " blocks exceed the grid limit; use a larger block");
  return static_cast<unsigned>(blocks);
}

dim3 tile_grid(std::size_t x_items, std::size_t x_tile, std::size_t y_items, std::size_t y_tile, const char* who) {
  return {checked_grid((x_items + x_tile - 1) / x_tile, who), capped_grid_y((y_items + y_tile - 1) / y_tile)};
}

unsigned resident_grid(const void* kernel, std::size_t items, unsigned block, std::size_t dynamic_smem) {
  return static_cast<unsigned>(
      std::clamp<std::size_t>((items + block - 1) / block, 1, std::max(1u, resident_blocks(kernel, block, dynamic_smem))));
}

unsigned grid_stride_blocks(std::size_t items, unsigned block) {
  return static_cast<unsigned>(std::clamp<std::size_t>((items + block - 1) / block, 1, 8192));
}

}  // namespace gpulab
