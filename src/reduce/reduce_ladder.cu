// The reduction ladder's table (see reduce_ladder.hpp): launchers for the rungs of
// reduce_kernels.cuh, the library's reduce_sum, and the vendor baseline.
#include "lib/launch.cuh"
#include "lib/launch_limits.hpp"
#include "reduce/reduce_kernels.cuh"
#include "reduce/reduce_ladder.hpp"

#include <gpulab/error.hpp>
#include <gpulab/reduce.hpp>

#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

namespace gpulab {
namespace {

using namespace reduce_ladder;
using reduce_detail::thread_sum_depth;

void require_valid_block(unsigned block) {
  if (!valid_reduce_block(block))
    throw Error("reduce: block size " + std::to_string(block) +
                " is not a power of two in [32, 1024]");
}

unsigned checked_grid(std::size_t blocks) { return gpulab::checked_grid(blocks, "reduce"); }

struct DeviceShape {
  int sms = 0;
  int threads_per_sm = 0;
};
DeviceShape current_device_shape() {
  return {current_device_attribute(cudaDevAttrMultiProcessorCount),
          current_device_attribute(cudaDevAttrMaxThreadsPerMultiProcessor)};
}

// ---- rungs 1–6: a launch per level, ping-ponging between two workspace arrays -------------------

template <class T>
using LevelKernel = void (*)(const T*, T*, std::size_t);

template <class T, unsigned kLoadsPerThread, LevelKernel<T> (*kPick)(unsigned block)>
struct Levels {
  static std::size_t per_block(unsigned block) { return std::size_t{block} * kLoadsPerThread; }

  static std::size_t workspace_bytes(std::size_t n, unsigned block) {
    const std::size_t first = ceil_div(n, per_block(block));
    const std::size_t second = ceil_div(first, per_block(block));
    return align_up(first * sizeof(T), 256) + second * sizeof(T);
  }

  static void run(const T* in, std::size_t n, T* out, void* workspace, std::size_t, unsigned block,
                  cudaStream_t stream) {
    require_valid_block(block);
    const LevelKernel<T> kernel = kPick(block);
    const std::size_t first = ceil_div(n, per_block(block));
    T* buffers[2] = {static_cast<T*>(workspace),
                     reinterpret_cast<T*>(static_cast<unsigned char*>(workspace) +
                                          align_up(first * sizeof(T), 256))};
    const std::size_t smem = block * sizeof(reduce_detail::accum_t<T>);
    const T* src = in;
    std::size_t count = n;
    for (int level = 0;; ++level) {
      const std::size_t grid = std::max<std::size_t>(1, ceil_div(count, per_block(block)));
      T* dst = grid == 1 ? out : buffers[level % 2];
      launch("level", kernel, {checked_grid(grid), block, smem}, stream, src, dst, count)
          .work([&] { return "level " + std::to_string(level + 1) + ": " + count_of(per_block(block), "element") + " per block"; });
      if (grid == 1) break;
      src = dst;
      count = grid;
    }
  }

