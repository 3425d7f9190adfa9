// A 3×3 integer filter with a divisor, and the arithmetic every conv rung shares (SPEC.md):
// per channel s = Σ k[dy][dx]·p(x+dx, y+dy) in int32 (a correlation, as OpenCV's filter2D), the
// result s/divisor rounded to nearest with ties away from zero, clamped to [0, 255]; outside the
// image the border rule decides p.
#pragma once

#include <gpulab/conv.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace gpulab {

/// "sharpen", "box", "gaussian", "edge", "emboss", or nine integers with an optional divisor:
/// "-1,-1,-1,-1,8,-1,-1,-1,-1", "1,2,1,2,4,2,1,2,1/16". Throws gpulab::Error saying what is wrong
/// (not nine integers, a zero divisor, weights so large that a sum could overflow int32).
Filter3x3 parse_filter(std::string_view text);
/// "1,2,1,2,4,2,1,2,1/16".
std::string filter_text(const Filter3x3& f);


}  // namespace gpulab
