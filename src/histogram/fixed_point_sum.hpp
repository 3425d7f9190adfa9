// Exact sums of floats as 128-bit integers (the weighted ladder's rung 3). A finite float is
// ±mant·2^q with mant an integer below 2^digits; where every weight's q is at least q_min, each is
// an integer number of 2^q_min, and n of them below 2^top sum to an integer of at most
// top − q_min + bit_width(n) + 1 bits (sign included). Where that is ≤ 128, integer additions give
// the sum exactly, in any order: the same bits whatever the schedule, the grid or the GPU, rounded
// once (to_double) at the end. Host and device share this code, so the CPU tests check it against
// the compiler's own 128-bit integers.
#pragma once

#include "lib/host_device.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

namespace gpulab::fixed_point {

/// A 128-bit two's complement integer.
struct Int128 {
  std::uint64_t lo = 0, hi = 0;
};

/// The bits of x (0 for 0).
GPULAB_HOST_DEVICE inline int bit_width(std::uint64_t x) {
#ifdef __CUDA_ARCH__
  return 64 - __clzll(static_cast<long long>(x));
#else
  return x == 0 ? 0 : 64 - __builtin_clzll(x);
#endif
}

/// The zero bits below x's lowest set bit (x ≠ 0).
GPULAB_HOST_DEVICE inline int trailing_zeros(std::uint64_t x) {
#ifdef __CUDA_ARCH__
  return __ffsll(static_cast<long long>(x)) - 1;
#else
  return __builtin_ctzll(x);
#endif
}

/// A finite w as ±mant·2^q, mant < 2^digits (0 for zero; subnormals at the lowest q).
struct Decomposed {
  std::uint64_t mant = 0;
  int q = 0;
  bool negative = false;
};

template <class W>
GPULAB_HOST_DEVICE Decomposed decompose(W w) {
  static_assert(std::numeric_limits<W>::is_iec559 && (sizeof(W) == 4 || sizeof(W) == 8));
  constexpr int kFraction = std::numeric_limits<W>::digits - 1;          // 23, 52
  constexpr int kBias = std::numeric_limits<W>::max_exponent - 1 + kFraction;  // 150, 1075
  std::uint64_t bits = 0;
  if constexpr (sizeof(W) == 4) {
    std::uint32_t b = 0;
    std::memcpy(&b, &w, sizeof b);
    bits = b;
  } else {
    std::memcpy(&bits, &w, sizeof bits);
  }
  constexpr int kExponentBits = sizeof(W) * 8 - 1 - kFraction;
  const auto exponent = static_cast<int>((bits >> kFraction) & ((1u << kExponentBits) - 1));
  const std::uint64_t fraction = bits & ((std::uint64_t{1} << kFraction) - 1);
  Decomposed d;
  d.negative = (bits >> (sizeof(W) * 8 - 1)) != 0;
  d.mant = exponent == 0 ? fraction : fraction | (std::uint64_t{1} << kFraction);
  d.q = (exponent == 0 ? 1 : exponent) - kBias;
  return d;
}

/// Where w's lowest set bit stands (w ≠ 0): w is an integer number of 2^lowest_bit, so that weights
/// on a coarse grid (3.5, 0.25) take only the bits they use, not their format's 24 or 53.
GPULAB_HOST_DEVICE inline int lowest_bit(const Decomposed& d) { return d.q + trailing_zeros(d.mant); }

/// |w| < 2^top_bit.
GPULAB_HOST_DEVICE inline int top_bit(const Decomposed& d) { return d.q + bit_width(d.mant); }

/// Bits the sum of n values of magnitude below 2^top in units of 2^q_min takes, sign included.
GPULAB_HOST_DEVICE inline int bits_needed(int q_min, int top, std::uint64_t n) { return top - q_min + bit_width(n) + 1; }

/// The span of a set of finite weights: q_min, the place of their lowest set bit, and top, the
/// top_bit of the largest (zeros add nothing).
struct Span {
  int q_min = std::numeric_limits<int>::max();
  int top = std::numeric_limits<int>::min();

