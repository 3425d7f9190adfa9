// gpulab::conv3x3 (include/gpulab/conv.hpp) and its two paths: a register sliding window with
// 16-byte accesses where both images' rows are 16-byte aligned and the image has 2^22 pixels or
// more, a shared-memory tile otherwise.
#include "conv/conv_device.cuh"
#include "conv/conv_paths.hpp"
#include "lib/launch.cuh"
#include "lib/launch_limits.hpp"
#include "lib/memory_layout.hpp"

#include <gpulab/error.hpp>

#include <algorithm>
#include <cstdint>
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
    if (x < a.width && y < a.height) {
      std::uint8_t* out = a.out + static_cast<std::size_t>(y) * a.out_pitch + 3 * static_cast<std::size_t>(x);
      for (int c = 0; c < 3; ++c) {
        int s = 0;
#pragma unroll
        for (int dy = 0; dy < 3; ++dy)
#pragma unroll
          for (int dx = 0; dx < 3; ++dx) s += a.filter.k[3 * dy + dx] * tile[threadIdx.y + dy][3 * (threadIdx.x + dx) + c];
        out[c] = conv_math::round_clamp(s, a.filter.divisor, a.twice_divisor);
      }
    }
    __syncthreads();
  }
}

// ---- a register sliding window ------------------------------------------------------------------------
//
// A thread owns 16 pixels of a row (48 bytes: three 16-byte words where rows are 16-byte aligned)
// and walks down kWindowRows rows, keeping the rows above, at and below in registers: each input
// byte is loaded once per thread-row instead of 9 times, with 16-byte loads and stores, plus
// the pixel on either side. A byte is extracted from its word by a constant shift (the loops are
// unrolled), so the window stays in 3 × 14 registers.

constexpr int kRunPixels = 16, kRunWords = 3 * kRunPixels / 4;  // 12 words of 4 bytes
constexpr int kWindowRows = 8;  // 32 left too few threads below 16K (measured: 4K 0.130 ms vs the tile's 0.114)

/// One row of a thread's window: its 16 pixels as 12 words, the pixels left and right of them.
struct WindowRow {
  unsigned centre[kRunWords];
  unsigned left, right;  // 3 bytes each, in the low bytes
  __device__ __forceinline__ int byte(int q) const {  // q in [−3, 51): byte q of the run
    if (q < 0) return static_cast<int>((left >> (8 * (q + 3))) & 0xFFu);
    if (q >= 3 * kRunPixels) return static_cast<int>((right >> (8 * (q - 3 * kRunPixels))) & 0xFFu);
    return static_cast<int>((centre[q / 4] >> (8 * (q % 4))) & 0xFFu);
  }
};

__device__ __forceinline__ unsigned pixel_bytes(const ConvArgs& a, int x, int y) {
  return static_cast<unsigned>(conv_device::neighbour(a, x, y, 0)) | static_cast<unsigned>(conv_device::neighbour(a, x, y, 1)) << 8 |
         static_cast<unsigned>(conv_device::neighbour(a, x, y, 2)) << 16;
}

/// Row y (−1 ≤ y ≤ height, the border rule applied) of the run starting at pixel x0.
template <bool kVector>
__device__ __forceinline__ void load_row(const ConvArgs& a, int x0, int y, WindowRow& r) {
  const int yy = conv_math::border_index(y, a.height, a.border);
  if (kVector && yy >= 0 && x0 + kRunPixels <= a.width) {
    const uint4* p = reinterpret_cast<const uint4*>(a.in + static_cast<std::size_t>(yy) * a.in_pitch + 3 * static_cast<std::size_t>(x0));
#pragma unroll
    for (int v = 0; v < 3; ++v) {
      const uint4 w = p[v];
      r.centre[4 * v] = w.x, r.centre[4 * v + 1] = w.y, r.centre[4 * v + 2] = w.z, r.centre[4 * v + 3] = w.w;
    }
  } else {
#pragma unroll
    for (int w = 0; w < kRunWords; ++w) {
      unsigned word = 0;
#pragma unroll
      for (int b = 0; b < 4; ++b) {
        // Past a ragged end: the pixel the border rule puts at x = width (only the last stored
        // pixel's right neighbour matters).
        const int q = 4 * w + b, x = min(x0 + q / 3, a.width);
        word |= static_cast<unsigned>(conv_device::neighbour(a, x, y, q % 3)) << (8 * b);
      }
      r.centre[w] = word;
    }
  }
  r.left = pixel_bytes(a, x0 - 1, y);
  r.right = pixel_bytes(a, min(x0 + kRunPixels, a.width), y);  // past a ragged end: the border rule's pixel
}

