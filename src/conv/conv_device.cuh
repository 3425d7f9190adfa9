// What every conv kernel shares: a neighbour's byte under the border rule.
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

}  // namespace gpulab::conv_device
