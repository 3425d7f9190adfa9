// What the conv kernels share: a neighbour's byte under the border rule, and a pixel written from
// its neighbourhood.
#pragma once

#include "conv/conv_args.hpp"
#include "conv/conv_math.hpp"

#include <gpulab/conv.hpp>

#include <cstddef>
#include <cstdint>

namespace gpulab::conv_device {

/// Channel c of pixel (x, y), x and y in [−1, width] × [−1, height], under the border rule.
__device__ __forceinline__ int neighbour(const ConvArgs& a, int x, int y, int c) {
  const int xx = conv_math::border_index(x, a.width, a.border), yy = conv_math::border_index(y, a.height, a.border);
  if (xx < 0 || yy < 0) return 0;
  return a.in[static_cast<std::size_t>(yy) * a.in_pitch + 3 * static_cast<std::size_t>(xx) + c];
}

/// Writes pixel (x, y) (inside the image) from its neighbourhood: `at(dy, dx, c)` is channel c of
/// the neighbour at (x + dx − 1, y + dy − 1), wherever a kernel keeps it (shared memory, registers).
template <class At>
__device__ __forceinline__ void write_pixel(const ConvArgs& a, int x, int y, At at) {
  std::uint8_t* out = a.out + static_cast<std::size_t>(y) * a.out_pitch + 3 * static_cast<std::size_t>(x);
  for (int c = 0; c < 3; ++c) {
    int s = 0;
#pragma unroll
    for (int dy = 0; dy < 3; ++dy)
#pragma unroll
      for (int dx = 0; dx < 3; ++dx) s += a.filter.k[3 * dy + dx] * static_cast<int>(at(dy, dx, c));
    out[c] = conv_math::round_clamp(s, a.filter.divisor, a.twice_divisor);
  }
}

}  // namespace gpulab::conv_device
