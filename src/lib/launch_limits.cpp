#include "lib/launch_limits.hpp"

#include <gpulab/error.hpp>

namespace gpulab {

int current_device_attribute(cudaDeviceAttr attribute) {
  int device = 0, value = 0;
  GPULAB_CUDA_CHECK(cudaGetDevice(&device));
  GPULAB_CUDA_CHECK(cudaDeviceGetAttribute(&value, attribute, device));
  return value;
}

unsigned resident_blocks(const void* kernel, unsigned block, std::size_t dynamic_smem) {
  int per_sm = 0;
  GPULAB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, static_cast<int>(block), dynamic_smem));
  return static_cast<unsigned>(per_sm * current_device_attribute(cudaDevAttrMultiProcessorCount));
}

}  // namespace gpulab