  // Each level is a tree of log2(block) additions (+1 for the add on load); levels stack.
  static std::size_t depth(std::size_t n, unsigned block) {
    std::size_t levels = 0, count = n;
    do {
      count = ceil_div(count, per_block(block));
      ++levels;
    } while (count > 1);
    return levels * (log2_ceil(block) + kLoadsPerThread - 1) + 1;
  }
};

template <class T> LevelKernel<T> pick1(unsigned) { return reduce1_interleaved_divergent<T>; }
template <class T> LevelKernel<T> pick2(unsigned) { return reduce2_interleaved_strided<T>; }
template <class T> LevelKernel<T> pick3(unsigned) { return reduce3_sequential<T>; }
template <class T> LevelKernel<T> pick4(unsigned) { return reduce4_first_add_on_load<T>; }
template <class T> LevelKernel<T> pick5(unsigned) { return reduce5_unroll_last_warp<T>; }
template <class T> LevelKernel<T> pick6(unsigned block) {
  switch (block) {
    case 32: return reduce6_complete_unroll<T, 32>;
    case 64: return reduce6_complete_unroll<T, 64>;
    case 128: return reduce6_complete_unroll<T, 128>;
    case 256: return reduce6_complete_unroll<T, 256>;
    case 512: return reduce6_complete_unroll<T, 512>;
    case 1024: return reduce6_complete_unroll<T, 1024>;
  }
  throw Error("reduce: rung 6 has no instance for block size " + std::to_string(block));
}

// ---- rung 7: a resident grid streaming 16-byte vectors, then one block for the partials ---------

template <class T>
struct GridStride {
  static std::size_t grid(std::size_t n, unsigned block) {
    const DeviceShape d = current_device_shape();
    const std::size_t resident = std::size_t(d.sms) * (d.threads_per_sm / block);
    const std::size_t vectors = n / reduce_detail::Vec16<T>::kCount;
    return std::clamp<std::size_t>(ceil_div(vectors, block), 1, resident);
  }
  static std::size_t workspace_bytes(std::size_t n, unsigned block) { return grid(n, block) * sizeof(T); }
  static void run(const T* in, std::size_t n, T* out, void* workspace, std::size_t, unsigned block,
                  cudaStream_t stream) {
    require_valid_block(block);
    const std::size_t g = grid(n, block);
    T* partials = static_cast<T*>(workspace);
    launch("grid_stride (elements)", reduce7_grid_stride_vectorized<T>, {checked_grid(g), block}, stream, in, partials, n);
    launch("grid_stride (partials)", reduce7_grid_stride_vectorized<T>, {1, block}, stream, partials, out, g);
  }
  static std::size_t depth(std::size_t n, unsigned block) {
    const std::size_t g = grid(n, block);
    return thread_sum_depth(n, g * block, 1, sizeof(T)) + log2_ceil(block) +
           thread_sum_depth(g, block, 1, sizeof(T)) + log2_ceil(block) + 1;
  }
};

// ---- rung 8: the library function ----------------------------------------------------------------

template <class T>
struct Library {
  static std::size_t workspace_bytes(std::size_t n, unsigned) { return reduce_sum_temp_bytes<T>(n); }
  static void run(const T* in, std::size_t n, T* out, void* ws, std::size_t ws_bytes, unsigned,
                  cudaStream_t stream) {
    reduce_sum(in, n, out, ws, ws_bytes, stream);
  }
  static std::size_t depth(std::size_t n, unsigned) { return reduce_sum_accumulation_depth<T>(n); }
};

// ---- vendor: CUB ----------------------------------------------------------------------------------

template <class T>
struct Cub {
  static std::size_t workspace_bytes(std::size_t n, unsigned) {
    std::size_t bytes = 0;
    GPULAB_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, static_cast<const T*>(nullptr),
                                             static_cast<T*>(nullptr), static_cast<std::int64_t>(n)));
    return bytes;
  }
  static void run(const T* in, std::size_t n, T* out, void* ws, std::size_t ws_bytes, unsigned,
                  cudaStream_t stream) {
    GPULAB_CUDA_CHECK(cub::DeviceReduce::Sum(ws, ws_bytes, in, out, static_cast<std::int64_t>(n), stream));
  }
  // CUB's order of additions is its own. Bound used: every SM runs at least one block of at least
  // 128 threads, each thread adding its share sequentially (≤ ceil(n / (SMs·128)) terms), then
  // block and grid trees of at most 64 levels in all. Documented in docs/reduce.md.
  static std::size_t depth(std::size_t n, unsigned) {
    return ceil_div(n, std::size_t(current_device_shape().sms) * 128) + 64;
  }
};

/// One table line from a launcher struct with workspace_bytes, run and depth.
template <class T, class Impl>
constexpr ReduceRung<T> rung(std::string_view name, std::string_view adds, std::string_view claims, Role role,
                             bool uses_block) {
  return {{name, adds, role, uses_block, false, claims}, {&Impl::workspace_bytes, &Impl::run, &Impl::depth}};
}

// Read top to bottom: each rung's kernel is in reduce_kernels.cuh (rung 8: reduce_sum.cu). Each
// line: name, what it adds, the counters that says it changes (`gpulab profile`), role, --block.
template <class T>
constexpr ReduceRung<T> kRungs[] = {
    rung<T, Levels<T, 1, pick1<T>>>("interleaved_divergent",
        "tree in shared memory; tid % 2s picks the adders (the course's first version)", "divergence branches", Role::rung, true),
    rung<T, Levels<T, 1, pick2<T>>>("interleaved_strided",
        "index = 2*s*tid: warps retire whole, but shared-memory bank conflicts", "divergence branches bank_conflicts", Role::rung, true),
    rung<T, Levels<T, 1, pick3<T>>>("sequential_addressing",
        "s halves from blockDim/2, tid < s: conflict-free shared accesses", "bank_conflicts", Role::rung, true),
    rung<T, Levels<T, 2, pick4<T>>>("first_add_on_load",
        "each thread adds two elements while loading: half the blocks", "instructions dram", Role::rung, true),
    rung<T, Levels<T, 2, pick5<T>>>("unroll_last_warp",
        "the last 64 partials summed by one warp with shuffles, no barriers", "instructions", Role::rung, true),
    rung<T, Levels<T, 2, pick6<T>>>("complete_unroll",
        "block size as a template parameter: the whole tree unrolled", "instructions", Role::rung, true),
    rung<T, GridStride<T>>("grid_stride_vec16",
        "resident grid, many elements per thread, 16-byte loads; 2 launches", "load_sectors instructions dram", Role::rung, true),
    rung<T, Library<T>>("single_pass_deterministic",
        "gpulab::reduce_sum: 4 loads in flight, one launch, the last block combines in a fixed order", "dram", Role::library, false),
    rung<T, Cub<T>>("cub::DeviceReduce::Sum", "the vendor library (CUB)", "dram", Role::vendor, false),
};

}  // namespace


template <class T>
std::span<const ReduceRung<T>> reduce_rungs() {
  return kRungs<T>;
}

template std::span<const ReduceRung<std::int32_t>> reduce_rungs<std::int32_t>();
template std::span<const ReduceRung<float>> reduce_rungs<float>();
template std::span<const ReduceRung<double>> reduce_rungs<double>();

}  // namespace gpulab
