// The library's atax (include/gpulab/atax.hpp) = the ladder's top rungs: the coalesced two-pass
// path (rung 3) and the fused single pass (rung 4), chosen by shape.
#include "atax/atax_paths.hpp"
#include "core/warp.cuh"

#include <gpulab/atax.hpp>
#include <gpulab/error.hpp>

#include <algorithm>
#include <string>

namespace gpulab {
namespace atax_detail {
namespace {

// ---- rung 3: coalesced, two passes ----------------------------------------------------------------
// A·x: a warp per row, lanes on neighbouring columns (coalesced), four loads in flight per lane.
__global__ void warp_per_row(const float* __restrict__ a, const float* __restrict__ x, std::uint32_t rows,
                             std::uint32_t cols, float* __restrict__ t) {
  const std::size_t r = (std::size_t{blockIdx.x} * blockDim.x + threadIdx.x) / kWarp;
  const unsigned lane = threadIdx.x % kWarp;
  if (r >= rows) return;
  const float* row = a + r * cols;
  float s[4] = {0.f, 0.f, 0.f, 0.f};
  std::uint32_t j = lane;
  for (; j + 3 * kWarp < cols; j += 4 * kWarp)
#pragma unroll
    for (unsigned u = 0; u < 4; ++u) s[u] += row[j + u * kWarp] * x[j + u * kWarp];
  for (; j < cols; j += kWarp) s[0] += row[j] * x[j];
  const float total = warp_sum((s[0] + s[1]) + (s[2] + s[3]));
  if (lane == 0) t[r] = total;
}
// Aᵀ·t: threads on neighbouring columns, the rows split in `gridDim.y` chunks so that enough
// threads run; chunk c writes partial[c][j], added in order by sum_chunks (deterministic).
__global__ void column_chunks(const float* __restrict__ a, const float* __restrict__ t, std::uint32_t rows,
                              std::uint32_t cols, std::uint32_t rows_per_chunk, float* __restrict__ partial) {
  const std::size_t j = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  const std::size_t begin = std::size_t{blockIdx.y} * rows_per_chunk;
  const std::size_t end = min(std::size_t{rows}, begin + rows_per_chunk);
  float s = 0.f;
  for (std::size_t i = begin; i < end; ++i) s += a[i * cols + j] * t[i];
  partial[std::size_t{blockIdx.y} * cols + j] = s;
}

/// y[j] = Σ_c partial[c][j] for c = 0, 1, …, chunks − 1, in that order.
__global__ void sum_chunks(const float* __restrict__ partial, std::uint32_t chunks, std::uint32_t cols,
                           float* __restrict__ y) {
  const std::size_t j = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  float s = 0.f;
  for (std::uint32_t c = 0; c < chunks; ++c) s += partial[std::size_t{c} * cols + j];
  y[j] = s;
}



constexpr unsigned kFusedThreads = 1024;
constexpr std::uint32_t kFusedMinCols = 512, kFusedMaxCols = 16 * kFusedThreads;
constexpr unsigned kTwoPassThreads = 256;

// Rung 4: one pass over A. A block owns a panel of consecutive rows. Thread tid holds columns
// tid, tid + 1024, … (K of them) of the current row in registers, with the next row already on
// its way (loaded before this row's sum, so its latency hides behind the reduction). Per row:
// tᵢ = Σ aᵢⱼ·xⱼ (x in shared memory; warp sums, then every thread adds the 32 warp sums in the
// same order, so all agree on tᵢ bit for bit), then y_partial[j] += aᵢⱼ·tᵢ from the same
// registers. A is read once; the block writes its partial y, sum_chunks adds the panels in order.
template <unsigned K>
__global__ void __launch_bounds__(kFusedThreads, 1)
fused_panels(const float* __restrict__ a, const float* __restrict__ x, std::uint32_t rows, std::uint32_t cols,
             std::uint32_t rows_per_block, float* __restrict__ partial) {
  extern __shared__ float xs[];
  __shared__ float warp_dots[2][kFusedThreads / kWarp];
  for (std::uint32_t j = threadIdx.x; j < cols; j += kFusedThreads) xs[j] = x[j];
  __syncthreads();

  const std::size_t begin = std::size_t{blockIdx.x} * rows_per_block;
  const std::size_t end = std::min<std::size_t>(rows, begin + rows_per_block);
  float cur[K], next[K], y_part[K];
  auto load = [&](std::size_t i, float (&dst)[K]) {
#pragma unroll
    for (unsigned k = 0; k < K; ++k) {
      const std::uint32_t j = threadIdx.x + k * kFusedThreads;
      dst[k] = j < cols ? a[i * cols + j] : 0.f;
    }
  };
#pragma unroll
  for (unsigned k = 0; k < K; ++k) y_part[k] = 0.f;
  if (begin < end) load(begin, cur);

  for (std::size_t i = begin; i < end; ++i) {
    if (i + 1 < end) load(i + 1, next);
    float d = 0.f;
#pragma unroll
    for (unsigned k = 0; k < K; ++k) {
      const std::uint32_t j = threadIdx.x + k * kFusedThreads;
      d += cur[k] * (j < cols ? xs[j] : 0.f);
    }
    d = warp_sum(d);
    float* dots = warp_dots[i & 1];  // alternate buffers: one barrier per row suffices
    if (threadIdx.x % kWarp == 0) dots[threadIdx.x / kWarp] = d;
    __syncthreads();
    float t = 0.f;
#pragma unroll
    for (unsigned w = 0; w < kFusedThreads / kWarp; ++w) t += dots[w];
#pragma unroll
    for (unsigned k = 0; k < K; ++k) {
      y_part[k] += cur[k] * t;
      cur[k] = next[k];
    }
  }
#pragma unroll
  for (unsigned k = 0; k < K; ++k) {
    const std::uint32_t j = threadIdx.x + k * kFusedThreads;
    if (j < cols) partial[std::size_t{blockIdx.x} * cols + j] = y_part[k];
  }
}

using FusedKernel = void (*)(const float*, const float*, std::uint32_t, std::uint32_t, std::uint32_t, float*);

/// The instance with the fewest registers for `cols` columns (K ≥ cols / 1024).
FusedKernel fused_for(std::uint32_t cols) {
  const std::uint32_t k = (cols + kFusedThreads - 1) / kFusedThreads;
  if (k <= 1) return fused_panels<1>;
  if (k <= 2) return fused_panels<2>;
  if (k <= 4) return fused_panels<4>;
  if (k <= 8) return fused_panels<8>;
  if (k <= 12) return fused_panels<12>;
  return fused_panels<16>;
}

int sm_count() {
  int device = 0, sms = 0;
  GPULAB_CUDA_CHECK(cudaGetDevice(&device));
  GPULAB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

/// Panels of the fused pass: one block per SM (1024 threads with up to 64 registers fill it).
std::uint32_t fused_blocks(std::uint32_t rows) {
  return std::min<std::uint32_t>(rows, static_cast<std::uint32_t>(sm_count()));
}

/// Row chunks of the two-pass Aᵀ·t: enough blocks for ~8 per SM.
std::uint32_t two_pass_chunks(std::uint32_t rows, std::uint32_t cols) {
  const std::uint32_t column_blocks = (cols + kTwoPassThreads - 1) / kTwoPassThreads;
  const std::uint32_t wanted = std::max<std::uint32_t>(1, 8u * static_cast<std::uint32_t>(sm_count()) / column_blocks);
  return std::min(rows, wanted);
}

std::size_t aligned(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

}  // namespace

std::size_t two_pass_temp_bytes(std::uint32_t rows, std::uint32_t cols) {
  return aligned(std::size_t{rows} * sizeof(float)) + std::size_t{two_pass_chunks(rows, cols)} * cols * sizeof(float);
}

void two_pass(const float* a, const float* x, std::uint32_t rows, std::uint32_t cols, float* y, void* temp,
              cudaStream_t stream) {
  auto* t = static_cast<float*>(temp);
  float* partial = reinterpret_cast<float*>(static_cast<unsigned char*>(temp) + aligned(std::size_t{rows} * sizeof(float)));
  const unsigned col_blocks = (cols + kTwoPassThreads - 1) / kTwoPassThreads;
  const std::uint32_t chunks = two_pass_chunks(rows, cols);
  const std::uint32_t per_chunk = (rows + chunks - 1) / chunks;
  const std::size_t warps_per_block = kTwoPassThreads / kWarp;
  warp_per_row<<<static_cast<unsigned>((rows + warps_per_block - 1) / warps_per_block), kTwoPassThreads, 0, stream>>>(a, x, rows, cols, t);
  GPULAB_CHECK_LAUNCH();
  column_chunks<<<dim3(col_blocks, chunks), kTwoPassThreads, 0, stream>>>(a, t, rows, cols, per_chunk, partial);
  GPULAB_CHECK_LAUNCH();
  sum_chunks<<<col_blocks, kTwoPassThreads, 0, stream>>>(partial, chunks, cols, y);
  GPULAB_CHECK_LAUNCH();
}

bool fused_takes(std::uint32_t cols) { return cols >= kFusedMinCols && cols <= kFusedMaxCols; }

}  // namespace atax_detail

using namespace atax_detail;

std::size_t atax_temp_bytes(std::uint32_t rows, std::uint32_t cols) {
  if (fused_takes(cols)) return aligned(std::size_t{fused_blocks(rows)} * cols * sizeof(float));
  return two_pass_temp_bytes(rows, cols);
}

void atax(const float* a, const float* x, std::uint32_t rows, std::uint32_t cols, float* y, void* temp,
          std::size_t temp_bytes, cudaStream_t stream) {
  if (a == nullptr || x == nullptr || y == nullptr || temp == nullptr) throw Error("atax: null device pointer");
  if (rows == 0 || cols == 0 || rows > 0x7FFFFFFFu || cols > 0x7FFFFFFFu)
    throw Error("atax: " + std::to_string(cols) + " columns × " + std::to_string(rows) + " rows; both must be in [1, 2^31 - 1]");
  const std::size_t needed = atax_temp_bytes(rows, cols);
  if (temp_bytes < needed)
    throw Error("atax: temporary storage of " + std::to_string(temp_bytes) + " bytes is too small; atax_temp_bytes() says " +
                std::to_string(needed));
  auto* scratch = static_cast<float*>(temp);
  if (fused_takes(cols)) {
    const std::uint32_t blocks = fused_blocks(rows);
    const std::uint32_t per_block = (rows + blocks - 1) / blocks;
    const std::size_t smem = std::size_t{cols} * sizeof(float);
    const FusedKernel kernel = fused_for(cols);
    GPULAB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
    kernel<<<blocks, kFusedThreads, smem, stream>>>(a, x, rows, cols, per_block, scratch);
    GPULAB_CHECK_LAUNCH();
    sum_chunks<<<(cols + kTwoPassThreads - 1) / kTwoPassThreads, kTwoPassThreads, 0, stream>>>(scratch, blocks, cols, y);
    GPULAB_CHECK_LAUNCH();
    return;
  }
  two_pass(a, x, rows, cols, y, temp, stream);
}

}  // namespace gpulab
