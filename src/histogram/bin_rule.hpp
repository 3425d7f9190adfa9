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

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace gpulab {

// The rules the counting kernels take (histogram_path_kernels.cuh): BinRule below, the float forms'
// in bin_of_float.hpp. A rule has a Value type, bins(), a value's bin (given the value's index too
// where it wants it: a histogram per row), and where it reads tables (the edges), staged_bytes() of
// shared memory and staged(shared): the rule reading them from there.

/// Value v's bin under a rule, given v's index i where the rule wants it.
template <class Rule, class V>
GPULAB_HOST_DEVICE std::uint32_t bin_of(const Rule& rule, V v, std::size_t i) {
  if constexpr (std::is_invocable_v<const Rule&, V, std::size_t>) return rule(v, i);
  else return rule(v);
}

/// Bytes of shared memory a rule wants its tables in (0: none).
template <class Rule>
std::size_t staged_bytes(const Rule& rule) {
  if constexpr (requires { rule.staged_bytes(); }) return rule.staged_bytes();
  else return 0;
}

#ifdef __CUDACC__
/// The rule reading its tables from `shared` (staged_bytes() there), which the block's threads fill;
/// the block synchronises before the first use.
template <class Rule>
__device__ __forceinline__ Rule staged(const Rule& rule, void* shared) {
  if constexpr (requires { rule.staged(shared); }) return rule.staged(shared);
  else return rule;
}
#endif

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

/// BinRule for m a power of two: ((v % m) + m) % m is then v's low bits in two's complement, one AND
/// where BinRule's division takes about a dozen instructions.
class MaskBinRule {
 public:
  using Value = std::int32_t;

  /// m a power of two, 1 ≤ m ≤ 2^31.
  constexpr explicit MaskBinRule(std::uint32_t m) : mask_(m - 1) {}

  GPULAB_HOST_DEVICE std::uint32_t bins() const { return mask_ + 1; }
  GPULAB_HOST_DEVICE std::uint32_t operator()(std::int32_t v) const { return static_cast<std::uint32_t>(v) & mask_; }

 private:
  std::uint32_t mask_;
};

/// The bits a bin below m takes (at least one): the radix sorts' end bit, the ballots' width.
inline int bin_bits(std::uint32_t m) { return std::max(1, static_cast<int>(std::bit_width(m - 1))); }

}  // namespace gpulab
