// The conv problem's CPU side: the serial reference, the OpenMP baseline, and the exact check.
#pragma once

#include "conv/image.hpp"
#include "core/check.hpp"

#include <gpulab/conv.hpp>

#include <cstddef>
#include <span>

namespace gpulab {

/// How s / divisor becomes an integer: gpulab's rule (to nearest, ties away from zero), or NPP's
/// (toward zero).
enum class Rounding { half_away_from_zero, toward_zero };

/// out = the filter applied to `in` (same size; out's pitch its own); `parallel`: rows over OpenMP.
void conv_cpu(const RgbImage& in, RgbImage& out, const Filter3x3& filter, Border border, bool parallel,
              Rounding rounding = Rounding::half_away_from_zero);

/// `got` (height rows `pitch` bytes apart) against `want`, byte for byte; the bytes past each
/// row's pixels must all be `padding` (untouched). The detail gives the number of differing bytes
/// and the first few as (x, y, channel, expected, got). `first_row`, `rows`: `got` holds only those
/// rows of `want` (a band of an image split over GPUs).
CheckResult check_image(std::span<const std::uint8_t> got, std::size_t pitch, const RgbImage& want, std::uint8_t padding,
                        std::size_t first_row = 0, std::size_t rows = static_cast<std::size_t>(-1));

}  // namespace gpulab
