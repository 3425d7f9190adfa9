#include "conv/conv_cpu.hpp"

#include "conv/conv_args.hpp"
#include "conv/conv_math.hpp"

#include <gpulab/error.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace gpulab {

void conv_cpu(const RgbImage& in, RgbImage& out, const Filter3x3& filter, Border border, bool parallel, Rounding rounding) {
  if (out.width != in.width || out.height != in.height)
    throw Error(fmt::format("conv_cpu: a {}x{} output for a {}x{} input", out.width, out.height, in.width, in.height));
  const int w = static_cast<int>(in.width), h = static_cast<int>(in.height);
#pragma omp parallel for schedule(static) if (parallel)
  for (int y = 0; y < h; ++y) {
    std::uint8_t* dst = out.row(static_cast<std::size_t>(y));
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 3; ++c) {
        int s = 0;
        for (int dy = -1; dy <= 1; ++dy) {
          const int yy = conv_math::border_index(y + dy, h, border);
          for (int dx = -1; dx <= 1; ++dx) {
            const int xx = conv_math::border_index(x + dx, w, border);
            if (yy < 0 || xx < 0) continue;  // the zero border
            s += filter.k[3 * (dy + 1) + (dx + 1)] * in.row(static_cast<std::size_t>(yy))[3 * xx + c];
          }
        }
        dst[3 * x + c] = rounding == Rounding::toward_zero ? conv_math::truncate_clamp(s, filter.divisor)
                                                           : conv_math::round_clamp(s, filter.divisor);
      }
  }
}

CheckResult check_image(std::span<const std::uint8_t> got, std::size_t pitch, const RgbImage& want, std::uint8_t padding,
                        std::size_t first_row, std::size_t rows) {
  CheckResult r;
  rows = std::min(rows, want.height - std::min(first_row, want.height));
  if (got.size() < rows * pitch || pitch < 3 * want.width) {
    r.detail = fmt::format("{} bytes with a pitch of {}, expected {} rows of {} pixels", got.size(), pitch, rows, want.width);
    return r;
  }
  std::size_t differing = 0, padding_written = 0;
  std::string first;
  for (std::size_t y = 0; y < rows; ++y) {
    const std::uint8_t* g = got.data() + y * pitch;
    const std::uint8_t* w = want.row(first_row + y);
    for (std::size_t i = 0; i < 3 * want.width; ++i)
      if (g[i] != w[i] && differing++ < 5)
        first += fmt::format("{}(x {}, y {}, channel {}: expected {}, got {})", first.empty() ? "" : ", ", i / 3,
                             first_row + y, i % 3, w[i], g[i]);
    for (std::size_t i = 3 * want.width; i < pitch; ++i) padding_written += g[i] != padding;
  }
  r.ok = differing == 0 && padding_written == 0;
  r.error = static_cast<double>(differing);
  if (differing > 0) r.detail = fmt::format("{} bytes differ; the first: {}", differing, first);
  else if (padding_written > 0) r.detail = fmt::format("{} padding bytes were written", padding_written);
  return r;
}

}  // namespace gpulab
