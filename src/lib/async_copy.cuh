// Asynchronous copies global → shared (cp.async, sm_80+): no register on the way, so a block can
// have the next tile in flight while it works on the one before.
#pragma once

#include <cuda_runtime.h>

namespace gpulab {

/// The shared-memory address PTX takes for a generic pointer into shared memory (cp.async, mbarriers).
__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
/// 4 bytes, or zeros when !valid (src-size 0 reads nothing).
__device__ __forceinline__ void cp_async4(void* dst, const void* src, bool valid) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(shared_address(dst)), "l"(src), "r"(valid ? 4 : 0));
}
/// 16 bytes (both addresses 16-byte aligned) of which the first `bytes` are read and the rest zero-filled.
__device__ __forceinline__ void cp_async16(void* dst, const void* src, int bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(shared_address(dst)), "l"(src), "r"(bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
/// Waits until at most kPending of this thread's committed groups are still in flight.
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
}

}  // namespace gpulab
