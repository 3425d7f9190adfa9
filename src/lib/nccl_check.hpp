// NCCL's result checked once for the library (multi_gpu.cu) and the multi-GPU bench: a failure
// throws gpulab::Error with NCCL's message, and the communicator's last error where there is one;
// and a group that ends however its scope is left.
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

/// ncclGroupStart … ncclGroupEnd as a scope. NCCL keeps the group open per thread: a group left open
/// by an exception between the two would defer every later NCCL call of this thread for good, so
/// the destructor ends a group that end() did not (a call that failed inside it makes NCCL discard
/// the group there).
class NcclGroup {
 public:
  NcclGroup() { check_nccl(ncclGroupStart(), "ncclGroupStart"); }
  ~NcclGroup() {
    if (open_) (void)ncclGroupEnd();
  }
  NcclGroup(const NcclGroup&) = delete;
  NcclGroup& operator=(const NcclGroup&) = delete;
  void end() {
    open_ = false;
    check_nccl(ncclGroupEnd(), "ncclGroupEnd");
  }

 private:
  bool open_ = true;
};

}  // namespace gpulab
