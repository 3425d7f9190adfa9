// Checking a result against the CPU reference (SPEC.md, "Semantics every variant shares").
//
// Integers: the same bits, nothing less. Floats: |got − ref| ≤ γ_k · Σ|terms| + ref_err, where
//   u   = unit roundoff of the type (2^-24 for float, 2^-53 for double),
//   k   = the variant's accumulation depth: the longest chain of additions any one term goes
//         through (sequential adds within a thread + the levels of every tree) + 1 for the final
//         rounding to the output type,
//   γ_k = k·u / (1 − k·u), the classical bound for k rounded additions (Higham, ch. 4),
//   ref_err = 2·2^-53·Σ|terms|, what the double-precision compensated reference may be off by.
// NaN or Inf never passes. Nothing here is tuned to make a test pass: k comes from the variant.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

namespace gpulab {

struct CheckResult {
  bool ok = false;
  double error = 0.0;      // |got − ref| (0 for exact matches)
  double tolerance = 0.0;  // what was allowed (0 for integers)
  std::string detail;      // empty when ok; otherwise what went wrong, in words
  // The median of the same error over the elements checked, where a check measures one per element
  // (a matrix product's): the typical error beside the worst. NaN where not measured.
  double median_error = std::numeric_limits<double>::quiet_NaN();
};

/// γ_k·sum_abs + ref_err as above, for a type with unit roundoff `unit_roundoff`.
double float_tolerance(std::size_t depth, double unit_roundoff, double sum_abs);

CheckResult check_exact(std::int64_t got, std::int64_t ref);
CheckResult check_float(double got, double ref, double sum_abs, std::size_t depth,
                        double unit_roundoff);

/// Unit roundoff of T: half the distance from 1 to the next representable number.
template <class T>
constexpr double unit_roundoff() {
  if constexpr (sizeof(T) == 4) return 1.0 / 16777216.0;  // 2^-24
  else return 1.0 / 9007199254740992.0;                    // 2^-53
}

}  // namespace gpulab
