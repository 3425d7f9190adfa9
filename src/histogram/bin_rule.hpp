// The histogram's bin rule on the GPU: bin(v) = ((v % m) + m) % m for int32 v and 1 ≤ m < 2^32,
// without a hardware division. A division by a run-time m compiles to ~20 instructions on an
// SM (there is no integer divide unit); at 3 TB/s of int32 input the SM has ~35 integer
// instructions per element in all, so the division is done the way compilers do it for a
// constant divisor (Granlund & Montgomery 1994): one multiply-high, two shifts and two adds with a
// magic number computed once on the host. Host and device share this code, so the CPU tests
// check it against histogram_bin() over every edge case.
#pragma once

#include "lib/host_device.hpp"
#include "lib/unsigned_divider.hpp"

#include <cstdint>

namespace gpulab {

class BinRule {
 public:
  using Value = std::int32_t;

  /// m ≥ 1 (validate_histogram_shape refuses 0).
  constexpr explicit BinRule(std::uint32_t m) : divider_(m) {}

  GPULAB_HOST_DEVICE std::uint32_t bins() const { return divider_.divisor(); }

  /// u / m for every 32-bit u.
  GPULAB_HOST_DEVICE std::uint32_t divide(std::uint32_t u) const { return divider_.divide(u); }

  /// The bin of v: v ≥ 0 gives v mod m; v < 0 gives m − 1 − (~v mod m), since ~v = −(v + 1) ≥ 0
  /// and −(u + 1) ≡ m − 1 − (u mod m). Branch-free: sign is 0 or all ones.
  GPULAB_HOST_DEVICE std::uint32_t operator()(std::int32_t v) const {
    const std::uint32_t m = divider_.divisor();
    const std::uint32_t sign = static_cast<std::uint32_t>(v >> 31);
    const std::uint32_t u = static_cast<std::uint32_t>(v) ^ sign;
    const std::uint32_t r = u - divide(u) * m;
    return (r ^ sign) + (m & sign);
  }

 private:
  UnsignedDivider divider_;
};

}  // namespace gpulab
