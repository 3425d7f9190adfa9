#include "lib/stream_scratch.hpp"

#include "lib/launch_limits.hpp"
#include "lib/per_device.hpp"

#include <cstdint>

namespace gpulab {

cudaMemPool_t scratch_pool() {
  static PerDevice<cudaMemPool_t> pools;
  return pools.get([] {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = current_device();
    cudaMemPool_t pool = nullptr;
    GPULAB_CUDA_CHECK(cudaMemPoolCreate(&pool, &props));
    std::uint64_t keep = UINT64_MAX;
    GPULAB_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    return pool;
  });
}

}  // namespace gpulab
