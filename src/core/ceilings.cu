// The ceiling kernels: each is the simplest kernel that runs at the limit of one resource.
#include "core/ceilings.hpp"
#include "core/memory.hpp"
#include "core/tensor_peak.hpp"
#include "lib/launch.cuh"
#include "lib/launch_limits.hpp"
#include "lib/tile_stream.cuh"

#include <gpulab/device_buffer.hpp>
#include <gpulab/error.hpp>

#include <algorithm>
#include <optional>

namespace gpulab {
namespace {

constexpr int kStreamBlock = 256;
constexpr unsigned kStreamUnroll = 4;

// Reads every float4 once, with the access pattern of lib/tile_stream.cuh (kLoads 16-byte loads in
// flight per thread, block-contiguous tiles; the read ceiling takes four in blocks of kStreamBlock,
// `ceilings --in-flight` any count in blocks of any size: kBlock 0, blockDim.x). Each warp adds one
// float to `sink`, so the compiler cannot drop the loads.
template <unsigned kLoads = kStreamUnroll, unsigned kBlock = kStreamBlock>
__global__ void read_stream_kernel(const float4* __restrict__ in, std::size_t count, float* __restrict__ sink) {
  float acc = 0.f;
  for_each_vector_in_tiles<kLoads>(in, count, blockIdx.x, gridDim.x, threadIdx.x, kBlock != 0 ? kBlock : blockDim.x,
                                   [&acc](const float4& v) { acc += v.x + v.y + v.z + v.w; });
  for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(&sink[blockIdx.x], acc);
}

// The L2 read ceiling: the same streaming loop over an L2-resident buffer, `passes` times in one
// launch. One pass over a quarter of the L2 takes a few microseconds, about a launch's own cost,
// so timing single passes measured the launch, not the L2 (it read 2.2 TB/s on an H100, below
// DRAM's 3.1). Each pass hands every block other tiles than the pass before (a prime stride
// through the blocks): a block that re-read its own tiles found them in its SM's L1 (18.7 TB/s).
__global__ void read_l2_kernel(const float4* __restrict__ in, std::size_t count, int passes,
                               float* __restrict__ sink) {
  float acc = 0.f;
  for (int p = 0; p < passes; ++p) {
    const std::size_t b = (blockIdx.x + static_cast<std::size_t>(p) * 7919) % gridDim.x;
    for_each_vector_in_tiles<kStreamUnroll>(in, count, b, gridDim.x, threadIdx.x, kStreamBlock,
                                            [&acc](const float4& v) { acc += v.x + v.y + v.z + v.w; });
  }
  for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(&sink[blockIdx.x], acc);
}

__global__ void write_stream_kernel(float4* __restrict__ out, std::size_t count, float value) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride)
    out[i] = make_float4(value, value, value, value);
}

// STREAM's add: a full grid, a vector per thread. Two reads for every write: fewer read/write
// turnarounds than a copy, so on an H100 it moves more bytes per second than cudaMemcpy does.
__global__ void add_stream_kernel(const float4* __restrict__ a, const float4* __restrict__ b, float4* __restrict__ c,
                                  std::size_t count) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) c[i] = make_float4(a[i].x + b[i].x, a[i].y + b[i].y, a[i].z + b[i].z, a[i].w + b[i].w);
}

constexpr int kFmaChains = 8;
constexpr int kFmaIterations = 4096;

// kFmaChains independent dependency chains per thread hide the FMA pipeline's latency.
__global__ void fma_kernel(float* __restrict__ out, float a, float b) {
  float x[kFmaChains];
#pragma unroll
  for (int c = 0; c < kFmaChains; ++c) x[c] = static_cast<float>(threadIdx.x + c);
  for (int it = 0; it < kFmaIterations; ++it) {
#pragma unroll
    for (int c = 0; c < kFmaChains; ++c) x[c] = fmaf(x[c], a, b);
  }
  float s = 0.f;
#pragma unroll
  for (int c = 0; c < kFmaChains; ++c) s += x[c];
  out[static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x] = s;
}

constexpr int kMmaChains = 8;  // independent accumulators a warp: the tensor pipe's latency hidden

