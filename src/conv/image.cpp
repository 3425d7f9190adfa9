#include "conv/image.hpp"

#include "core/random.hpp"

#include <gpulab/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>

// The stb implementations, compiled once here (Debian's libstb-dev headers); their own code is
// not held to gpulab's warnings.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wsign-conversion"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wdouble-promotion"
#pragma GCC diagnostic ignored "-Wpedantic"
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#define STBI_ONLY_JPEG
#define STBI_ONLY_BMP
#define STBI_ONLY_PNM
#include <stb/stb_image.h>
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>
#pragma GCC diagnostic pop

namespace gpulab {

namespace {
constexpr std::size_t kMaxSide = 1u << 20;          // stb's own limit on a side
constexpr std::size_t kMaxPixels = std::size_t{1} << 31;  // 6 GiB of RGB
}  // namespace

RgbImage make_image(std::size_t width, std::size_t height, std::size_t pitch) {
  if (width == 0 || height == 0) throw Error(fmt::format("an image of {}x{} pixels has none", width, height));
  if (width > kMaxSide || height > kMaxSide || width * height > kMaxPixels)
    throw Error(fmt::format("an image of {}x{} pixels is larger than gpulab handles (sides up to 2^20, 2^31 pixels)", width,
                            height));
  RgbImage image;
  image.width = width, image.height = height;
  image.pitch = pitch == 0 ? 3 * width : pitch;
  if (image.pitch < 3 * width) throw Error(fmt::format("a pitch of {} bytes is less than a row of {} pixels", pitch, width));
  image.bytes.assign(image.pitch * height, 0);
  return image;
}

namespace {

/// For binary PGM/PPM (P5, P6): whether the file holds every pixel its header promises (stb_image
/// reads a truncated one without complaint, leaving the rest black).
bool pnm_complete(std::FILE* file, long file_size) {
  char magic[2] = {};
  if (std::fread(magic, 1, 2, file) != 2 || magic[0] != 'P' || (magic[1] != '5' && magic[1] != '6')) return true;
  long numbers[3] = {};
  int c = std::fgetc(file);
  for (long& number : numbers) {
    while (c == '#' || std::isspace(c)) {  // whitespace and comments
      if (c == '#')
        while (c != '\n' && c != EOF) c = std::fgetc(file);
      c = std::fgetc(file);
    }
    if (!std::isdigit(c)) return false;
    while (std::isdigit(c)) {
      number = number * 10 + (c - '0');
      if (number > (1L << 30)) return false;
      c = std::fgetc(file);
    }
  }
  // One whitespace character after the maximum value, then the pixels.
  const long header = std::ftell(file);
  const long channels = magic[1] == '6' ? 3 : 1, sample = numbers[2] > 255 ? 2 : 1;
  return file_size - header >= numbers[0] * numbers[1] * channels * sample;
}

}  // namespace

RgbImage load_image(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) throw Error(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  std::fseek(file, 0, SEEK_END);
  const long file_size = std::ftell(file);
  std::rewind(file);
  const bool complete = pnm_complete(file, file_size);
  std::rewind(file);
  if (!complete) {
    std::fclose(file);
    throw Error(fmt::format("{}: a PGM/PPM file shorter than its header says (truncated?)", path));
  }
  int width = 0, height = 0, channels = 0;
  if (stbi_info_from_file(file, &width, &height, &channels) == 0) {
    const std::string why = stbi_failure_reason() ? stbi_failure_reason() : "unknown";
    std::fclose(file);
    throw Error(fmt::format("{}: not an image gpulab reads (PNG, JPEG, BMP, PPM/PGM): {}", path, why));
  }
  RgbImage image = make_image(static_cast<std::size_t>(width), static_cast<std::size_t>(height));
  std::unique_ptr<stbi_uc, void (*)(void*)> pixels(stbi_load_from_file(file, &width, &height, &channels, 3), stbi_image_free);
  std::fclose(file);
  if (!pixels) throw Error(fmt::format("{}: cannot decode: {}", path, stbi_failure_reason() ? stbi_failure_reason() : "unknown"));
  std::memcpy(image.bytes.data(), pixels.get(), image.bytes.size());
  return image;
}

void save_image(const std::string& path, const RgbImage& image) {
  const bool ppm = path.size() >= 4 && path.compare(path.size() - 4, 4, ".ppm") == 0;
  if (ppm) {
    std::ofstream out(path, std::ios::binary);
    out << "P6\n" << image.width << " " << image.height << "\n255\n";
    for (std::size_t y = 0; y < image.height; ++y)
      out.write(reinterpret_cast<const char*>(image.row(y)), static_cast<std::streamsize>(3 * image.width));
    if (!out) throw Error(fmt::format("{}: cannot write", path));
    return;
  }
  if (stbi_write_png(path.c_str(), static_cast<int>(image.width), static_cast<int>(image.height), 3, image.bytes.data(),
                     static_cast<int>(image.pitch)) == 0)
    throw Error(fmt::format("{}: cannot write PNG", path));
}

RgbImage generate_image(std::size_t width, std::size_t height, std::uint64_t seed) {
  RgbImage image = make_image(width, height);
  const auto rows = static_cast<std::int64_t>(height);
#pragma omp parallel for schedule(static)
  for (std::int64_t yy = 0; yy < rows; ++yy) {
    const auto y = static_cast<std::size_t>(yy);
    std::uint8_t* row = image.row(y);
    for (std::size_t x = 0; x < width; ++x) {
      const std::uint64_t h = hash64(seed, y * width + x);
      const std::size_t base[3] = {255 * x / std::max<std::size_t>(width, 2), 255 * y / std::max<std::size_t>(height, 2),
                                   255 * (x + y) / std::max<std::size_t>(width + height, 2)};
      for (int c = 0; c < 3; ++c) {
        const int noise = static_cast<int>((h >> (8 * c)) & 63) - 32;  // ±32 around the gradient
        row[3 * x + c] = static_cast<std::uint8_t>(std::clamp(static_cast<int>(base[c]) + noise, 0, 255));
      }
    }
  }
  return image;
}

}  // namespace gpulab
