// NCCL's result checked once for the library (multi_gpu.cu) and the multi-GPU bench: a failure
// throws gpulab::Error with NCCL's message, and the communicator's last error where there is one.
#pragma once

#include <gpulab/error.hpp>

#include <nccl.h>

#include <string>

namespace gpulab {

inline void check_nccl(ncclResult_t r, const char* what, ncclComm_t comm = nullptr) {
  if (r == ncclSuccess) return;
  std::string msg = std::string("NCCL: ") + what + " failed: " + ncclGetErrorString(r);
  if (const char* last = comm ? ncclGetLastError(comm) : nullptr; last && *last) msg += " (" + std::string(last) + ")";
  throw Error(msg);
}

}  // namespace gpulab
