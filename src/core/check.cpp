#include "core/check.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

namespace gpulab {

double float_tolerance(std::size_t depth, double unit_roundoff, double sum_abs) {
  // Sums of zeros are exact at any depth (and ∞·0 below would be NaN, which nothing passes).
  if (sum_abs == 0.0) return 0.0;
  const double ku = static_cast<double>(depth) * unit_roundoff;
  // Past k·u ≥ 1 the bound says nothing; allow anything finite rather than divide by ≤ 0.
  const double gamma = ku < 1.0 ? ku / (1.0 - ku) : std::numeric_limits<double>::infinity();
  const double reference_error = 2.0 * std::ldexp(1.0, -53) * sum_abs;
  return gamma * sum_abs + reference_error;
}

CheckResult check_exact(std::int64_t got, std::int64_t ref) {
  CheckResult r;
  r.ok = got == ref;
  r.error = r.ok ? 0.0 : std::fabs(static_cast<double>(got) - static_cast<double>(ref));
  if (!r.ok) r.detail = fmt::format("got {}, expected {}", got, ref);
  return r;
}

CheckResult check_float(double got, double ref, double sum_abs, std::size_t depth,
                        double unit_roundoff) {
  CheckResult r;
  r.tolerance = float_tolerance(depth, unit_roundoff, sum_abs);
  if (!std::isfinite(got)) {
    r.error = std::numeric_limits<double>::infinity();
    r.detail = fmt::format("got {} (not finite), expected {:.17g}", got, ref);
    return r;
  }
  r.error = std::fabs(got - ref);
  r.ok = r.error <= r.tolerance;
  if (!r.ok)
    r.detail = fmt::format("got {:.17g}, expected {:.17g}: error {:.3g} > tolerance {:.3g} "
                           "(depth {})", got, ref, r.error, r.tolerance, depth);
  return r;
}

}  // namespace gpulab
