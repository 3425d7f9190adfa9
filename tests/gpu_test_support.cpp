#include "gpu_test_support.hpp"

namespace gpulab::test {

bool has_gpu() {
  static const bool present = [] {
    int n = 0;
    const bool ok = cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
    cudaGetLastError();
    return ok;
  }();
  return present;
}

}  // namespace gpulab::test
