// The conv ladder's own kernels, read top to bottom; the library's kernels are in conv.cu (the
// shared tile) and conv_window.cu (the register windows).
#pragma once

#include "conv/conv_device.cuh"

#include <cstdint>

namespace gpulab::conv_ladder {

using conv_device::ConvArgs;

/// body(by) for each row of blocks this block stands for: the grid's y is capped at 65535, so a
/// block walks rows blockIdx.y, blockIdx.y + gridDim.y, …
template <class Body>
__device__ __forceinline__ void for_each_block_row(int block_rows, Body body) {
  for (int by = static_cast<int>(blockIdx.y); by < block_rows; by += static_cast<int>(gridDim.y)) body(by);
}

/// body(x, y) for the pixel (x, y) this thread owns in each of its block's rows of blocks, if inside.
template <class Body>
__device__ __forceinline__ void for_each_pixel(const ConvArgs& a, Body body) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int block_rows = (a.height + static_cast<int>(blockDim.y) - 1) / static_cast<int>(blockDim.y);
  for_each_block_row(block_rows, [&](int by) {
    const int y = by * static_cast<int>(blockDim.y) + static_cast<int>(threadIdx.y);
    if (x < a.width && y < a.height) body(x, y);
  });
}

// Rung 1, a thread per pixel (the seed's starting point): nine byte loads per channel, each through
// the border rule, and the nine weights read from an array in global memory.
__global__ void thread_per_pixel(ConvArgs a) {
  for_each_pixel(a, [&](int x, int y) {
    std::uint8_t* out = a.out + static_cast<std::size_t>(y) * a.out_pitch + 3 * static_cast<std::size_t>(x);
    for (int c = 0; c < 3; ++c) {
      int s = 0;
      for (int i = 0; i < 9; ++i) s += a.weights_reversed[8 - i] * conv_device::neighbour(a, x + i % 3 - 1, y + i / 3 - 1, c);
      out[c] = conv_math::round_clamp(s, a.filter.divisor);
    }
  });
}

// Rung 2: the same, the filter a kernel parameter: parameters live in the constant bank, whose
// cache broadcasts one word to a whole warp (the seed's §2.3). Nothing else changes.
__global__ void constant_filter(ConvArgs a) {
  for_each_pixel(a, [&](int x, int y) {
    std::uint8_t* out = a.out + static_cast<std::size_t>(y) * a.out_pitch + 3 * static_cast<std::size_t>(x);
    for (int c = 0; c < 3; ++c) {
      int s = 0;
      for (int i = 0; i < 9; ++i) s += a.filter.k[i] * conv_device::neighbour(a, x + i % 3 - 1, y + i / 3 - 1, c);
      out[c] = conv_math::round_clamp(s, a.filter.divisor);
    }
  });
}

// Rung 2 read through a texture object instead (the seed's §2.4, a compared option): the same
// arithmetic, every byte fetched by the texture unit from a pitched 2-D texture of 3·width bytes
// by height. The border rule stays in the index arithmetic: the texture's own clamping works in
// bytes, not in pixels of three.
__global__ void texture_reads(ConvArgs a, cudaTextureObject_t image) {
  for_each_pixel(a, [&](int x, int y) {
    std::uint8_t* out = a.out + static_cast<std::size_t>(y) * a.out_pitch + 3 * static_cast<std::size_t>(x);
    for (int c = 0; c < 3; ++c) {
      int s = 0;
      for (int i = 0; i < 9; ++i) {
        const int xx = conv_math::border_index(x + i % 3 - 1, a.width, a.border);
        const int yy = conv_math::border_index(y + i / 3 - 1, a.height, a.border);
        if (xx >= 0 && yy >= 0)
          s += a.filter.k[i] * tex2D<unsigned char>(image, static_cast<float>(3 * xx + c) + 0.5f, static_cast<float>(yy) + 0.5f);
      }
      out[c] = conv_math::round_clamp(s, a.filter.divisor);
    }
  });
}

