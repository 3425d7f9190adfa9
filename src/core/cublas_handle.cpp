#include "core/cublas_handle.hpp"

#include <gpulab/error.hpp>

#include <mutex>
#include <string>

namespace gpulab {

void check_cublas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw Error(std::string("cuBLAS ") + what + " failed: " + cublasGetStatusString(status));
}

cublasHandle_t cublas_on(cudaStream_t stream) {
  static std::once_flag once;
  static cublasHandle_t handle = nullptr;
  std::call_once(once, [] { check_cublas(cublasCreate(&handle), "cublasCreate"); });
  check_cublas(cublasSetStream(handle, stream), "cublasSetStream");
  return handle;
}

}  // namespace gpulab
