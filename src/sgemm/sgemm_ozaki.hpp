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

#include <cuda_runtime.h>

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

/// x mod m_L in [0, m_L) for an integer |x| ≤ 2^Q (Q = norm_bits(N)). Q ≤ 30 (7 moduli): x + 2^Q
/// fits 32 bits, one reduction; else (8 moduli, Q = 31) x + 2^31 = hi·2^16 + lo, both parts reduced
/// in 32 bits. Then 2^Q mod m_L taken back off.
template <int N, int L>
GPULAB_HOST_DEVICE constexpr std::uint32_t residue_of(std::int64_t x) {
  constexpr int kQ = norm_bits(N);
  constexpr std::uint32_t m = kModulus[L];
  constexpr std::uint32_t two16 = (1u << 16) % m, offset = (1u << kQ) % m;
  std::uint32_t r;
  if constexpr (kQ <= 30) {
    r = static_cast<std::uint32_t>(static_cast<std::int32_t>(x) + (std::int32_t{1} << kQ)) % m;  // [0, 2^(Q+1)]
  } else {
    const auto u = static_cast<std::uint64_t>(x + (std::int64_t{1} << kQ));  // [0, 2^32]
    r = (static_cast<std::uint32_t>(u >> 16) * two16 + static_cast<std::uint32_t>(u & 0xffffu)) % m;
  }
  const std::uint32_t v = r + m - offset;
  return v >= m ? v - m : v;
}
/// The same as an int8 in [−m/2, m/2) (m = 256: [−128, 127]): what the INT8 GEMM multiplies.
template <int N, int L>
GPULAB_HOST_DEVICE constexpr std::int8_t symmetric_residue(std::int64_t x) {
  constexpr int m = static_cast<int>(kModulus[L]);
  const int r = static_cast<int>(residue_of<N, L>(x));
  return static_cast<std::int8_t>(r >= (m + 1) / 2 ? r - m : r);
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

/// Who multiplies the residues: cuBLAS's INT8 GEMM (int32 sums of each chunk of k to memory, any GPU
/// with INT8 tensor cores) or gpulab's own on Hopper's wgmma (each modulus's sums mod m, a byte).
enum class Products { cublas, wgmma };

/// C = alpha·A·B + beta·C by the scheme above with `moduli` (7 or 8) INT8 products; residues,
/// products and shifts in gpulab's scratch pool (throws OutOfMemoryError where it cannot hold them).
void run(const sgemm_device::GemmArgs& g, cudaStream_t stream, int moduli, Products products = Products::cublas);

/// residues[l·m·ld + i·ld + j] = (Σₚ a[l][i][p]·b[l][j][p]) mod mₗ in [0, mₗ) for each of `moduli`
/// moduli (0 for n ≤ j < ld): a's planes m × depth int8 and b's n × depth (K-major, k of each row
/// used, depth and ld multiples of 16). gpulab's INT8 GEMM on wgmma (sgemm_ozaki_products.cu);
/// throws but on Hopper.
void wgmma_products(int moduli, const std::int8_t* a, const std::int8_t* b, int m, int n, int k, std::size_t depth,
                    std::uint8_t* residues, std::size_t ld, cudaStream_t stream);

}  // namespace gpulab::sgemm_ozaki