/// The tensor ceilings before Hopper: every warp issues kMmaChains independent mma.sync a step,
/// `groups` steps, on registers of pseudo-random bits (TF32 values in [1, 2), any int8). TF32 on
/// compute capability 8.0+ (m16n8k8), INT8 on 8.0+ (m16n8k32) and 7.5 (m8n8k16).
template <bool kInt8>
__global__ void tensor_peak_mma_kernel(int groups, float* __restrict__ sink) {
  const unsigned seed = (blockIdx.x * blockDim.x + threadIdx.x) * 2654435761u;
  unsigned a[4], b[2];
#pragma unroll
  for (int i = 0; i < 4; ++i) a[i] = kInt8 ? seed ^ (i * 0x9E3779B9u) : 0x3F800000u | ((seed >> i) & 0x007FE000u);
#pragma unroll
  for (int i = 0; i < 2; ++i) b[i] = kInt8 ? seed * (i + 3) : 0x3F800000u | ((seed >> (i + 5)) & 0x007FE000u);
  float sum = 0.f;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750
  if constexpr (kInt8) {
    int d[kMmaChains][4] = {};
    for (int g = 0; g < groups; ++g) {
#pragma unroll
      for (int c = 0; c < kMmaChains; ++c) {
#if __CUDA_ARCH__ >= 800
        asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                     : "+r"(d[c][0]), "+r"(d[c][1]), "+r"(d[c][2]), "+r"(d[c][3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
        asm volatile("mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 {%0, %1}, {%2}, {%3}, {%0, %1};"
                     : "+r"(d[c][0]), "+r"(d[c][1])
                     : "r"(a[0]), "r"(b[0]));
#endif
      }
    }
#pragma unroll
    for (int c = 0; c < kMmaChains; ++c) sum += static_cast<float>(d[c][0] + d[c][1] + d[c][2] + d[c][3]);
  } else {
#if __CUDA_ARCH__ >= 800
    float d[kMmaChains][4] = {};
    for (int g = 0; g < groups; ++g) {
#pragma unroll
      for (int c = 0; c < kMmaChains; ++c)
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                     : "+f"(d[c][0]), "+f"(d[c][1]), "+f"(d[c][2]), "+f"(d[c][3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
#pragma unroll
    for (int c = 0; c < kMmaChains; ++c) sum += d[c][0] + d[c][1] + d[c][2] + d[c][3];
#endif
  }
#endif
  sink[static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x] = sum;
}

/// The mma.sync form of a tensor ceiling on a GPU of this compute capability; none where it has no
/// such tensor cores (TF32 before 8.0, INT8 before 7.5).
std::optional<TensorPeakKernel> tensor_peak_mma(bool int8, int capability) {
  if (capability < (int8 ? 75 : 80)) return std::nullopt;
  constexpr double kWarps = kStreamBlock / 32;
  if (!int8) return TensorPeakKernel{tensor_peak_mma_kernel<false>, "tensor_peak_mma_tf32", kStreamBlock,
                                     2.0 * 16 * 8 * 8 * kMmaChains * kWarps, "mma.sync m16n8k8 tf32"};
  if (capability >= 80)
    return TensorPeakKernel{tensor_peak_mma_kernel<true>, "tensor_peak_mma_int8", kStreamBlock, 2.0 * 16 * 8 * 32 * kMmaChains * kWarps,
                            "mma.sync m16n8k32 s8"};
  return TensorPeakKernel{tensor_peak_mma_kernel<true>, "tensor_peak_mma_int8", kStreamBlock, 2.0 * 8 * 8 * 16 * kMmaChains * kWarps,
                          "mma.sync m8n8k16 s8"};
}

/// One tensor ceiling in GFLOP/s (GOP/s for INT8): the form the family's GEMMs use, every SM filled
/// with as many blocks as it holds, `groups` groups a block (about a millisecond on an H100).
void measure_tensor(bool int8, GpuTimer& timer, const TimingOptions& opt, TensorCeiling& out) {
  const int capability = current_compute_capability();  // the treated-as family where one is set
  const std::optional<TensorPeakKernel> k = capability == 90 ? tensor_peak_wgmma(int8) : tensor_peak_mma(int8, capability);
  if (!k) return;
  const unsigned blocks = resident_blocks(reinterpret_cast<const void*>(k->kernel), k->threads);
  if (blocks == 0) return;
  const int groups = capability == 90 ? 2048 : 4096;
  DeviceBuffer<float> sink(std::size_t{blocks} * k->threads);
  out.time = timer.time([&](cudaStream_t s) { launch(k->name, k->kernel, {blocks, k->threads}, s, groups, sink.data()); }, opt);
  out.gflops = k->ops_per_group * groups * blocks / (out.time.median_ms * 1e-3) / 1e9;
  out.form = k->form;
}

}  // namespace

void read_through(const void* data, std::size_t bytes, float* sink, unsigned blocks, cudaStream_t stream) {
  launch("read_through", read_stream_kernel<>, {blocks, kStreamBlock}, stream, static_cast<const float4*>(data), bytes / sizeof(float4),
         sink);
}

Ceilings measure_ceilings(const DeviceFacts& device, int reps) {
  std::size_t free_bytes = 0, total_bytes = 0;
  GPULAB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  // 1 GiB per buffer (20× Hopper's L2), less on a card that cannot hold three of them.
  std::size_t bytes = std::min<std::size_t>(std::size_t{1} << 30, free_bytes / 5);
  bytes -= bytes % (16 * 1024);
  require_device_bytes(3 * bytes, "measuring the ceilings");

  Ceilings c;
  c.buffer_bytes = bytes;
  Stream stream;
  GpuTimer timer(stream.get(), device.l2_bytes);
  TimingOptions opt;
  opt.reps = reps;
  opt.working_set_bytes = 2 * bytes;

  DeviceBuffer<float4> a(bytes / sizeof(float4)), b(bytes / sizeof(float4));
  GPULAB_CUDA_CHECK(cudaMemsetAsync(a.data(), 0x3c, bytes, stream.get()));  // ~0.01f each
  const int resident_blocks = device.max_resident_blocks(kStreamBlock);
  DeviceBuffer<float> sink(static_cast<std::size_t>(resident_blocks));

  c.copy = timer.time([&](cudaStream_t s) {
    GPULAB_CUDA_CHECK(cudaMemcpyAsync(b.data(), a.data(), bytes, cudaMemcpyDeviceToDevice, s));
  }, opt);
  c.read = timer.time([&](cudaStream_t s) {
    launch("read_stream", read_stream_kernel<>, {static_cast<unsigned>(resident_blocks), kStreamBlock}, s, a.data(), a.size(),
           sink.data());
  }, opt);
  c.write = timer.time([&](cudaStream_t s) {
    launch("write_stream", write_stream_kernel, {static_cast<unsigned>(resident_blocks), kStreamBlock}, s, b.data(), b.size(),
           1.0f);
  }, opt);
  {
    DeviceBuffer<float4> sum(bytes / sizeof(float4));
    TimingOptions add_opt = opt;
    add_opt.working_set_bytes = 3 * bytes;
    const auto blocks = static_cast<unsigned>(a.size() / kStreamBlock);  // bytes is a multiple of 16 KiB
    c.add = timer.time([&](cudaStream_t s) {
      launch("add_stream", add_stream_kernel, {blocks, kStreamBlock}, s, a.data(), b.data(), sum.data(), a.size());
    }, add_opt);
  }
  const int fma_blocks = device.sm_count * 16;
  DeviceBuffer<float> fma_out(static_cast<std::size_t>(fma_blocks) * kStreamBlock);
  c.fma = timer.time([&](cudaStream_t s) {
    launch("fma", fma_kernel, {static_cast<unsigned>(fma_blocks), kStreamBlock}, s, fma_out.data(), 0.999f, 0.001f);
  }, opt);

  // The L2: a quarter of the L2 read kL2Passes times in one launch, repeated without a flush, so
  // that every pass after the first finds the buffer in the cache.
  constexpr int kL2Passes = 32;
  const std::size_t l2_bytes = std::max<std::size_t>(device.l2_bytes / 4 / (16 * 1024) * (16 * 1024), 16 * 1024);
  TimingOptions l2_opt = opt;
  l2_opt.working_set_bytes = std::size_t{1} << 62;  // never flushed
  l2_opt.reps = std::max(reps, 50);
  c.l2_read = timer.time([&](cudaStream_t s) {
    launch("read_l2", read_l2_kernel, {static_cast<unsigned>(resident_blocks), kStreamBlock}, s, a.data(),
           l2_bytes / sizeof(float4), kL2Passes, sink.data());
  }, l2_opt);

  const double gb = static_cast<double>(bytes) / 1e9;
  c.l2_read_gbs = static_cast<double>(l2_bytes) * kL2Passes / 1e9 / (c.l2_read.median_ms * 1e-3);
  c.copy_gbs = 2.0 * gb / (c.copy.median_ms * 1e-3);
  c.read_gbs = gb / (c.read.median_ms * 1e-3);
  c.write_gbs = gb / (c.write.median_ms * 1e-3);
  c.add_gbs = 3.0 * gb / (c.add.median_ms * 1e-3);
  const double flops = 2.0 * kFmaChains * kFmaIterations * static_cast<double>(fma_blocks) * kStreamBlock;
  c.fma_gflops = flops / (c.fma.median_ms * 1e-3) / 1e9;
  measure_tensor_ceilings(device, c, reps);
  return c;
}

void measure_tensor_ceilings(const DeviceFacts& device, Ceilings& c, int reps) {
  Stream stream;
  GpuTimer timer(stream.get(), device.l2_bytes);
  TimingOptions opt;
  opt.reps = reps;
  opt.working_set_bytes = std::size_t{1} << 62;  // registers and shared memory alone: the L2 never flushed
  measure_tensor(false, timer, opt, c.tf32);
  measure_tensor(true, timer, opt, c.int8);
}

std::vector<InFlightPoint> measure_in_flight(const DeviceFacts& device, int reps) {
  std::size_t free_bytes = 0, total_bytes = 0;
  GPULAB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  std::size_t bytes = std::min<std::size_t>(std::size_t{1} << 28, free_bytes / 4);  // 5× Hopper's L2
  bytes -= bytes % (16 * 1024);
  require_device_bytes(bytes, "measuring the read by bytes in flight");
  Stream stream;
  GpuTimer timer(stream.get(), device.l2_bytes);
  TimingOptions opt;
  opt.reps = reps;
  opt.working_set_bytes = bytes;
  DeviceBuffer<float4> a(bytes / sizeof(float4));
  GPULAB_CUDA_CHECK(cudaMemsetAsync(a.data(), 0x3c, bytes, stream.get()));
  // One block an SM up to 32 warps, two past them: grids of a block or two an SM, resident at once.
  DeviceBuffer<float> sink(static_cast<std::size_t>(device.sm_count) * 2);
  using Kernel = void (*)(const float4*, std::size_t, float*);
  const std::pair<int, Kernel> kernels[] = {{1, read_stream_kernel<1, 0>}, {2, read_stream_kernel<2, 0>},
                                            {4, read_stream_kernel<4, 0>}, {8, read_stream_kernel<8, 0>}};
  std::vector<InFlightPoint> points;
  for (int warps : {4, 8, 16, 32, 64})
    for (const auto& [loads, kernel] : kernels) {
      const int blocks_per_sm = warps > 32 ? warps / 32 : 1;
      const auto block = static_cast<unsigned>(warps / blocks_per_sm * 32);
      // Only points whose blocks are all resident at once (registers can halve 64 warps, a small SM refuse them).
      if (resident_blocks(reinterpret_cast<const void*>(kernel), block) < static_cast<unsigned>(blocks_per_sm * device.sm_count)) continue;
      InFlightPoint p;
      p.warps_per_sm = warps;
      p.loads_per_thread = loads;
      p.bytes_per_sm = static_cast<std::size_t>(warps) * 32 * static_cast<std::size_t>(loads) * sizeof(float4);
      const auto grid = static_cast<unsigned>(device.sm_count * blocks_per_sm);
      p.time = timer.time([&](cudaStream_t s) { launch("read_in_flight", kernel, {grid, block}, s, a.data(), a.size(), sink.data()); }, opt);
      p.gbs = static_cast<double>(bytes) / 1e9 / (p.time.median_ms * 1e-3);
      p.latency_ns = static_cast<double>(p.bytes_per_sm) * device.sm_count / p.gbs;  // bytes ÷ (GB/s) = ns
      points.push_back(p);
    }
  return points;
}

std::size_t in_flight_bytes_for(const std::vector<InFlightPoint>& points, double fraction) {
  double best = 0.0;
  for (const auto& p : points) best = std::max(best, p.gbs);
  std::size_t fewest = 0;
  for (const auto& p : points)
    if (p.gbs >= fraction * best && (fewest == 0 || p.bytes_per_sm < fewest)) fewest = p.bytes_per_sm;
  return fewest;
}

}  // namespace gpulab