  template <class W>
  GPULAB_HOST_DEVICE void add(W w) {
    if (w == W(0)) return;
    const Decomposed d = decompose(w);
    q_min = lowest_bit(d) < q_min ? lowest_bit(d) : q_min;
    top = top_bit(d) > top ? top_bit(d) : top;
  }
  /// Only zeros (or nothing) added.
  GPULAB_HOST_DEVICE bool empty() const { return top == std::numeric_limits<int>::min(); }
  /// Whether the sum of any n of the weights fits 128 bits in units of 2^q_min, sign included.
  GPULAB_HOST_DEVICE bool fits(std::uint64_t n) const { return empty() || bits_needed(q_min, top, n) <= 128; }
};

/// −x (mod 2^128): ~x + 1, the carry into hi where lo was 0.
GPULAB_HOST_DEVICE inline Int128 negate(Int128 x) {
  x.lo = ~x.lo + 1;
  x.hi = ~x.hi + (x.lo == 0 ? 1 : 0);
  return x;
}

/// |w| (finite, q_min ≤ lowest_bit, top_bit − q_min ≤ 126) as an integer number of 2^q_min.
template <class W>
GPULAB_HOST_DEVICE Int128 magnitude(W w, int q_min) {
  const Decomposed d = decompose(w);
  const int shift = d.q - q_min;
  Int128 x;
  if (shift < 0) {  // only zero bits shifted out: q_min ≤ lowest_bit
    x.lo = d.mant >> -shift;
    return x;
  }
  x.lo = shift < 64 ? d.mant << shift : 0;
  x.hi = shift == 0 ? 0 : shift < 64 ? d.mant >> (64 - shift) : d.mant << (shift - 64);
  return x;
}

/// w as an integer number of 2^q_min, two's complement (as magnitude()).
template <class W>
GPULAB_HOST_DEVICE Int128 to_fixed(W w, int q_min) {
  const Int128 x = magnitude(w, q_min);
  return decompose(w).negative ? negate(x) : x;
}

/// acc += x (mod 2^128).
GPULAB_HOST_DEVICE inline void add_into(Int128& acc, Int128 x) {
  const std::uint64_t lo = acc.lo + x.lo;
  acc.hi += x.hi + (lo < x.lo ? 1 : 0);
  acc.lo = lo;
}

/// The unsigned in limbs[0], limbs[stride], …, limbs[(count − 1)·stride] (the low 32 bits first)
/// += parts[0, part_count) placed from limb `first` up, by `add(p, v)`, which adds v to *p and
/// returns *p before (an atomicAdd: the sum comes out right whatever other threads add between the
/// limbs, each add's carry known from the value before it); the carries run up to the last limb.
/// Limbs with nothing to add are not touched: a float's 24-bit mantissa spans at most two limbs,
/// a carry now and then a third.
template <class Add>
GPULAB_HOST_DEVICE void add_parts(std::uint32_t* limbs, std::size_t stride, int count, int first, const std::uint32_t* parts,
                                  int part_count, Add&& add) {
  std::uint32_t carry = 0;
  for (int k = first; k < count; ++k) {
    const int j = k - first;
    if (j >= part_count && carry == 0) break;
    const std::uint32_t v = (j < part_count ? parts[j] : 0u) + carry;
    std::uint32_t next = v < carry ? 1u : 0u;  // the part + carry wrapped to 0
    if (v != 0) {
      const std::uint32_t before = add(limbs + k * stride, v);
      next += before + v < before ? 1u : 0u;
    }
    carry = next;
  }
}

/// The 128-bit unsigned in limbs[0], limbs[stride], limbs[2·stride], limbs[3·stride] += x (add_parts).
template <class Add>
GPULAB_HOST_DEVICE void add_to_limbs(std::uint32_t* limbs, Int128 x, Add&& add, std::size_t stride = 1) {
  const std::uint32_t part[4] = {static_cast<std::uint32_t>(x.lo), static_cast<std::uint32_t>(x.lo >> 32),
                                 static_cast<std::uint32_t>(x.hi), static_cast<std::uint32_t>(x.hi >> 32)};
  add_parts(limbs, stride, 4, 0, part, 4, add);
}

/// The 128-bit unsigned in limbs[0], limbs[stride], limbs[2·stride], limbs[3·stride].
GPULAB_HOST_DEVICE inline Int128 from_limbs(const std::uint32_t* limbs, std::size_t stride = 1) {
  return {limbs[0] | std::uint64_t{limbs[stride]} << 32, limbs[2 * stride] | std::uint64_t{limbs[3 * stride]} << 32};
}

/// x·2^q_min rounded to the nearest double (once, unless the result is below double's normal range);
/// with `to_odd`, rounded to 53 bits by rounding to odd instead (cut, then the last bit set where
/// anything was cut), for a float: rounding that double to float gives x·2^q_min rounded once
/// (53 ≥ 24 + 2), where the nearest double may fall on a float's midpoint and round it the wrong way.
GPULAB_HOST_DEVICE inline double to_double(Int128 x, int q_min, bool to_odd = false) {
  const bool negative = (x.hi >> 63) != 0;
  if (negative) x = negate(x);
  // The top 64 bits (times 2^s), the bits below them folded into the last one (round to odd), so
  // that one rounding to 53 bits is the rounding of the whole.
  std::uint64_t top = x.lo;
  int s = 0;
  bool sticky = false;
  if (x.hi != 0) {
    s = bit_width(x.hi);
    top = x.hi;
    sticky = x.lo != 0;
    if (s < 64) {
      top = (x.hi << (64 - s)) | (x.lo >> s);
      sticky = (x.lo << (64 - s)) != 0;
    }
  }
  if (to_odd && bit_width(top) > 53) {
    const int cut = bit_width(top) - 53;
    sticky = sticky || (top & ((std::uint64_t{1} << cut) - 1)) != 0;
    top >>= cut;
    s += cut;
  }
  const double d = ldexp(ldexp(static_cast<double>(top | (sticky ? 1u : 0u)), s), q_min);
  return negative ? -d : d;
}

/// Whether an exact sum rounded to W goes through to_double's round to odd (float) or not (double).
template <class W>
inline constexpr bool kRoundToOdd = sizeof(W) == sizeof(float);

// ---- float32: a superaccumulator -------------------------------------------------------------
// Every finite float32 is ±mant·2^(p − 149), mant < 2^24, p in [0, 253]: an integer number of 2^−149
// below 2^277. Ten 32-bit limbs (320 bits) hold the sum of any n < 2^32 of them exactly, so float32
// weights need no first pass to find their span and have no span past which they fail.
constexpr int kSuperLimbs = 10;
constexpr int kSuperUnit = -149;  // the limbs count units of 2^kSuperUnit

/// The superaccumulator whose limb k is limbs[k·stride] += |w| (w finite, float32), by add (add_parts).
template <class Add>
GPULAB_HOST_DEVICE void add_to_super(std::uint32_t* limbs, float w, Add&& add, std::size_t stride = 1) {
  const Decomposed d = decompose(w);
  if (d.mant == 0) return;
  const int p = d.q - kSuperUnit;
  const std::uint64_t x = d.mant << (p % 32);  // below 2^55: two limbs
  const std::uint32_t part[2] = {static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(x >> 32)};
  add_parts(limbs, stride, kSuperLimbs, p / 32, part, 2, add);
}

/// The two's complement integer limbs[0, kCount) (the low 32 bits first) times 2^unit, rounded to the
/// nearest double (to odd with `to_odd`, as to_double), once: the top three limbs below the highest
/// nonzero one with the rest folded into their last bit (round to odd, as to_double does below its
/// top 64 bits).
template <int kCount>
GPULAB_HOST_DEVICE double limbs_to_double(const std::uint32_t* limbs, int unit, bool to_odd = false) {
  static_assert(kCount >= 3);
  const bool is_negative = (limbs[kCount - 1] >> 31) != 0;
  std::uint32_t magnitude[kCount];
  std::uint32_t carry = 1;  // negation: ~limbs + 1
  for (int k = 0; k < kCount; ++k) {
    magnitude[k] = is_negative ? ~limbs[k] + carry : limbs[k];
    carry = carry != 0 && magnitude[k] == 0 ? 1u : 0u;
  }
  int top = kCount - 1;
  while (top > 0 && magnitude[top] == 0) --top;
  const int base = top < 2 ? 0 : top - 2;
  Int128 x{magnitude[base] | std::uint64_t{magnitude[base + 1]} << 32, magnitude[base + 2]};
  for (int k = 0; k < base; ++k)
    if (magnitude[k] != 0) x.lo |= 1;  // at least 65 bits above: a sticky bit, never a rounding of its own
  const double d = to_double(x, unit + 32 * base, to_odd);
  return is_negative ? -d : d;
}

/// positive − negative (two superaccumulators, limb k at [k·stride]) rounded to the nearest double
/// (to odd with `to_odd`), once (limbs_to_double).
GPULAB_HOST_DEVICE inline double super_to_double(const std::uint32_t* positive, const std::uint32_t* negative, std::size_t stride,
                                                 bool to_odd = false) {
  std::uint32_t diff[kSuperLimbs];
  std::uint32_t borrow = 0;
  for (int k = 0; k < kSuperLimbs; ++k) {
    const std::uint64_t t = std::uint64_t{positive[k * stride]} - negative[k * stride] - borrow;
    diff[k] = static_cast<std::uint32_t>(t);
    borrow = (t >> 32) != 0 ? 1u : 0u;
  }
  return limbs_to_double<kSuperLimbs>(diff, kSuperUnit, to_odd);  // |sum| < 2^309: the top limb holds its sign
}

/// Non-finite weights a bin saw, as flags (ORed together), and the sum IEEE addition then gives:
/// NaN for a NaN or for both infinities, else the infinity seen.
constexpr std::uint32_t kPlusInf = 1, kMinusInf = 2, kNaN = 4;
template <class W>
GPULAB_HOST_DEVICE std::uint32_t special_flag(W w) {
  return w != w ? kNaN : w > W(0) ? kPlusInf : kMinusInf;
}
template <class W = float>
GPULAB_HOST_DEVICE W special_sum(std::uint32_t flags) {
  if ((flags & kNaN) != 0 || flags == (kPlusInf | kMinusInf)) return std::numeric_limits<W>::quiet_NaN();
  return flags == kPlusInf ? std::numeric_limits<W>::infinity() : -std::numeric_limits<W>::infinity();
}

// ---- carry-save digits: float32 and float64 --------------------------------------------------
// The sum in units of a format's smallest subnormal (2^-149, 2^-1074) as signed counters, counter k
// weighing 2^(12k): a weight adds its 12-bit digits (float32 three, float64 six: its mantissa
// shifted by up to 11 bits) to as many counters and nothing else, no carry running from one counter
// into the next, so an adder needs no value back (a fire-and-forget atomic) and no order. A 32-bit
// counter stays exact for 2^19 additions (each below 2^12), a 64-bit one for 2^51; the carries are
// made once, at the end (digits_to_limbs).
constexpr int kDigitBits = 12;
constexpr std::uint32_t kDigitMask = (1u << kDigitBits) - 1;
constexpr std::size_t kDigitAddsIn32Bits = std::size_t{1} << (31 - kDigitBits);  // |2^19 · (2^12 − 1)| < 2^31

/// A format's digits: counters a bin (up to the top digit of its largest finite value), limbs of its
/// sums once carried (the counters' bits, then a limb for the last carry: any n < 2^32 of them), unit.
template <class W>
struct DigitFormat;
template <>
struct DigitFormat<float> {
  static constexpr int kParts = 3, kDigits = 24, kLimbs = 10, kUnit = -149;  // p ≤ 253: p / 12 + 2 ≤ 23
};
template <>
struct DigitFormat<double> {
  static constexpr int kParts = 6, kDigits = 176, kLimbs = 67, kUnit = -1074;  // p ≤ 2045: p / 12 + 5 ≤ 175
};
static_assert(kDigitBits * DigitFormat<float>::kDigits == 32 * (DigitFormat<float>::kLimbs - 1) && DigitFormat<float>::kLimbs == kSuperLimbs);
static_assert(kDigitBits * DigitFormat<double>::kDigits == 32 * (DigitFormat<double>::kLimbs - 1));

/// A finite weight w as digits: counter first + j gets digit[j]. The digits of w's signed mantissa
/// (shifted by s = p mod 12), floored: all but the last in [0, 2^12), the last carries the sign, so
/// that negating w costs one instruction, not one a digit.
template <int kParts>
struct Digits {
  int first = 0;
  std::int32_t digit[kParts] = {};
};

GPULAB_HOST_DEVICE inline Digits<3> to_digits(float w) {
  // In 32-bit integers (the GPU's own width): mant·2^s spans 35 bits, so each digit is cut from the
  // signed mantissa directly (arithmetic shifts floor).
  std::uint32_t bits = 0;
  std::memcpy(&bits, &w, sizeof bits);
  const std::uint32_t exponent = (bits >> 23) & 0xFF;
  const std::uint32_t mant = (bits & 0x7FFFFF) | (exponent != 0 ? 0x800000u : 0u);
  const auto signed_mant = static_cast<std::int32_t>((bits >> 31) != 0 ? 0u - mant : mant);
  const std::uint32_t p = exponent == 0 ? 0 : exponent - 1;  // mant's unit is 2^(p − 149)
  static_assert(kDigitBits == 12);
  const std::uint32_t first = (p * 0xAAABu) >> 19;  // p / 12 for p < 2^14 (0xAAAB / 2^19 exceeds 1/12 by < 2^-20)
  const auto s = static_cast<int>(p - first * kDigitBits);
  Digits<3> r;
  r.first = static_cast<int>(first);
  r.digit[0] = static_cast<std::int32_t>((static_cast<std::uint32_t>(signed_mant) << s) & kDigitMask);
  r.digit[1] = (signed_mant >> (kDigitBits - s)) & static_cast<std::int32_t>(kDigitMask);
  r.digit[2] = signed_mant >> (2 * kDigitBits - s);
  return r;
}

GPULAB_HOST_DEVICE inline Digits<6> to_digits(double w) {
  // mant·2^s spans 64 bits: the digits are cut from the signed 64-bit mantissa, the last by a shift
  // that keeps its sign (60 − s ≥ 49).
  std::uint64_t bits = 0;
  std::memcpy(&bits, &w, sizeof bits);
  const auto exponent = static_cast<std::uint32_t>((bits >> 52) & 0x7FF);
  const std::uint64_t mant = (bits & ((std::uint64_t{1} << 52) - 1)) | (exponent != 0 ? std::uint64_t{1} << 52 : 0);
  const auto signed_mant = static_cast<std::int64_t>((bits >> 63) != 0 ? 0 - mant : mant);
  const std::uint32_t p = exponent == 0 ? 0 : exponent - 1;  // mant's unit is 2^(p − 1074)
  const std::uint32_t first = (p * 0xAAABu) >> 19;          // p / 12 (p < 2^14)
  const auto s = static_cast<int>(p - first * kDigitBits);
  Digits<6> r;
  r.first = static_cast<int>(first);
  r.digit[0] = static_cast<std::int32_t>((static_cast<std::uint64_t>(signed_mant) << s) & kDigitMask);
  for (int j = 1; j < 5; ++j) r.digit[j] = static_cast<std::int32_t>((signed_mant >> (kDigitBits * j - s)) & kDigitMask);
  r.digit[5] = static_cast<std::int32_t>(signed_mant >> (5 * kDigitBits - s));
  return r;
}

/// The value of counters[k·stride], k < kCounters (counter k weighing 2^(12k)), as a two's
/// complement integer of kLimbs limbs (the low 32 bits first; limbs_to_double rounds it): the carries
/// made from the lowest digit up, the last carry in the top limb.
template <int kCounters, int kLimbs>
GPULAB_HOST_DEVICE void digits_to_limbs(const std::int64_t* counters, std::size_t stride, std::uint32_t* limbs) {
  static_assert(kDigitBits * kCounters == 32 * (kLimbs - 1));
  for (int l = 0; l < kLimbs; ++l) limbs[l] = 0;
  std::int64_t carry = 0;
  for (int k = 0; k < kCounters; ++k) {
    const std::int64_t t = counters[k * stride] + carry;
    const auto digit = static_cast<std::uint32_t>(t & kDigitMask);
    carry = t >> kDigitBits;  // the floor: t's digit is then never negative
    const int bit = kDigitBits * k;
    limbs[bit / 32] |= digit << (bit % 32);
    if (bit % 32 > 32 - kDigitBits) limbs[bit / 32 + 1] |= digit >> (32 - bit % 32);
  }
  limbs[kLimbs - 1] = static_cast<std::uint32_t>(carry);
}

/// A bin's counters (digits_to_limbs) as its sum rounded once to W (a float through round to odd).
template <class W>
GPULAB_HOST_DEVICE W round_digits(const std::int64_t* counters, std::size_t stride) {
  using F = DigitFormat<W>;
  std::uint32_t limbs[F::kLimbs];
  digits_to_limbs<F::kDigits, F::kLimbs>(counters, stride, limbs);
  return static_cast<W>(limbs_to_double<F::kLimbs>(limbs, F::kUnit, kRoundToOdd<W>));
}

}  // namespace gpulab::fixed_point
