// Rung 8 of the reduction ladder and gpulab's public reduce_sum (include/gpulab/reduce.hpp).
//
// What it adds over rung 7 (two launches, one 16-byte load in flight per thread):
// - four 16-byte loads in flight per thread before any is added (Little's law: at 3 TB/s and
//   ~0.6 µs of latency about 2 MB must be in flight), each block reading one contiguous 16 KiB
//   tile at a time;
// - one launch: each block publishes its partial, takes a ticket from an atomic counter, and the
//   block that takes the last ticket adds the partials in a fixed order and resets the counter.
//   A second launch (rung 7, CUB) costs a few µs, which is most of the time for n ≲ 2^20;
// - a grid of exactly the blocks that can be resident at once (occupancy API), capped so that
//   each thread gets at least one unrolled group of loads: no tail wave, and small n use few
//   blocks.
// Deterministic: which elements a thread adds, in which order, and the combine order of the
// partials depend only on n, the pointer's alignment and the grid size, which depends only on n
// and the device. No floating-point atomics.
#include "lib/launch.cuh"
#include "lib/launch_limits.hpp"
#include "lib/per_device.hpp"
#include "reduce/reduce_common.cuh"

#include <gpulab/error.hpp>
#include <gpulab/reduce.hpp>


namespace gpulab {
namespace {

using namespace reduce_detail;

constexpr unsigned kBlock = 256;
constexpr unsigned kUnroll = 4;
constexpr std::size_t kTicketBytes = 256;  // the counter, padded so the partials stay aligned

template <class T>
__global__ void __launch_bounds__(kBlock)
reduce_sum_kernel(const T* __restrict__ in, std::size_t n, T* __restrict__ out,
                  accum_t<T>* __restrict__ partials, unsigned* __restrict__ ticket) {
  using A = accum_t<T>;
  A v = thread_sum<T, kUnroll>(in, n, blockIdx.x, gridDim.x, threadIdx.x, kBlock);
  v = block_sum(v);

  __shared__ bool is_last_block;
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = v;
    __threadfence();  // the partial is visible device-wide before the ticket is taken
    is_last_block = atomicAdd(ticket, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!is_last_block) return;

  // Every other block's partial was fenced before its ticket: read them past L1 (.cg).
  __threadfence();
  A w = 0;
  for (unsigned i = threadIdx.x; i < gridDim.x; i += kBlock) w += __ldcg(&partials[i]);
  w = block_sum(w);
  if (threadIdx.x == 0) {
    *out = static_cast<T>(w);
    *ticket = 0;  // leave the temporary storage as the contract requires: zeroed
  }
}

/// Blocks resident at once on the current device, asked once per device (the occupancy query costs
/// microseconds; reduce_sum is called with n small enough for that to matter).
template <class T>
unsigned resident_grid() {
  static PerDevice<unsigned> cache;
  return cache.get([] { return std::max(1u, resident_blocks(reinterpret_cast<const void*>(reduce_sum_kernel<T>), kBlock)); });
}

template <class T>
unsigned grid_for(std::size_t n) {
  const std::size_t per_block = std::size_t{kBlock} * kUnroll * Vec16<T>::kCount;
  const std::size_t wanted = std::max<std::size_t>(1, (n + per_block - 1) / per_block);
  return static_cast<unsigned>(std::min<std::size_t>(wanted, resident_grid<T>()));
}

}  // namespace

template <class T>
std::size_t reduce_sum_temp_bytes(std::size_t n) {
  return kTicketBytes + std::size_t{grid_for<T>(n)} * sizeof(accum_t<T>);
}

template <class T>
std::size_t reduce_sum_accumulation_depth(std::size_t n) {
  const std::size_t grid = grid_for<T>(n);
  const std::size_t per_thread = thread_sum_depth(n, grid * kBlock, kUnroll, sizeof(T));
  const std::size_t block_tree = log2_ceil(kBlock);
  const std::size_t combine = (grid + kBlock - 1) / kBlock + block_tree;
  return per_thread + block_tree + combine + 1;  // + 1: the final rounding to T
}

template <class T>
void reduce_sum(const T* in, std::size_t n, T* out, void* temp, std::size_t temp_bytes,
                cudaStream_t stream) {
  if (out == nullptr || temp == nullptr || (in == nullptr && n > 0))
    throw Error("reduce_sum: null device pointer");
  const unsigned grid = grid_for<T>(n);
  const std::size_t needed = kTicketBytes + std::size_t{grid} * sizeof(accum_t<T>);
  if (temp_bytes < needed)
    throw Error("reduce_sum: temporary storage of " + std::to_string(temp_bytes) +
                " bytes is too small; reduce_sum_temp_bytes() says " + std::to_string(needed));
  auto* ticket = static_cast<unsigned*>(temp);
  auto* partials = reinterpret_cast<accum_t<T>*>(static_cast<unsigned char*>(temp) + kTicketBytes);
  launch("reduce_sum", reduce_sum_kernel<T>, {grid, kBlock}, stream, in, n, out, partials, ticket)
      .work([&] { return count_of(std::size_t{kBlock} * kUnroll * Vec16<T>::kCount, "element") + " per tile"; });
}

#define GPULAB_INSTANTIATE_REDUCE_SUM(T)                                                       \
  template std::size_t reduce_sum_temp_bytes<T>(std::size_t);                                  \
  template std::size_t reduce_sum_accumulation_depth<T>(std::size_t);                          \
  template void reduce_sum<T>(const T*, std::size_t, T*, void*, std::size_t, cudaStream_t);
GPULAB_INSTANTIATE_REDUCE_SUM(std::int32_t)
GPULAB_INSTANTIATE_REDUCE_SUM(float)
GPULAB_INSTANTIATE_REDUCE_SUM(double)
#undef GPULAB_INSTANTIATE_REDUCE_SUM

}  // namespace gpulab