template <bool kVector>
__global__ void __launch_bounds__(128) sliding_window(ConvArgs a) {
  const int x0 = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x) * kRunPixels;
  if (x0 >= a.width) return;
  const int bands = (a.height + kWindowRows - 1) / kWindowRows;
  for (int band = static_cast<int>(blockIdx.y); band < bands; band += static_cast<int>(gridDim.y)) {
    const int y_begin = band * kWindowRows, y_end = min(a.height, y_begin + kWindowRows);
    WindowRow rows[3];
    load_row<kVector>(a, x0, y_begin - 1, rows[0]);
    load_row<kVector>(a, x0, y_begin, rows[1]);
    for (int y = y_begin; y < y_end; ++y) {
      load_row<kVector>(a, x0, y + 1, rows[2]);
      unsigned out[kRunWords] = {};
#pragma unroll
      for (int q = 0; q < 3 * kRunPixels; ++q) {  // output byte q: pixel q / 3, channel q % 3
        int s = 0;
#pragma unroll
        for (int dy = 0; dy < 3; ++dy)
#pragma unroll
          for (int dx = 0; dx < 3; ++dx) s += a.filter.k[3 * dy + dx] * rows[dy].byte(q + 3 * (dx - 1));
        const int v = a.filter.divisor == 1 ? (s < 0 ? 0 : s > 255 ? 255 : s) : conv_math::round_clamp(s, a.filter.divisor, a.twice_divisor);
        out[q / 4] |= static_cast<unsigned>(v) << (8 * (q % 4));
      }
      std::uint8_t* dst = a.out + static_cast<std::size_t>(y) * a.out_pitch + 3 * static_cast<std::size_t>(x0);
      if (kVector && x0 + kRunPixels <= a.width) {
        uint4* p = reinterpret_cast<uint4*>(dst);
#pragma unroll
        for (int v = 0; v < 3; ++v) p[v] = {out[4 * v], out[4 * v + 1], out[4 * v + 2], out[4 * v + 3]};
      } else {
        for (int q = 0; q < 3 * min(kRunPixels, a.width - x0); ++q) dst[q] = static_cast<std::uint8_t>(out[q / 4] >> (8 * (q % 4)));
      }
      rows[0] = rows[1];
      rows[1] = rows[2];
    }
  }
}

}  // namespace

bool rows_aligned16(const ConvArgs& a) {
  const auto rows = static_cast<std::size_t>(a.height);
  return gpulab::rows_aligned16(a.in, a.in_pitch, rows) && gpulab::rows_aligned16(a.out, a.out_pitch, rows);
}

void run_sliding_window(const ConvArgs& a, cudaStream_t stream) {
  const dim3 grid = tile_grid(static_cast<std::size_t>(a.width), 128 * kRunPixels, static_cast<std::size_t>(a.height),
                              kWindowRows, "gpulab::conv3x3");
  const bool vector = rows_aligned16(a);
  launch(vector ? "conv_sliding_window<vector>" : "conv_sliding_window<bytes>", vector ? sliding_window<true> : sliding_window<false>,
         {grid, 128}, stream, a)
      .work([] { return std::string("16 pixels x 8 rows a thread, a 3-row window in registers"); });
}

void run_shared_tile(const ConvArgs& a, cudaStream_t stream) {
  const dim3 grid = tile_grid(static_cast<std::size_t>(a.width), kTileW, static_cast<std::size_t>(a.height), kTileH,
                              "gpulab::conv3x3");
  launch("conv_shared_tile", shared_tile, {grid, dim3(kTileW, kTileH)}, stream, a)
      .work([] { return std::string("a 32x8 tile of pixels from its 34x10 neighbourhood in shared memory"); });
}

}  // namespace conv_detail

namespace {
constexpr std::size_t kMaxSide = std::size_t{1} << 20;

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
  long weights = 0;
  for (int k : filter.k) weights += k < 0 ? -static_cast<long>(k) : k;
  require(weights <= (1L << 22), "weights summing to " + std::to_string(weights) + " in magnitude could overflow int32");
  require(!overlap(rows_span(in, height, 3 * width, in_pitch), rows_span(out, height, 3 * width, out_pitch)),
          "in and out overlap");
  const conv_device::ConvArgs a = conv_device::conv_args(in, in_pitch, out, out_pitch, static_cast<int>(width),
                                                         static_cast<int>(height), filter, border);
  // The window needs aligned rows, and enough of them: below 4K it has too few threads (1080p:
  // 0.038 ms against the tile's 0.033; a 1×1 image 0.055 ms against 0.006).
  if (conv_detail::rows_aligned16(a) && width * height >= (std::size_t{1} << 22))
    conv_detail::run_sliding_window(a, stream);
  else
    conv_detail::run_shared_tile(a, stream);
}

}  // namespace gpulab
