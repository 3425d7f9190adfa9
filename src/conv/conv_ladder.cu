// The conv ladder's table (conv_ladder.hpp).
#include "conv/conv_kernels.cuh"
#include "conv/conv_ladder.hpp"
#include "conv/conv_paths.hpp"
#include "conv/npp_filter.hpp"
#include "lib/launch.cuh"
#include "lib/launch_limits.hpp"

#include <string>

namespace gpulab {
namespace {

using conv_device::ConvArgs;

void run_thread_per_pixel(const ConvArgs& a, cudaStream_t s) {
  const dim3 grid = tile_grid(static_cast<std::size_t>(a.width), 32, static_cast<std::size_t>(a.height), 8, "conv");
  launch("conv_thread_per_pixel", conv_ladder::thread_per_pixel, {grid, dim3(32, 8)}, s, a)
      .work([] { return std::string("a thread per pixel, 32x8 a block"); });
}

void run_shared_tile(const ConvArgs& a, cudaStream_t s) { conv_detail::run_shared_tile(a, s); }
void run_sliding_window(const ConvArgs& a, cudaStream_t s) { conv_detail::run_sliding_window(a, s); }

void run_library(const ConvArgs& a, cudaStream_t s) {
  conv3x3(a.in, a.in_pitch, a.out, a.out_pitch, static_cast<std::size_t>(a.width), static_cast<std::size_t>(a.height),
          a.filter, a.border, s);
}

void run_npp(const ConvArgs& a, cudaStream_t s) { npp_filter_border(a, s); }

constexpr ConvRung row(std::string_view name, std::string_view adds, void (*run)(const ConvArgs&, cudaStream_t),
                       Role role = Role::rung) {
  return {{name, adds, role, false}, {run}};
}

constexpr ConvRung kRungs[] = {
    row("thread_per_pixel", "a thread per pixel, byte loads, the border rule on every neighbour", run_thread_per_pixel),
    row("shared_tile", "a 32x8 tile from its 34x10 neighbourhood in shared memory, each byte loaded once a block",
        run_shared_tile),
    row("sliding_window", "16 pixels x 8 rows a thread, 3 rows in registers; 16-byte loads and stores on aligned rows",
        run_sliding_window),
    row("library", "gpulab::conv3x3: the sliding window on 16-byte-aligned rows of 2^22 pixels or more, the shared tile otherwise", run_library,
        Role::library),
    row("nppiFilterBorder", "the vendor library (NPP, loaded at run time; replicate border only)", run_npp, Role::vendor),
};

}  // namespace

std::span<const ConvRung> conv_rungs() { return kRungs; }

}  // namespace gpulab
