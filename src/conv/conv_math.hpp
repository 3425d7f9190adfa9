// The conv arithmetic, one copy for the CPU reference and every kernel: where a neighbour outside
// the image comes from, and s / divisor rounded to nearest (ties away from zero) and clamped.
#pragma once

#include "lib/host_device.hpp"
#include "lib/unsigned_divider.hpp"

#include <gpulab/conv.hpp>

#include <cstdint>

namespace gpulab::conv_math {

/// Σ|k| over the nine weights: what bounds every sum (|s| ≤ 255 · Σ|k|).
inline long weight_magnitude(const Filter3x3& filter) {
  long weights = 0;
  for (int k : filter.k) weights += k < 0 ? -static_cast<long>(k) : k;
  return weights;
}

/// The index that stands for i in [−1, n] on a side of n pixels; −1 when the border rule gives 0.
GPULAB_HOST_DEVICE inline int border_index(int i, int n, Border border) {
  if (i >= 0 && i < n) return i;
  switch (border) {
    case Border::zero: return -1;
    case Border::mirror:
      if (n > 1) return i < 0 ? 1 : n - 2;  // reflect without repeating the edge
      return 0;
    case Border::replicate: break;
  }
  return i < 0 ? 0 : n - 1;
}

/// s / d rounded to nearest, ties away from zero, clamped to [0, 255] (d ≠ 0).
GPULAB_HOST_DEVICE inline std::uint8_t round_clamp(int s, int d) {
  const unsigned magnitude_s = s < 0 ? 0u - static_cast<unsigned>(s) : static_cast<unsigned>(s);
  const unsigned magnitude_d = d < 0 ? 0u - static_cast<unsigned>(d) : static_cast<unsigned>(d);
  const int q = static_cast<int>((2u * magnitude_s + magnitude_d) / (2u * magnitude_d));
  const int value = (s < 0) != (d < 0) ? -q : q;
  return static_cast<std::uint8_t>(value < 0 ? 0 : value > 255 ? 255 : value);
}

/// round_clamp with the division by 2|d| done by `twice_d` (UnsignedDivider(2|d|)): the kernels'
/// form, a multiply-high instead of an integer division for every byte. The same bytes.
GPULAB_HOST_DEVICE inline std::uint8_t round_clamp(int s, int d, const UnsignedDivider& twice_d) {
  const unsigned magnitude_s = s < 0 ? 0u - static_cast<unsigned>(s) : static_cast<unsigned>(s);
  const unsigned magnitude_d = twice_d.divisor() / 2;
  const int q = static_cast<int>(twice_d.divide(2u * magnitude_s + magnitude_d));
  const int value = (s < 0) != (d < 0) ? -q : q;
  return static_cast<std::uint8_t>(value < 0 ? 0 : value > 255 ? 255 : value);
}

/// The divider round_clamp(s, d, ·) takes.
inline UnsignedDivider twice_divisor(int d) {
  return UnsignedDivider(2u * (d < 0 ? 0u - static_cast<unsigned>(d) : static_cast<unsigned>(d)));
}

/// s / d truncated toward zero, clamped: what NPP's FilterBorder does (undocumented; measured:
/// docs/conv.md). Only the vendor row is checked against it.
GPULAB_HOST_DEVICE inline std::uint8_t truncate_clamp(int s, int d) {
  const int value = s / d;
  return static_cast<std::uint8_t>(value < 0 ? 0 : value > 255 ? 255 : value);
}

}  // namespace gpulab::conv_math
