// The Ozaki scheme II on INT8 tensor cores (Ozaki, Uchino, Imamura 2025): the rung and the
// constants its error bound (sgemm_cpu.cpp) needs.
//
// Each row aᵢ of A is scaled by 2^sᵢ and each column bⱼ of B by 2^tⱼ so that its 2-norm is at most
// 2^Q, then rounded to integers â, b̂. Their exact integer product ĉᵢⱼ = Σₚ âᵢₚ·b̂ₚⱼ obeys
// |ĉᵢⱼ| ≤ ‖âᵢ‖·‖b̂ⱼ‖ < M/2 (Cauchy–Schwarz), M the product of N pairwise coprime moduli ≤ 256.
// For each modulus the residues of â and b̂ (int8, symmetric) are multiplied exactly by an INT8 GEMM
// (int32 sums, k in chunks that cannot overflow), and the Chinese remainder theorem rebuilds ĉᵢⱼ
// from its residues; cᵢⱼ ≈ 2^−(sᵢ+tⱼ)·ĉᵢⱼ. The only error is the rounding of â and b̂ (|δ| ≤ ½):
//     |ĉ·2^−(s+t) − aᵢ·bⱼ| ≤ ½·2^−sᵢ·Σₚ|bₚⱼ| + ½·2^−tⱼ·Σₚ|aᵢₚ| + ¾·k·2^−(sᵢ+tⱼ),
// with 2^−sᵢ < 2^(1−Q)·‖aᵢ‖ and 2^−tⱼ < 2^(1−Q)·‖bⱼ‖: relative to a row's (column's) norm, not to
// each element, so inputs whose rows span a wide exponent range lose digits (docs/sgemm.md).
#pragma once

#include "lib/host_device.hpp"
#include "sgemm/sgemm_args.hpp"
#include "sgemm/sgemm_paths.hpp"

#include <cuda_runtime.h>

