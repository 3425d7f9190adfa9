// The power-of-two scales of the tensor-core paths (mma.sync in sgemm_mma.cu, wgmma in
// sgemm_wgmma.cu). TF32 keeps FP32's exponent range but not its subnormal bits: a subnormal or tiny
// operand would lose the bits below TF32's grid in its small part (subnormal A times 2^100·B broke
// 3xTF32's bound 1.67×), and a huge one could overflow a partial sum. So rows of A and columns of B
// whose largest magnitude lies outside [2^−50, 2^51) are scaled by a power of two before the split,
// their largest brought into [1, 2), and each sum is scaled back in the epilogue. Rows or columns
// holding ±Inf or NaN keep their values unscaled and their elements of C are FMA chains in FP32
// (the split would make Inf − Inf = NaN of an infinite value's small part), so non-finite values
// propagate as in gpulab's FP32 path. find_operand_maxima (sgemm_paths.hpp) writes the maxima for
// mma.sync; wgmma's split finds them as it splits (sgemm_wgmma.cu).
#pragma once

#include "sgemm/sgemm_device.cuh"

namespace gpulab::sgemm_scales {

using sgemm_device::GemmArgs;

constexpr unsigned kNonFiniteBits = 0x7f800000u;  // |x|'s bits at or above these: ±Inf or NaN
// Rows and columns whose largest magnitude lies in [2^−50, 2^51) are left as they are: their TF32
// small parts (2^−11 of a value and less) and the products of two such values neither underflow
// nor overflow, so operands of ordinary magnitudes take no scaling (nor its cost in the epilogue).
constexpr unsigned kCommonLowBits = (127u - 50u) << 23, kCommonHighBits = (127u + 51u) << 23;

/// |x|'s bits: non-negative floats order as their bits, and NaN's lie above Inf's.
__device__ __forceinline__ unsigned magnitude_bits(float x) { return __float_as_uint(x) & 0x7fffffffu; }

/// The largest magnitudes of A's rows (m) and B's columns (n), as magnitude_bits.
struct Scales {
  const unsigned* a_rows;
  const unsigned* b_cols;
};

/// The exponent e that brings a row's (or column's) largest magnitude into [1, 2) by 2^−e; 0 for
/// rows of zeros, of common magnitudes, and holding ±Inf or NaN (left unscaled).
__device__ __forceinline__ int scale_exponent(unsigned max_bits) {
  const bool unscaled = max_bits == 0 || max_bits >= kNonFiniteBits || (max_bits >= kCommonLowBits && max_bits < kCommonHighBits);
  return unscaled ? 0 : ilogbf(__uint_as_float(max_bits));
}

/// scale_exponent, or kUnscaled for a row or column holding ±Inf or NaN: a sum of a row's and a
/// column's is above kUnscaled / 2 exactly when either holds one (exponents lie within ±149).
constexpr int kUnscaled = 1 << 12;
__device__ __forceinline__ int epilogue_exponent(unsigned max_bits) {
  return max_bits >= kNonFiniteBits ? kUnscaled : scale_exponent(max_bits);
}

/// x scaled by 2^−e (e = scale_exponent of its row or column), split: big = tf32(x), small =
/// tf32(x − big); a non-finite x is its own big part, with a small part of 0.
__device__ __forceinline__ void split_scaled(float x, int e, unsigned& big, unsigned& small) {
  big = __float_as_uint(x), small = 0;
  if (isfinite(x)) sgemm_device::split_tf32(e == 0 ? x : scalbnf(x, -e), big, small);
}

/// Element (i, j) of the operands' product over k_begin..k_end as an FP32 FMA chain (rows or
/// columns holding ±Inf or NaN, which are not scaled: rare, and it reads a row and a column).
__device__ __noinline__ inline float fma_chain(const GemmArgs& g, int i, int j, int k_begin, int k_end) {
  float acc = 0.f;
  for (int p = k_begin; p < k_end; ++p) acc = fmaf(sgemm_device::a_at(g, i, p), sgemm_device::b_at(g, p, j), acc);
  return acc;
}

/// A sum of the scaled operands back at its scale (`exponent`: its row's and column's
/// epilogue_exponent added), or the FMA chain where either holds ±Inf or NaN.
__device__ __forceinline__ float unscaled_sum(const GemmArgs& g, float sum, int exponent, int i, int j, int k_begin, int k_end) {
  if (exponent == 0) return sum;
  return exponent < kUnscaled / 2 ? scalbnf(sum, exponent) : fma_chain(g, i, j, k_begin, k_end);
}

}  // namespace gpulab::sgemm_scales
