// The tensor ceilings on Hopper (core/tensor_peak.hpp): warpgroups issuing wgmma back to back from
// shared memory, as a GEMM's main loop does with nothing to wait for. Built for sm_90a alone.
#include "core/tensor_peak.hpp"
#include "lib/wgmma.cuh"

#include <cstdint>
#include <type_traits>

namespace gpulab {
namespace {

constexpr int kSteps = 4;             // wgmma a group: a 32-deep TF32 slice, or 128 deep of INT8
constexpr int kTileABytes = 64 * 128;   // 64 rows of 128 bytes (one swizzled row of K a row)
constexpr int kTileBBytes = 256 * 128;  // 256 rows

/// Each warpgroup (a block) issues `groups` groups of kSteps wgmma of 64 × 256 into one accumulator,
/// one group in flight while the next is issued. The operands are pseudo-random bits (TF32 values in
/// [1, 2), any int8), which the tensor cores multiply at the rate of real data; one sum a thread goes
/// to `sink`, so that nothing is left out.
template <bool kInt8>
__global__ void __launch_bounds__(128) tensor_peak_kernel(int groups, float* sink) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
  __shared__ __align__(1024) unsigned char tiles[kTileABytes + kTileBBytes];
  auto* words = reinterpret_cast<std::uint32_t*>(tiles);
  for (int i = static_cast<int>(threadIdx.x); i < (kTileABytes + kTileBBytes) / 4; i += 128) {
    const std::uint32_t bits = static_cast<std::uint32_t>(i) * 2654435761u ^ blockIdx.x;
    words[i] = kInt8 ? bits : 0x3F800000u | (bits & 0x007FE000u);  // TF32: 1 + ten random bits of mantissa
  }
  __syncthreads();
  const std::uint64_t a = smem_descriptor(tiles), b = smem_descriptor(tiles + kTileABytes);
  using Accumulator = std::conditional_t<kInt8, int, float>;
  Accumulator d[128];
#pragma unroll
  for (int i = 0; i < 128; ++i) d[i] = 0;
  for (int g = 0; g < groups; ++g) {
    wgmma_fence();  // as a GEMM's slice begins: the accumulators' last writes before these wgmma
#pragma unroll
    for (int step = 0; step < kSteps; ++step) {
      if constexpr (kInt8) {
        wgmma_m64n256k32_s8(d, a + 2 * step, b + 2 * step, true);
      } else {
        wgmma_m64nk8(d, a + 2 * step, b + 2 * step, true);
      }
    }
    wgmma_commit();
    wgmma_wait_one();
    fence_registers(d);  // the accumulators stay where the wgmma in flight write them
  }
  wgmma_wait_all();
  fence_registers(d);
  float sum = 0.f;
#pragma unroll
  for (int i = 0; i < 128; ++i) sum += static_cast<float>(d[i]);
  sink[static_cast<std::size_t>(blockIdx.x) * 128 + threadIdx.x] = sum;
#else
  (void)groups, (void)sink;
  __trap();  // built without sm_90a: measure_tensor launches it on compute capability 9.0 alone
#endif
}

}  // namespace

TensorPeakKernel tensor_peak_wgmma(bool int8) {
  if (int8) return {tensor_peak_kernel<true>, "tensor_peak_int8", 128, 2.0 * 64 * 256 * 32 * kSteps, "wgmma m64n256k32 s8"};
  return {tensor_peak_kernel<false>, "tensor_peak_tf32", 128, 2.0 * 64 * 256 * 8 * kSteps, "wgmma m64n256k8 tf32"};
}

}  // namespace gpulab
