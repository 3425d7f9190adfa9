// u / m for a run-time m without a hardware division (an SM has no integer divide unit: a
// division by a run-time value compiles to ~20 instructions): one multiply-high, two shifts and
// two adds with a magic number computed once on the host (Granlund & Montgomery 1994), as
// compilers do for a constant divisor. Host and device share it, so CPU tests can check it.
#pragma once

#include "lib/host_device.hpp"

#include <cstdint>

namespace gpulab {

class UnsignedDivider {
 public:
  /// m ≥ 1.
  constexpr explicit UnsignedDivider(std::uint32_t m = 1) : m_(m) {
    unsigned log2_ceil = 0;
    while (log2_ceil < 32 && (std::uint64_t{1} << log2_ceil) < m) ++log2_ceil;
    // magic = floor(2^32 · (2^l − m) / m) + 1 < 2^32 + 1, and ≤ 2^32 − 1 for every m ≥ 1.
    magic_ = static_cast<std::uint32_t>((((std::uint64_t{1} << log2_ceil) - m) << 32) / m + 1);
    shift1_ = log2_ceil < 1 ? log2_ceil : 1;
    shift2_ = log2_ceil < 1 ? 0 : log2_ceil - 1;
  }

  GPULAB_HOST_DEVICE std::uint32_t divisor() const { return m_; }

  /// u / m for every 32-bit u.
  GPULAB_HOST_DEVICE std::uint32_t divide(std::uint32_t u) const {
    const std::uint32_t t = mul_high(u, magic_);
    return (t + ((u - t) >> shift1_)) >> shift2_;
  }

 private:
  GPULAB_HOST_DEVICE static std::uint32_t mul_high(std::uint32_t a, std::uint32_t b) {
#if defined(__CUDA_ARCH__)
    return __umulhi(a, b);
#else
    return static_cast<std::uint32_t>((std::uint64_t{a} * b) >> 32);
#endif
  }

  std::uint32_t m_;
  std::uint32_t magic_ = 0;
  unsigned shift1_ = 0;
  unsigned shift2_ = 0;
};

}  // namespace gpulab
