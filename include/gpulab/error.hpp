// gpulab/error.hpp — how gpulab reports failure.
//
// Every CUDA call and every kernel launch in gpulab goes through GPULAB_CUDA_CHECK or
// GPULAB_CHECK_LAUNCH; a failure becomes a gpulab::Error carrying the call, the CUDA error name
// and message, and the source location. Nothing in gpulab prints and carries on.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace gpulab {

/// Every failure gpulab reports: a CUDA error, a size that does not fit, a bad argument.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// No usable CUDA device (none present, or no driver). The CLI gives it its own exit code.
class NoDeviceError : public Error {
 public:
  using Error::Error;
};

/// Too little memory for what was asked (device, pinned or managed): the message gives the bytes
/// asked for and, for device memory, the bytes free.
class OutOfMemoryError : public Error {
 public:
  using Error::Error;
};

[[noreturn]] inline void throw_cuda_error(cudaError_t err, const char* what, const char* file,
                                          int line) {
  // The runtime keeps a failed call's error as the thread's last error, and the next launch's check
  // (cudaGetLastError) would report it against a launch that did nothing wrong: this exception
  // reports it, so none is left behind. (A sticky error stays: the context is lost then anyway.)
  (void)cudaGetLastError();
  std::string msg = std::string(what) + " failed: " + cudaGetErrorName(err) + " (" +
                    cudaGetErrorString(err) + ") at " + file + ":" + std::to_string(line);
  if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver) throw NoDeviceError(msg);
  if (err == cudaErrorMemoryAllocation) throw OutOfMemoryError(msg);
  throw Error(msg);
}

inline void check_cuda(cudaError_t err, const char* what, const char* file, int line) {
  if (err != cudaSuccess) throw_cuda_error(err, what, file, line);
}

}  // namespace gpulab

/// Checks the cudaError_t of a runtime call.
#define GPULAB_CUDA_CHECK(call) ::gpulab::check_cuda((call), #call, __FILE__, __LINE__)
/// Checks the launch that came just before (bad configuration, too much shared memory, ...).
#define GPULAB_CHECK_LAUNCH() \
  ::gpulab::check_cuda(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
