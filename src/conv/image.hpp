// RGB images on the host: interleaved 8-bit RGB (3 bytes a pixel), rows `pitch` bytes apart, read
// from PNG, JPEG, BMP and PPM/PGM files with stb_image (grey expanded to RGB, alpha dropped) and
// written as PNG, or as PPM when the name ends in .ppm.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gpulab {

struct RgbImage {
  std::size_t width = 0, height = 0;
  std::size_t pitch = 0;  // bytes from one row to the next, ≥ 3·width
  std::vector<std::uint8_t> bytes;  // height · pitch
  std::uint8_t* row(std::size_t y) { return bytes.data() + y * pitch; }
  const std::uint8_t* row(std::size_t y) const { return bytes.data() + y * pitch; }
};

/// A width × height image with rows `pitch` bytes apart (0: packed, 3·width), padding bytes 0.
RgbImage make_image(std::size_t width, std::size_t height, std::size_t pitch = 0);

/// The image in `path`; throws gpulab::Error naming the file and what is wrong (missing, not an
/// image, a format stb_image cannot read, too large).
RgbImage load_image(const std::string& path);

/// Writes `image` to `path`: PPM (P6) when the name ends in .ppm, PNG otherwise; throws on failure.
void save_image(const std::string& path, const RgbImage& image);

/// A test image: smooth gradients with noise from (seed, x, y), packed.
RgbImage generate_image(std::size_t width, std::size_t height, std::uint64_t seed);

}  // namespace gpulab
