// The library's host side of conv: the filters and borders known by name (gpulab/conv.hpp), shared
// by the CLI and the Python module, and the arguments of one call (conv_args.hpp), shared by the library and
// the ladder.
#include "conv/conv_args.hpp"
#include "conv/conv_math.hpp"

#include <gpulab/conv.hpp>

namespace gpulab {

namespace {
struct Named {
  std::string_view name;
  Filter3x3 filter;
};
constexpr Named kNamed[] = {
    {"box", {{1, 1, 1, 1, 1, 1, 1, 1, 1}, 9}},
    {"gaussian", {{1, 2, 1, 2, 4, 2, 1, 2, 1}, 16}},
    {"sharpen", {{0, -1, 0, -1, 5, -1, 0, -1, 0}, 1}},
    {"edge", {{-1, -1, -1, -1, 8, -1, -1, -1, -1}, 1}},
    {"emboss", {{-2, -1, 0, -1, 1, 1, 0, 1, 2}, 1}},
};
}  // namespace

std::optional<Filter3x3> named_filter(std::string_view name) {
  for (const Named& n : kNamed)
    if (name == n.name) return n.filter;
  return std::nullopt;
}

std::string_view named_filter_list() { return "box, gaussian, sharpen, edge, emboss"; }

std::optional<Border> parse_border(std::string_view text) {
  if (text == "replicate") return Border::replicate;
  if (text == "zero") return Border::zero;
  if (text == "mirror") return Border::mirror;
  return std::nullopt;
}

std::string_view border_name(Border b) {
  switch (b) {
    case Border::replicate: return "replicate";
    case Border::zero: return "zero";
    case Border::mirror: return "mirror";
  }
  return "?";
}

conv_device::ConvArgs conv_device::conv_args(const std::uint8_t* in, std::size_t in_pitch, std::uint8_t* out,
                                             std::size_t out_pitch, int width, int height, const Filter3x3& filter,
                                             Border border) {
  ConvArgs a;
  a.in = in, a.in_pitch = in_pitch, a.out = out, a.out_pitch = out_pitch;
  a.width = width, a.height = height;
  a.filter = filter, a.border = border;
  a.twice_divisor = conv_math::twice_divisor(filter.divisor);
  return a;
}

}  // namespace gpulab
