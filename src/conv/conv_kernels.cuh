// The conv ladder's own kernels, read top to bottom; the library's kernel is in conv.cu.
#pragma once

#include "conv/conv_device.cuh"

namespace gpulab::conv_ladder {

using conv_device::ConvArgs;

// Rung 1, a thread per pixel (the seed's starting point): nine byte loads per channel, each through
// the border rule, 27 loads and bounds checks a pixel. blockIdx.y loops past 65535 rows of blocks.
__global__ void thread_per_pixel(ConvArgs a) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int rows = (a.height + static_cast<int>(blockDim.y) - 1) / static_cast<int>(blockDim.y);
  for (int by = static_cast<int>(blockIdx.y); by < rows; by += static_cast<int>(gridDim.y)) {
    const int y = by * static_cast<int>(blockDim.y) + static_cast<int>(threadIdx.y);
    if (x >= a.width || y >= a.height) continue;
    std::uint8_t* out = a.out + static_cast<std::size_t>(y) * a.out_pitch + 3 * static_cast<std::size_t>(x);
    for (int c = 0; c < 3; ++c) {
      int s = 0;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) s += a.filter.k[3 * (dy + 1) + (dx + 1)] * conv_device::neighbour(a, x + dx, y + dy, c);
      out[c] = conv_math::round_clamp(s, a.filter.divisor, a.twice_divisor);
    }
  }
}

}  // namespace gpulab::conv_ladder
