// Index arithmetic and the accumulator type the ladders and the library share, host and device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace gpulab {

constexpr std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }
constexpr std::size_t align_up(std::size_t x, std::size_t a) { return ceil_div(x, a) * a; }

/// The smallest k with 2^k ≥ x (the levels of a tree over x values).
constexpr std::size_t log2_ceil(std::size_t x) {
  std::size_t k = 0;
  while ((std::size_t{1} << k) < x) ++k;
  return k;
}

/// Sums of T accumulate in accum_t<T>: integers in their unsigned twin, so that overflow wraps with
/// defined behaviour (the bits equal a wrapping signed sum), floats in their own type.
template <class T>
using accum_t = typename std::conditional_t<std::is_integral_v<T>, std::make_unsigned<T>, std::type_identity<T>>::type;

}  // namespace gpulab
