// The histogram's bin rule on the GPU: bin(v) = ((v % m) + m) % m for int32 v and 1 ≤ m < 2^32,
// without a hardware division. A division by a run-time m compiles to ~20 instructions on an
// SM (there is no integer divide unit); at 3 TB/s of int32 input the SM has ~35 integer
// instructions per element in all, so the division is done the way compilers do it for a
// constant divisor (Granlund & Montgomery 1994): one multiply-high, two shifts and two adds with a
// magic number computed once on the host. Host and device share this code, so the CPU tests
// check it against histogram_bin() over every edge case.
#pragma once

#include "lib/host_device.hpp"

#include <cstdint>

namespace gpulab {

class BinRule {
 public:
  /// m ≥ 1 (validate_histogram_shape refuses 0).
  constexpr explicit BinRule(std::uint32_t m) : m_(m) {
    unsigned log2_ceil = 0;
    while (log2_ceil < 32 && (std::uint64_t{1} << log2_ceil) < m) ++log2_ceil;
    // magic = floor(2^32 · (2^l − m) / m) + 1 < 2^32 + 1, and ≤ 2^32 − 1 for every m ≥ 1.
    magic_ = static_cast<std::uint32_t>((((std::uint64_t{1} << log2_ceil) - m) << 32) / m + 1);
    shift1_ = log2_ceil < 1 ? log2_ceil : 1;
    shift2_ = log2_ceil < 1 ? 0 : log2_ceil - 1;
  }

  GPULAB_HOST_DEVICE std::uint32_t bins() const { return m_; }

  /// u / m for every 32-bit u.
  GPULAB_HOST_DEVICE std::uint32_t divide(std::uint32_t u) const {
    const std::uint32_t t = mul_high(u, magic_);
    return (t + ((u - t) >> shift1_)) >> shift2_;
  }

  /// The bin of v: v ≥ 0 gives v mod m; v < 0 gives m − 1 − (~v mod m), since ~v = −(v + 1) ≥ 0
  /// and −(u + 1) ≡ m − 1 − (u mod m). Branch-free: sign is 0 or all ones.
  GPULAB_HOST_DEVICE std::uint32_t operator()(std::int32_t v) const {
    const std::uint32_t sign = static_cast<std::uint32_t>(v >> 31);
    const std::uint32_t u = static_cast<std::uint32_t>(v) ^ sign;
    const std::uint32_t r = u - divide(u) * m_;
    return (r ^ sign) + (m_ & sign);
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
