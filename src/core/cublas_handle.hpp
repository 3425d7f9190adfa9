// The vendor baselines' one cuBLAS handle, and cuBLAS's status codes as gpulab::Error.
#pragma once

#include <cublas_v2.h>

namespace gpulab {

/// Throws gpulab::Error naming `what` unless `status` is CUBLAS_STATUS_SUCCESS.
void check_cublas(cublasStatus_t status, const char* what);

/// One cuBLAS handle for the process, made on first use (a handle costs milliseconds), bound to
/// `stream` for the call that follows.
cublasHandle_t cublas_on(cudaStream_t stream);

}  // namespace gpulab
