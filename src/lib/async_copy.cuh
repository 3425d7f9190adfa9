// Asynchronous copies global → shared (cp.async, sm_80+): no register on the way, so a block can
// have the next tile in flight while it works on the one before. Before compute capability 8.0 the
// same calls copy through registers at once (the data is in shared memory when the call returns,
// so commit and wait have nothing to do): the same results, without the overlap.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace gpulab {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define GPULAB_SYNC_COPIES 1  // no cp.async on this target
#endif

/// The shared-memory address PTX takes for a generic pointer into shared memory (cp.async, mbarriers).
__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
/// 4 bytes, or zeros when !valid (src-size 0 reads nothing).
__device__ __forceinline__ void cp_async4(void* dst, const void* src, bool valid) {
#ifdef GPULAB_SYNC_COPIES
  *static_cast<std::uint32_t*>(dst) = valid ? *static_cast<const std::uint32_t*>(src) : 0u;
#else
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(shared_address(dst)), "l"(src), "r"(valid ? 4 : 0));
#endif
}
/// 16 bytes (both addresses 16-byte aligned) of which the first `bytes` are read and the rest zero-filled.
__device__ __forceinline__ void cp_async16(void* dst, const void* src, int bytes) {
#ifdef GPULAB_SYNC_COPIES
  if (bytes == 16) {
    *static_cast<uint4*>(dst) = *static_cast<const uint4*>(src);
  } else {
    auto* d = static_cast<unsigned char*>(dst);
    const auto* s = static_cast<const unsigned char*>(src);
    for (int i = 0; i < 16; ++i) d[i] = i < bytes ? s[i] : 0;
  }
#else
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(shared_address(dst)), "l"(src), "r"(bytes));
#endif
}
__device__ __forceinline__ void cp_async_commit() {
#ifndef GPULAB_SYNC_COPIES
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}
/// Waits until at most kPending of this thread's committed groups are still in flight.
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
#ifndef GPULAB_SYNC_COPIES
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
#endif
}

#undef GPULAB_SYNC_COPIES  // (the choice is this header's alone)

}  // namespace gpulab
