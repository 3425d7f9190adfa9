// The operands of one conv call as every kernel, launcher and ladder row takes them. Kernel
// parameters live in the constant bank, so every rung reads the filter from constant memory.
#pragma once

#include "lib/unsigned_divider.hpp"

#include <gpulab/conv.hpp>

#include <cstddef>
#include <cstdint>

namespace gpulab::conv_device {

/// in → out (width × height RGB pixels, rows a pitch apart), the filter, the border rule.
struct ConvArgs {
  const std::uint8_t* in = nullptr;
  std::size_t in_pitch = 0;
  std::uint8_t* out = nullptr;
  std::size_t out_pitch = 0;
  int width = 0, height = 0;
  Filter3x3 filter;
  Border border = Border::replicate;
  /// Divides by 2·|filter.divisor| (conv_math::twice_divisor): set with the filter.
  UnsignedDivider twice_divisor{2};
  /// The nine weights in device memory, last first (NPP's order): the vendor row's, and rung 1's
  /// global-memory filter. Null in library calls.
  const std::int32_t* weights_reversed = nullptr;
};

/// The arguments of one call, the divider worked out from the filter (one place, so that no
/// caller can leave it behind).
ConvArgs conv_args(const std::uint8_t* in, std::size_t in_pitch, std::uint8_t* out, std::size_t out_pitch, int width,
                   int height, const Filter3x3& filter, Border border);

}  // namespace gpulab::conv_device
