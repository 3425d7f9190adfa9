// gpulab::conv3x3 (include/gpulab/conv.hpp) and its paths: register sliding windows with 16-byte
// accesses (conv_window.cu: two channels a register where the weights allow, from 2^16 pixels, on
// rows at any alignment; one a register from 2^22, on 16-byte-aligned rows or aligned copies), a
// shared-memory tile otherwise.
#include "conv/conv_device.cuh"
#include "conv/conv_paths.hpp"
#include "lib/arith.hpp"
#include "lib/copy_rows.hpp"
#include "lib/launch.cuh"
#include "lib/launch_limits.hpp"
#include "lib/memory_layout.hpp"
#include "lib/stream_scratch.hpp"

#include <gpulab/error.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

namespace gpulab {

namespace conv_detail {
namespace {

using conv_device::ConvArgs;
constexpr int kTileW = 32, kTileH = 8;  // pixels a block computes
constexpr int kHaloW = kTileW + 2, kHaloH = kTileH + 2;

__global__ void __launch_bounds__(kTileW * kTileH) shared_tile(ConvArgs a) {
  __shared__ std::uint8_t tile[kHaloH][3 * kHaloW];
  const int t = static_cast<int>(threadIdx.y * kTileW + threadIdx.x);
  const int x0 = static_cast<int>(blockIdx.x) * kTileW;
  const int tiles_y = (a.height + kTileH - 1) / kTileH;
  for (int ty = static_cast<int>(blockIdx.y); ty < tiles_y; ty += static_cast<int>(gridDim.y)) {
    const int y0 = ty * kTileH;
    // The neighbourhood, byte by byte (x0 − 1 … x0 + 32, y0 − 1 … y0 + 8), the border rule applied.
    for (int e = t; e < kHaloH * 3 * kHaloW; e += kTileW * kTileH) {
      const int row = e / (3 * kHaloW), byte = e % (3 * kHaloW);
      tile[row][byte] = static_cast<std::uint8_t>(conv_device::neighbour(a, x0 - 1 + byte / 3, y0 - 1 + row, byte % 3));
    }
    __syncthreads();
    const int x = x0 + static_cast<int>(threadIdx.x), y = y0 + static_cast<int>(threadIdx.y);
    if (x < a.width && y < a.height)
      conv_device::write_pixel(a, x, y, [&](int dy, int dx, int c) { return tile[threadIdx.y + dy][3 * (threadIdx.x + dx) + c]; });
    __syncthreads();
  }
}

}  // namespace

void run_shared_tile(const ConvArgs& a, cudaStream_t stream) {
  const dim3 grid = tile_grid(static_cast<std::size_t>(a.width), kTileW, static_cast<std::size_t>(a.height), kTileH,
                              "gpulab::conv3x3");
  launch("conv_shared_tile", shared_tile, {grid, dim3(kTileW, kTileH)}, stream, a)
      .work([] { return std::string("a 32x8 tile of pixels from its 34x10 neighbourhood in shared memory"); });
}

}  // namespace conv_detail

namespace {
constexpr std::size_t kMaxSide = std::size_t{1} << 20;

// Rows that do not start on 16-byte boundaries (a packed image whose rows are not a multiple of 16
// bytes, an offset pointer) keep the window kernels from their 16-byte accesses. The lanes realign
// them in registers (realigned_lanes: 12345×6789 packed 0.283 ms on the H100, the shared tile
// 1.053, docs/conv.md). Weights too large for the lanes take, from kStagedMinPixels, the
// one-channel window on copies: the rows copied to rows padded to 16 bytes in gpulab's pool
// (copy_rows), filtered there, and the result's rows copied back (12345×6789 with the lanes so:
// 0.537 ms; with cudaMemcpy2DAsync's copies staging paid only on large images: 3841×2161 tied
// with the tile).
constexpr std::size_t kStagedMinPixels = std::size_t{1} << 24;

/// The lanes' smallest image. Measured on the H100 (docs/conv.md): on aligned rows they beat the
/// tile from 512x512 up (1080p 0.012 ms against 0.031) and tie at 64x64 and 256x256 (realigned, at
/// 1001x333); below, the tile's single light block wins (1x1 0.005 ms against 0.007).
constexpr std::size_t kLanesMinPixels = std::size_t{1} << 16;

/// Rows on 16-byte boundaries where the lanes do not run (weights too large, or a small image): the
/// one-channel window from 2^22 pixels (1080p: 0.038 ms against the tile's 0.031, H100), the tile below.
void run_aligned_one_channel(const conv_device::ConvArgs& a, cudaStream_t stream) {
  const std::size_t pixels = static_cast<std::size_t>(a.width) * static_cast<std::size_t>(a.height);
  if (pixels >= (std::size_t{1} << 22))
    conv_detail::run_sliding_window(a, stream);
  else
    conv_detail::run_shared_tile(a, stream);
}

/// The staged run; false (nothing enqueued) where the pool cannot hold the two copies.
bool run_staged(const conv_device::ConvArgs& a, cudaStream_t stream) {
  const std::size_t row = 3 * static_cast<std::size_t>(a.width), pitch = align_up(row, 16);
  const auto height = static_cast<std::size_t>(a.height);
  std::optional<StreamScratch> staged_images;  // the input's copy, then the output's
  if (!take_scratch(staged_images, 2 * pitch * height, stream)) return false;
  std::uint8_t* in_rows = staged_images->as<std::uint8_t>();
  std::uint8_t* out_rows = in_rows + pitch * height;
  copy_rows(a.in, a.in_pitch, in_rows, pitch, row, height, stream);
  const conv_device::ConvArgs staged = conv_device::conv_args(in_rows, pitch, out_rows, pitch, a.width, a.height, a.filter, a.border);
  run_aligned_one_channel(staged, stream);
  copy_rows(out_rows, pitch, a.out, a.out_pitch, row, height, stream);
  return true;
}

void require(bool ok, const std::string& what) {
  if (!ok) throw Error("gpulab::conv3x3: " + what);
}
}  // namespace

void conv3x3(const std::uint8_t* in, std::size_t in_pitch, std::uint8_t* out, std::size_t out_pitch, std::size_t width,
             std::size_t height, const Filter3x3& filter, Border border, cudaStream_t stream) {
  require(width >= 1 && height >= 1 && width <= kMaxSide && height <= kMaxSide && width * height <= (std::size_t{1} << 31),
          "sides must be 1 to 2^20 pixels, at most 2^31 pixels in all (got " + std::to_string(width) + "x" +
              std::to_string(height) + ")");
  require(in != nullptr && out != nullptr, "null image");
  require(in_pitch >= 3 * width && out_pitch >= 3 * width, "a pitch is smaller than a row of 3 bytes a pixel");
  require(filter.divisor != 0, "the divisor is 0");
  const long weights = conv_math::weight_magnitude(filter);
  require(weights <= (1L << 22), "weights summing to " + std::to_string(weights) + " in magnitude could overflow int32");
  require(!overlap(rows_span(in, height, 3 * width, in_pitch), rows_span(out, height, 3 * width, out_pitch)),
          "in and out overlap");
  const conv_device::ConvArgs a = conv_device::conv_args(in, in_pitch, out, out_pitch, static_cast<int>(width),
                                                         static_cast<int>(height), filter, border);
  const bool aligned = conv_detail::rows_aligned16(a);
  if (conv_detail::lane_weights_fit(a) && width * height >= kLanesMinPixels) {
    if (aligned)
      conv_detail::run_lanes(a, stream);
    else
      conv_detail::run_lanes_realigned(a, stream);
  } else if (aligned) {
    run_aligned_one_channel(a, stream);
  } else if (width * height < kStagedMinPixels || !run_staged(a, stream)) {
    conv_detail::run_shared_tile(a, stream);
  }
}

}  // namespace gpulab