#include <bit>
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace gpulab::sgemm_ozaki {

/// The moduli, pairwise coprime, each ≤ 256 so that a symmetric residue fits an int8; a rung takes
/// the first N. Their product M < 2^64: the reconstruction is exact in 64-bit integers.
inline constexpr int kMaxModuli = 8;
inline constexpr std::uint32_t kModulus[kMaxModuli] = {256, 255, 253, 251, 247, 241, 239, 233};

/// M for the first `moduli`; 0 where it would not fit 64 bits.
constexpr std::uint64_t modulus_product(int moduli) {
  std::uint64_t product = 1;
  for (int l = 0; l < moduli; ++l) {
    if (product > ~std::uint64_t{0} / kModulus[l]) return 0;
    product *= kModulus[l];
  }
  return product;
}
static_assert(modulus_product(kMaxModuli) != 0, "the reconstruction needs M < 2^64");
/// Q: the largest with 2·(2^Q)²·1.25 ≤ M, i.e. M ≥ 5·2^(2Q−1); the 1.25 leaves room for the rounding
/// of â and b̂ (‖â‖ ≤ 2^Q + √k/2) and for the norms' own rounding. Each modulus more adds 4 bits.
constexpr int norm_bits(int moduli) {
  int q = 1;
  while ((modulus_product(moduli) >> (2 * (q + 1) - 1)) >= 5) ++q;
  return q;
}
static_assert(norm_bits(8) == 31 && norm_bits(7) == 27, "rows and columns scaled to 2-norms of 2^31 (8 moduli), 2^27 (7)");

/// x mod m_L as an int8 in [−m/2, m/2) (m = 256: [−128, 127]), for an integer |x| ≤ 2^Q (Q =
/// norm_bits(N)): what the INT8 GEMM multiplies. One remainder by a constant: (x + C) mod m − h, with
/// h = ⌊m/2⌋ and C ≡ h (mod m), C > 2^Q so that x + C ≥ 0 (the residue kernels are bound by their
/// instructions: a plain x mod m, then the range's two corrections, cost twice as many). Q ≤ 30 (7
/// moduli): x + C fits 32 bits; else (8 moduli, Q = 31) x + C = hi·2^16 + lo, reduced in 32 bits.
template <int N, int L>
GPULAB_HOST_DEVICE constexpr std::int8_t symmetric_residue(std::int64_t x) {
  constexpr int kQ = norm_bits(N);
  constexpr std::uint32_t m = kModulus[L], half = m / 2;
  constexpr std::uint64_t kOffset = half + std::uint64_t{m} * ((std::uint64_t{1} << kQ) / m + 1);
  std::uint32_t r;
  if constexpr (kQ <= 30) {
    static_assert(kOffset + (std::uint64_t{1} << kQ) <= 0xffffffffu);
    r = (static_cast<std::uint32_t>(static_cast<std::int32_t>(x)) + static_cast<std::uint32_t>(kOffset)) % m;  // wraps to x + C
  } else {
    constexpr std::uint32_t two16 = (1u << 16) % m;
    const auto u = static_cast<std::uint64_t>(x + static_cast<std::int64_t>(kOffset));  // < 2^33
    r = (static_cast<std::uint32_t>(u >> 16) * two16 + static_cast<std::uint32_t>(u & 0xffffu)) % m;
  }
  return static_cast<std::int8_t>(static_cast<int>(r) - static_cast<int>(half));
}

/// An int32 sum of residue products mod m_L in [0, m), for |x| < 2^30 + 256 (cuBLAS's chunks of
/// kChunk, gpulab's products between reductions): x + C, C a multiple of m past that bound, lies in
/// [0, 2^32), and an unsigned remainder by a constant takes half the instructions of a signed one and
/// its correction (the products' epilogue leaves the tensor cores idle while it runs).
template <int L>
GPULAB_HOST_DEVICE constexpr std::uint32_t sum_residue(std::int32_t x) {
  constexpr std::uint32_t m = kModulus[L], offset = m * (((1u << 30) + 256) / m + 1);
  return (static_cast<std::uint32_t>(x) + offset) % m;
}

/// f(std::integral_constant<int, I>) for I = 0 … N − 1 in order: the moduli, their inverses and
/// offsets are compile-time constants in each call, so every `% m` is a multiply and a shift.
template <int N, int I = 0, class F>
GPULAB_HOST_DEVICE constexpr void each_index(F&& f) {
  if constexpr (I < N) {
    f(std::integral_constant<int, I>{});
    each_index<N, I + 1>(f);
  }
}

/// The shift of a row or column that holds an Inf or a NaN: its elements of C are NaN.
constexpr int kNotFinite = -(1 << 30);

/// The shift that scales a row (column) of 2-norm `norm` to at most 2^Q: Q − e, or Q − e + 1 where
/// norm = 2^(e−1) exactly. 0 for a zero row (its residues are all zero).
template <int N>
GPULAB_HOST_DEVICE inline int norm_shift(double sum_squares) {
  constexpr int kNormBits = norm_bits(N);
  if (!(sum_squares <= DBL_MAX)) return kNotFinite;  // Inf or NaN
  if (sum_squares == 0) return 0;
  const double norm = sqrt(sum_squares);
  int e = 0;
  const double f = frexp(norm, &e);  // norm = f·2^e, f in [0.5, 1)
  return kNormBits - e + (f == 0.5 ? 1 : 0);
}

// ---- the Chinese remainder theorem ---------------------------------------------------------------

/// 128-bit integers (an extension of GCC's and nvcc's) for the CRT's sum of 8 moduli.
__extension__ typedef unsigned __int128 Uint128;

/// a⁻¹ mod m (a and m coprime), by the extended Euclidean algorithm.
constexpr std::uint32_t inverse_mod(std::uint32_t a, std::uint32_t m) {
  std::int64_t t = 0, new_t = 1, r = m, new_r = a % m;
  while (new_r != 0) {
    const std::int64_t q = r / new_r;
    std::int64_t x = t - q * new_t;
    t = new_t, new_t = x;
    x = r - q * new_r;
    r = new_r, new_r = x;
  }
  return static_cast<std::uint32_t>(t < 0 ? t + m : t);
}
static_assert(inverse_mod(256, 255) * 256 % 255 == 1 && inverse_mod(251, 233) * 251 % 233 == 1);

/// The CRT weight of modulus l among the first N: W = M_l·(M_l⁻¹ mod m_l) mod M, M_l = M/m_l, so that
/// x ≡ Σ_l (x mod m_l)·W_l (mod M). (M_l·inverse mod M by repeated addition: M may exceed 2^63.)
constexpr std::uint64_t crt_weight(int n, int l) {
  const std::uint64_t product = modulus_product(n), others = product / kModulus[l];
  const std::uint32_t inverse = inverse_mod(static_cast<std::uint32_t>(others % kModulus[l]), kModulus[l]);
  std::uint64_t w = 0;
  for (std::uint32_t t = 0; t < inverse; ++t) w = w >= product - others ? w - (product - others) : w + others;
  return w;
}
static_assert(crt_weight(8, 0) % 256 == 1 && crt_weight(8, 3) % 251 == 1);
static_assert(crt_weight(7, 6) % 239 == 1 && crt_weight(7, 6) % 256 == 0);

/// ĉ from its residues rₗ: S = Σ rₗ·Wₗ < N·256·M, then S − q·M with the quotient q estimated in FP64
/// (at most one off, corrected), exact; symmetric: in (−M/2, M/2].
template <int N>
GPULAB_HOST_DEVICE inline double from_residues(const std::uint32_t (&r)[N]) {
  using u128 = Uint128;
  constexpr std::uint64_t kProduct = modulus_product(N);
  // Σ rₗ·Wₗ from the weights' 32-bit halves: rₗ < 256, so each half's sum stays below 2^43 in 64
  // bits (a 128-bit product a modulus cost twice the instructions).
  std::uint64_t sum_low = 0, sum_high = 0;
  each_index<N>([&](auto l) {
    constexpr std::uint64_t weight = crt_weight(N, l);
    sum_low += static_cast<std::uint64_t>(r[l]) * static_cast<std::uint32_t>(weight);
    sum_high += static_cast<std::uint64_t>(r[l]) * static_cast<std::uint32_t>(weight >> 32);
  });
  const double estimate = fma(static_cast<double>(sum_high), 0x1p32, static_cast<double>(sum_low));  // S to 53 bits
  constexpr double kInverse = 1.0 / static_cast<double>(kProduct);  // S/M < 2^11: q's estimate stays within one
  if constexpr (kProduct < (std::uint64_t{1} << 62)) {
    // 7 moduli (M < 2^56): q rounded to nearest by the FMA that adds 1.5·2^52 (q left in the low
    // bits); S − q·M then lies within 3M/2 < 2^63 even where q is one off, so its low 64 bits, taken
    // as signed, are it: no 128-bit arithmetic (the reconstruction is bound by its instructions).
    constexpr double kRound = 0x1.8p52;
    const auto quotient = static_cast<std::uint32_t>(std::bit_cast<std::uint64_t>(fma(estimate, kInverse, kRound)) -
                                                     std::bit_cast<std::uint64_t>(kRound));
    constexpr auto kHalf = static_cast<std::int64_t>(kProduct / 2), kSigned = static_cast<std::int64_t>(kProduct);
    auto x = static_cast<std::int64_t>(sum_low + (sum_high << 32) - quotient * kProduct);
    if (x > kHalf) x -= kSigned;
    else if (x <= -kHalf) x += kSigned;
    return static_cast<double>(x);
  } else {
    // 8 moduli (M ≈ 2^63.6): 3M/2 passes 2^64, so in 128 bits, from q rounded down.
    const u128 sum = (static_cast<u128>(sum_high) << 32) + sum_low;
    const auto quotient = static_cast<std::uint64_t>(estimate * kInverse);
    const u128 taken = static_cast<u128>(quotient) * kProduct;
    // The estimate may be one too many or too few: S − q·M then lies in (−M, 2M).
    std::uint64_t x = 0;
    if (taken > sum) x = static_cast<std::uint64_t>(kProduct - static_cast<std::uint64_t>(taken - sum));
    else {
      const u128 rest = sum - taken;
      x = static_cast<std::uint64_t>(rest >= kProduct ? rest - kProduct : rest);
    }
    return x > kProduct / 2 ? -static_cast<double>(kProduct - x) : static_cast<double>(x);
  }
}

// ---- the guard: fp32_tensor's bound, element by element -------------------------------------------

/// The scheme's bound (above) is relative to norms, so it can exceed fp32_tensor's, (γ(6k+4) +
/// 2^−20)·(|A|·|B|)ᵢⱼ, where a row's and a column's large elements miss each other (a = (2^30, 1, …),
/// b = (1, 2^30, …)ᵀ: c = 2^31 + …, the 1s round to 0, ĉ = 0). The guard proves the bound element by
/// element or hands the element on: one INT8 product more, of |A| and |B| rounded down to
/// `guard_levels` steps of a power of two a row (column) over a quarter of k, gives Lᵢⱼ ≤
/// (|A|·|B|)ᵢⱼ; an element whose scheme bound Eᵢⱼ (above, from each row's and column's Σ|x| and
/// shift) exceeds guard_bound(k)·Lᵢⱼ is computed again as an FP32 FMA chain, or, where such elements
/// lie in many of C's tiles, the whole product is 3xTF32's (sgemm_ozaki.cu).

/// The guard's product takes every kGuardStride-th p (p = 0, 4, 8, …): a sum over some of the p is
/// still a lower bound, at a quarter of an INT8 product's cost (a whole one cost 1.0–1.2 ms of the
/// scheme's 7.7 at 8192³, H200); inputs whose rows of A and columns of B meet mostly at other p
/// (sparse ones: A = I) fail the guard more often, and take FP32 or 3xTF32 there.
inline constexpr int kGuardStride = 4;

/// The steps of |x| in a row of the guard's product: ≤ 127 (int8) with levels²·k < 2^31, so that
/// its int32 sums never wrap.
constexpr int guard_levels(std::int64_t k) {
  int levels = 127;
  while (levels > 1 && static_cast<std::int64_t>(levels) * levels * k >= (std::int64_t{1} << 31)) --levels;
  return levels;
}
static_assert(guard_levels(8192) == 127 && guard_levels(1 << 20) == 45 && guard_levels(std::int64_t{1} << 40) == 1);

/// What E may reach: 6k·u + 2^−21 with u = 2^−24 leaves the final conversions (FP64 alpha and beta,
/// one FP32 rounding: < 2^−23 relative) room within γ(6k+4) + 2^−20.
GPULAB_HOST_DEVICE constexpr double guard_bound(int k) { return 6.0 * k * 0x1p-24 + 0x1p-21; }

/// x's leading zero bits (32 for 0).
GPULAB_HOST_DEVICE inline int leading_zeros(std::uint32_t x) {
#ifdef __CUDA_ARCH__
  return __clz(static_cast<int>(x));
#else
  return std::countl_zero(x);
#endif
}

/// A guard sum L ≥ 0 (int32) as a byte, rounded down: its bit length b (5 bits) and the 3 bits after
/// its leading one (m), (1 + m/8)·2^(b−1), within 1/8 below L (exact below 16); 0 for 0. Without a
/// branch: the products' epilogue codes 128 sums a thread, and branches there cost it registers.
GPULAB_HOST_DEVICE inline std::uint32_t encode_lower_bound(std::uint32_t sum) {
  const int zeros = leading_zeros(sum);
  return static_cast<std::uint32_t>(32 - zeros) << 3 | ((sum << (zeros & 31)) >> 28 & 7u);
}
/// The code's value, built as a float's bits: exponent b − 1, mantissa m/8.
GPULAB_HOST_DEVICE inline float decode_lower_bound(std::uint32_t code) {
  const std::uint32_t bits = ((code >> 3) + 126) << 23 | (code & 7u) << 20;
  return code == 0 ? 0.f : std::bit_cast<float>(bits);
}

/// The guard's step of a row (column) whose largest |x| is `max`: the least e with max ≤ levels·2^e
/// (0 for zeros, and where the row holds ±Inf or NaN: the guard fails there).
GPULAB_HOST_DEVICE inline int guard_step(float max, int levels) {
  if (max == 0 || !(max <= FLT_MAX)) return 0;
  int e = 0;
  const double f = frexp(static_cast<double>(max) / levels, &e);  // f·2^e, f in [0.5, 1)
  return f == 0.5 ? e - 1 : e;
}

/// What the guard knows of a row of A (a column of B), s its shift and e its guard step: the test's
/// terms divided by 2^e, so that it runs in FP32 (ldexp in FP64 cost the reconstruction a third of
/// its time): x = ½·2^−s/2^e, which lies near 2^−21 (within √k of it), and y = Σ|x|/2^e, within
/// [levels/2, k·levels]. A row of zeros has x = y = 0, one holding Inf or NaN x = NaN (guard_holds).
/// 16 bytes, loaded as one.
struct alignas(16) LineFacts {
  int shift;
  int step;          // e: the row's (column's) values in the guard's product are floor(|x|/2^e)
  float unit;        // x
  float magnitudes;  // y
};

/// A row's (column's) facts from its Σx², Σ|x| and largest |x| (levels: guard_levels(k)).
template <int N>
GPULAB_HOST_DEVICE inline LineFacts line_facts(double squares, double magnitudes, float max, int levels) {
  const int shift = norm_shift<N>(squares);
  if (shift == kNotFinite) return {shift, 0, NAN, 0.f};
  if (max == 0) return {shift, 0, 0.f, 0.f};
  const int step = guard_step(max, levels);
  return {shift, step, static_cast<float>(ldexp(1.0, -shift - 1 - step)), static_cast<float>(ldexp(magnitudes, -step))};
}

/// Whether fp32_tensor's bound holds for element (i, j) as the scheme gives it: E ≤ guard_bound(k)·L,
/// both divided by 2^(e+e′) (L from its guard code). Without a branch: a row or column that is not
/// finite makes E NaN, and the test fails; one of zeros (the other finite) makes E = 0, and it holds
/// (ĉ = 0 is exact).
GPULAB_HOST_DEVICE inline bool guard_holds(const LineFacts& row, const LineFacts& col, std::uint32_t code, int k) {
  // E = ½·2^−s·Σ|b| + ½·2^−t·Σ|a| + ¾·k·2^−(s+t) (above), and ¾·k·2^−(s+t) = 3k·(½·2^−s)·(½·2^−t)
  const float e = row.unit * col.magnitudes + col.unit * row.magnitudes + 3.f * static_cast<float>(k) * row.unit * col.unit;
  // (1 + 2^−16): the facts' and this test's own roundings (a few of 2^−24 each)
  return e * (1 + 0x1p-16f) <= static_cast<float>(guard_bound(k)) * decode_lower_bound(code);
}

/// k in chunks of this depth where the products are int32 sums to memory: |Σ residue·residue| ≤
/// 2^16·2^14 = 2^30, so they never wrap.
inline constexpr int kChunk = 1 << 16;

/// The residue planes as an INT8 GEMM of cuBLAS's form takes them: for each chunk c of k,
/// products[(c·moduli + l)·m·n + i·n + j] = Σₚ a[l][i][p]·b[l][j][p] over the chunk's p, int32.
struct ChunkOperands {
  const std::int8_t* a;  // `moduli` planes m × depth, k contiguous
  const std::int8_t* b;  // `moduli` planes n × depth (B transposed), k contiguous
  int m, n, moduli, chunks;
  std::size_t depth;
  std::int32_t* products;
};
/// Who multiplies them that way (the lab's cuBLAS INT8 GEMM: libgpulab does not link cuBLAS).
using ChunkGemm = void (*)(const ChunkOperands&, cudaStream_t);

/// C = alpha·A·B + beta·C by the scheme above with `moduli` (7 or 8) INT8 products: `chunk_gemm`'s,
/// or gpulab's own on Hopper (wgmma_products) where it is null; residues, products and shifts in
/// gpulab's scratch pool (throws OutOfMemoryError where it cannot hold them).
void product(const sgemm_device::GemmArgs& g, cudaStream_t stream, int moduli, ChunkGemm chunk_gemm);

/// The lab's rungs: the products by cuBLAS's INT8 GEMM (sgemm_ozaki_cublas.cpp) or gpulab's own.
enum class Products { cublas, wgmma };
void run(const sgemm_device::GemmArgs& g, cudaStream_t stream, int moduli, Products products = Products::cublas);

/// fp32_tensor by the scheme on gpulab's own products, 7 moduli and the guard (operands in any form,
/// read in place; no copies of C; Hopper), with FP32 FMA chains or 3xTF32 where the guard fails: false, with
/// nothing enqueued, where gpulab's pool cannot hold the scheme's scratch. Each element within
/// (γ(6k+4) + 2^−20)·(|alpha|·|A|·|B| + |beta|·|C|).
bool guarded_product(const sgemm_device::GemmArgs& g, cudaStream_t stream);

/// The guard's operands: A's and B̂ᵀ's levels at every kGuardStride-th p, m × depth and n × depth
/// int8 (k of each row used, depth a multiple of 16).
struct GuardOperands {
  const std::int8_t* a = nullptr;
  const std::int8_t* b = nullptr;
  int k = 0;
  std::size_t depth = 0;
};

/// residues[l·m·ld + i·ld + j] = (Σₚ a[l][i][p]·b[l][j][p]) mod mₗ in [0, mₗ) for each of `moduli`
/// moduli (0 for n ≤ j < ld): a's planes m × depth int8 and b's n × depth (K-major, k of each row
/// used, depth and ld multiples of 16). gpulab's INT8 GEMM on wgmma (sgemm_ozaki_products.cu),
/// for Hopper alone: the caller checks sgemm_detail::wgmma_supported() before any work. `gate`:
/// the products run only where it is open (sgemm_paths.hpp).
void wgmma_products(int moduli, const std::int8_t* a, const std::int8_t* b, int m, int n, int k, std::size_t depth,
                    std::uint8_t* residues, std::size_t ld, cudaStream_t stream, sgemm_detail::DeviceGate gate = {});
/// The guard's product alone, on the same kernel: codes[i·ld + j] = encode_lower_bound(Σ levels·levels).
void wgmma_guard_product(const GuardOperands& guard, int m, int n, std::uint8_t* codes, std::size_t ld, cudaStream_t stream);

}  // namespace gpulab::sgemm_ozaki
