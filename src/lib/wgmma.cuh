// Hopper's warpgroup MMA (wgmma) from PTX: shared-memory descriptors, the fences and waits, and the
// shapes gpulab issues. For files built for sm_90a alone (wgmma exists nowhere else): the SGEMM's
// tensor-core rungs (sgemm/sgemm_wgmma.cu) and the tensor ceilings (core/tensor_peak_sm90a.cu).
#pragma once

#include "lib/async_copy.cuh"

#include <cstdint>

namespace gpulab {

/// A wgmma shared-memory descriptor of a K-major tile in the 128-byte swizzle TMA writes: rows of
/// 128 bytes, groups of 8 rows 1024 bytes apart (the stride offset); the leading offset is unused
/// in this layout (1 by convention). Advancing along K by 8 TF32 values adds 32 bytes to the start.
__device__ __forceinline__ std::uint64_t smem_descriptor(const void* tile) {
  const std::uint64_t start = (shared_address(tile) & 0x3FFFF) >> 4;
  return start | (std::uint64_t{1} << 16) | (std::uint64_t{1024 >> 4} << 32) | (std::uint64_t{1} << 62);
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_wait_all() { asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory"); }
/// Waits until at most the latest committed group is in flight.
__device__ __forceinline__ void wgmma_wait_one() { asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory"); }
/// Keeps the compiler from moving accesses of the accumulators across a wgmma wait.
template <int kN>
__device__ __forceinline__ void fence_registers(float (&d)[kN]) {
#pragma unroll
  for (int i = 0; i < kN; ++i) asm volatile("" : "+f"(d[i])::"memory");
}
template <int kN>
__device__ __forceinline__ void fence_registers(int (&d)[kN]) {
#pragma unroll
  for (int i = 0; i < kN; ++i) asm volatile("" : "+r"(d[i])::"memory");
}

#define GPULAB_D8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
                     "+f"(d[i + 6]), "+f"(d[i + 7])
#define GPULAB_R8(i) "+r"(d[i]), "+r"(d[i + 1]), "+r"(d[i + 2]), "+r"(d[i + 3]), "+r"(d[i + 4]), "+r"(d[i + 5]), \
                     "+r"(d[i + 6]), "+r"(d[i + 7])
// An accumulator of 64 or 128 registers a thread: its operands in the instruction, its constraints 8 at a time.
#define GPULAB_OUT_64(X) X(0), X(8), X(16), X(24), X(32), X(40), X(48), X(56)
#define GPULAB_OUT_128(X) GPULAB_OUT_64(X), X(64), X(72), X(80), X(88), X(96), X(104), X(112), X(120)
#define GPULAB_ACC_0_63                                                                                               \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, " \
  "%25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define GPULAB_ACC_64_127                                                                                            \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, "  \
  "%86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, " \
  "%107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, "    \
  "%125, %126, %127"

/// d = A·B (+ d when `accumulate`) on a 64 × N × 8 tile (N = 2 × d's size: 128 or 256): A and B
/// from shared memory (descriptors), TF32 inputs, FP32 accumulators, N / 2 a thread. Asynchronous:
/// wgmma_commit, then wgmma_wait_all.
__device__ __forceinline__ void wgmma_m64nk8(float (&d)[64], std::uint64_t a, std::uint64_t b, bool accumulate) {
  asm volatile(
      "{\n .reg .pred p;\n setp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
      "{" GPULAB_ACC_0_63 "}, "
      "%64, %65, p, 1, 1;\n}\n"
      : GPULAB_OUT_64(GPULAB_D8)
      : "l"(a), "l"(b), "r"(static_cast<int>(accumulate)));
}
__device__ __forceinline__ void wgmma_m64nk8(float (&d)[128], std::uint64_t a, std::uint64_t b, bool accumulate) {
  asm volatile(
      "{\n .reg .pred p;\n setp.ne.b32 p, %130, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 "
      "{" GPULAB_ACC_0_63 ", " GPULAB_ACC_64_127 "}, "
      "%128, %129, p, 1, 1;\n}\n"
      : GPULAB_OUT_128(GPULAB_D8)
      : "l"(a), "l"(b), "r"(static_cast<int>(accumulate)));
}

/// d = A·B (+ d when `accumulate`) on a 64 × 256 × 32 tile of signed 8-bit integers, K-major in
/// shared memory (descriptors: 32 int8 values are the 32 bytes a TF32 step of 8 takes), int32
/// accumulators, 128 a thread. Asynchronous as above.
__device__ __forceinline__ void wgmma_m64n256k32_s8(int (&d)[128], std::uint64_t a, std::uint64_t b, bool accumulate) {
  asm volatile(
      "{\n .reg .pred p;\n setp.ne.b32 p, %130, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k32.s32.s8.s8 "
      "{" GPULAB_ACC_0_63 ", " GPULAB_ACC_64_127 "}, "
      "%128, %129, p;\n}\n"
      : GPULAB_OUT_128(GPULAB_R8)
      : "l"(a), "l"(b), "r"(static_cast<int>(accumulate)));
}

#undef GPULAB_ACC_64_127
#undef GPULAB_ACC_0_63
#undef GPULAB_OUT_128
#undef GPULAB_OUT_64
#undef GPULAB_R8
#undef GPULAB_D8

}  // namespace gpulab
