// One way to launch a kernel, for the library and the ladders alike. Every launch is checked, and
// reported to a LaunchLog when one listens on the calling thread (`gpulab run`, `gpulab atax run`),
// so that every problem can print each kernel's configuration and time. A launch nobody listens to
// costs one thread-local read more than a bare <<<...>>>.
//
//   launch("warp_per_row", warp_per_row, {grid, 256}, stream, a, x, rows, cols, t)
//       .work([&] { return count_of(8, "line") + " per block"; });
#pragma once

#include "lib/launch_limits.hpp"
#include "lib/launch_log.hpp"

#include <gpulab/error.hpp>

#include <cuda_runtime.h>

#include <utility>

namespace gpulab {

/// What `launch` returns. `.work(describe)` says what one block does ("8 lines per block");
/// `describe` is called only when a log listens.
class Launched {
 public:
  explicit Launched(LaunchNote* note) : note_(note) {}
  template <class Describe>
  void work(Describe&& describe) const {
    if (note_ != nullptr) note_->work = describe();
  }

 private:
  LaunchNote* note_;
};

/// In a kernel launched with LaunchShape::follows: waits until the grid before it on the stream
/// has finished and its writes are visible (a no-op for a kernel launched without it).
__device__ __forceinline__ void wait_for_prior_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/// In the kernel before one launched with LaunchShape::follows: lets that kernel be scheduled once
/// every block of this grid has called it (otherwise once they have all exited).
__device__ __forceinline__ void allow_dependent_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/// Launches `kernel` with `shape` on `stream`, checks the launch and reports it under `name`.
/// Cooperative, cluster and dependent launches go through cudaLaunchKernelEx, the others through <<<...>>>.
template <class... Params, class... Args>
Launched launch(const char* name, void (*kernel)(Params...), const LaunchShape& shape, cudaStream_t stream,
                Args&&... args) {
  const bool follows = shape.follows && current_device_follows();
  if (shape.cluster == 0 && !shape.cooperative && !follows) {
    kernel<<<shape.grid, shape.block, shape.smem, stream>>>(std::forward<Args>(args)...);
    GPULAB_CHECK_LAUNCH();
  } else {
    cudaLaunchAttribute attributes[3]{};
    unsigned count = 0;
    if (shape.cluster > 0) {
      attributes[count].id = cudaLaunchAttributeClusterDimension;
      attributes[count].val.clusterDim.x = shape.cluster;
      attributes[count].val.clusterDim.y = 1;
      attributes[count].val.clusterDim.z = 1;
      ++count;
    }
    if (shape.cooperative) {
      attributes[count].id = cudaLaunchAttributeCooperative;
      attributes[count].val.cooperative = 1;
      ++count;
    }
    if (follows) {
      attributes[count].id = cudaLaunchAttributeProgrammaticStreamSerialization;
      attributes[count].val.programmaticStreamSerializationAllowed = 1;
      ++count;
    }
    cudaLaunchConfig_t config{};
    config.gridDim = shape.grid;
    config.blockDim = shape.block;
    config.dynamicSmemBytes = shape.smem;
    config.stream = stream;
    config.attrs = attributes;
    config.numAttrs = count;
    GPULAB_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
  }
  return Launched(note_launch(reinterpret_cast<const void*>(kernel), name, shape, stream));
}

}  // namespace gpulab