// Rung 3: four pixels a thread (the seed's §4): their 12 bytes read as three 32-bit words per row
// where rows start on 4 bytes, instead of 12 byte loads, and written back as three words; the
// pixels either side still byte by byte under the border rule. From here on the division by the
// divisor is a multiply-high by a magic number worked out on the host (conv_math::round_clamp's
// divider form), not the ~20 instructions of an integer division.
__global__ void four_pixels(ConvArgs a) {
  const bool words = (reinterpret_cast<std::uintptr_t>(a.in) | reinterpret_cast<std::uintptr_t>(a.out) | a.in_pitch | a.out_pitch) % 4 == 0;
  for_each_pixel(a, [&](int x, int y) {  // x: the run's number; its pixels start at 4x
    const int x0 = 4 * x;
    if (x0 >= a.width) return;
    const bool whole = words && x0 + 4 <= a.width;
    int p[3][18];  // per row: the left pixel, the four pixels, the right pixel, byte by byte
#pragma unroll
    for (int dy = 0; dy < 3; ++dy) {
      const int yy = conv_math::border_index(y + dy - 1, a.height, a.border);
      if (whole && yy >= 0) {
        const auto* row = reinterpret_cast<const unsigned*>(a.in + static_cast<std::size_t>(yy) * a.in_pitch + 3 * static_cast<std::size_t>(x0));
#pragma unroll
        for (int w = 0; w < 3; ++w) {
          const unsigned word = row[w];
#pragma unroll
          for (int b = 0; b < 4; ++b) p[dy][3 + 4 * w + b] = static_cast<int>((word >> (8 * b)) & 0xFFu);
        }
      } else {
#pragma unroll
        for (int q = 0; q < 12; ++q) p[dy][3 + q] = conv_device::neighbour(a, min(x0 + q / 3, a.width), y + dy - 1, q % 3);
      }
#pragma unroll
      for (int c = 0; c < 3; ++c) {
        p[dy][c] = conv_device::neighbour(a, x0 - 1, y + dy - 1, c);
        p[dy][15 + c] = conv_device::neighbour(a, min(x0 + 4, a.width), y + dy - 1, c);
      }
    }
    unsigned out[3] = {};
#pragma unroll
    for (int q = 0; q < 12; ++q) {  // output byte q: pixel x0 + q / 3, channel q % 3
      int s = 0;
#pragma unroll
      for (int i = 0; i < 9; ++i) s += a.filter.k[i] * p[i / 3][3 + q + 3 * (i % 3 - 1)];
      out[q / 4] |= static_cast<unsigned>(conv_math::round_clamp(s, a.filter.divisor, a.twice_divisor)) << (8 * (q % 4));
    }
    std::uint8_t* dst = a.out + static_cast<std::size_t>(y) * a.out_pitch + 3 * static_cast<std::size_t>(x0);
    if (whole) {
#pragma unroll
      for (int w = 0; w < 3; ++w) reinterpret_cast<unsigned*>(dst)[w] = out[w];
    } else {
      for (int q = 0; q < 3 * min(4, a.width - x0); ++q) dst[q] = static_cast<std::uint8_t>(out[q / 4] >> (8 * (q % 4)));
    }
  });
}

// Rung 5 (after the library's shared tile, rung 4): centre blocks apart from border blocks (the
// seed's §4). A block whose 34 × 10 neighbourhood lies inside the image loads it as 32-bit words
// with no border rule and no bounds check: 104 bytes a row from byte 3·x0 − 4, 26 words, on rows
// that start on 4 bytes. Only the blocks on the image's edges take the byte-by-byte path.
constexpr int kTileW = 32, kTileH = 8, kTileRowWords = 26;  // 3 · 34 = 102 bytes of halo, in 104

__global__ void __launch_bounds__(kTileW * kTileH) centre_blocks(ConvArgs a) {
  __shared__ unsigned tile[kTileH + 2][kTileRowWords];
  const auto* tile_bytes = reinterpret_cast<const std::uint8_t*>(tile);
  const int t = static_cast<int>(threadIdx.y * kTileW + threadIdx.x);
  const int x0 = static_cast<int>(blockIdx.x) * kTileW;
  const int tiles_y = (a.height + kTileH - 1) / kTileH;
  const bool words = (reinterpret_cast<std::uintptr_t>(a.in) | a.in_pitch) % 4 == 0;
  for_each_block_row(tiles_y, [&](int ty) {
    const int y0 = ty * kTileH;
    const bool centre = words && x0 >= 2 && x0 + kTileW + 2 <= a.width && y0 >= 1 && y0 + kTileH + 1 <= a.height;
    if (centre) {
      for (int e = t; e < (kTileH + 2) * kTileRowWords; e += kTileW * kTileH) {
        const int row = e / kTileRowWords, word = e % kTileRowWords;
        tile[row][word] = reinterpret_cast<const unsigned*>(a.in + static_cast<std::size_t>(y0 - 1 + row) * a.in_pitch + 3 * static_cast<std::size_t>(x0) - 4)[word];
      }
    } else {
      // Tile byte j + 1 is byte j of the neighbourhood (x0 − 1 … x0 + 32); byte 0 and 103 unused.
      for (int e = t; e < (kTileH + 2) * 3 * (kTileW + 2); e += kTileW * kTileH) {
        const int row = e / (3 * (kTileW + 2)), j = e % (3 * (kTileW + 2));
        reinterpret_cast<std::uint8_t*>(tile[row])[1 + j] =
            static_cast<std::uint8_t>(conv_device::neighbour(a, x0 - 1 + j / 3, y0 - 1 + row, j % 3));
      }
    }
    __syncthreads();
    const int x = x0 + static_cast<int>(threadIdx.x), y = y0 + static_cast<int>(threadIdx.y);
    if (x < a.width && y < a.height)
      conv_device::write_pixel(a, x, y, [&](int dy, int dx, int c) {
        return tile_bytes[(static_cast<int>(threadIdx.y) + dy) * 4 * kTileRowWords + 1 + 3 * (static_cast<int>(threadIdx.x) + dx) + c];
      });
    __syncthreads();
  });
}

}  // namespace gpulab::conv_ladder
