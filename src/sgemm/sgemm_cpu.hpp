// The SGEMM problem's CPU side: shapes as people write them, inputs with NaN padding, the
// double-precision reference and the checks every rung goes through (docs/sgemm.md says what
// each check can and cannot catch), and an OpenMP baseline.
//
// Error bound (Higham, ch. 3): for an FP32 rung whose every C element is a chain of k fused
// multiply-adds in some order, then c = fma(alpha, acc, beta·c),
//     |ĉᵢⱼ − cᵢⱼ| ≤ (γ(k + 2) + e_prod) · sᵢⱼ,   sᵢⱼ = |alpha|·Σₚ|aᵢₚ|·|bₚⱼ| + |beta|·|cᵢⱼ|,
// γ(j) = j·u/(1 − j·u), u = 2^-24, e_prod = 0. The tensor-core rungs: products of TF32 parts
// (e_prod = 2^-20 for 3xTF32's split, 2^-10 + 2^-20 for plain TF32's rounding of the inputs) summed
// by the tensor cores, whose additions may truncate (2u each), 3 partial products per k for
// 3xTF32: γ(6k + 4). The Ozaki scheme II adds a term of each row's and column's norms
// (sgemm_ozaki.hpp) to γ(2)·s. The check reports the worst and the median |ĉ − c| / s over the
// elements it sees, against the bound's factor: a componentwise relative error, comparable
// between rungs.
#pragma once

#include "core/check.hpp"
#include "sgemm/sgemm_ladder.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpulab {

struct SgemmShape {
  std::size_t m = 0, n = 0, k = 0;
  bool operator==(const SgemmShape&) const = default;
};

/// "MxNxK" ("5000x3000x700", "64x64x2^20") or one size for a cube ("4097"); each side a size as
/// parse_size reads it, m and n 1 to 2^31 − 1025, k 0 to 2^31 − 1025.
std::optional<SgemmShape> parse_sgemm_shape(std::string_view text);
std::string sgemm_shape_name(SgemmShape s);  // "5000x3000x700"

/// One problem instance: A (m × lda), B (k × ldb), C₀ (m × ldc) row-major, values uniform in
/// [-1, 1) from (seed, matrix, i, j); the padding past each row's end a NaN (all bits set), so
/// that a rung reading it, or writing C's, fails the check.
struct SgemmInput {
  SgemmShape shape;
  std::size_t lda = 0, ldb = 0, ldc = 0;
  float alpha = 1.f, beta = 0.f;
  int exponents = 0;  // A's and B's values scaled by 2^e, |e| ≤ exponents (make_sgemm_input)
  std::vector<float> a, b, c;  // c: C₀, read when beta ≠ 0; a and b end at their last element
};
/// `exponents` > 0 scales each value of A and B by 2^e, e uniform in [−exponents, exponents]: a wide
/// exponent range, where schemes that split values into parts lose digits.
SgemmInput make_sgemm_input(SgemmShape shape, std::size_t pad, float alpha, float beta, std::uint64_t seed,
                            int exponents = 0);

/// How A and B are stored (gpulab::Op): A as m × k or, a_transposed, k × m; B as k × n or n × k.
struct SgemmForm {
  bool a_transposed = false, b_transposed = false;
  bool operator==(const SgemmForm&) const = default;
};
/// "NN" (both as stored), "NT" (B stored transposed: x·wᵀ), "TN", "TT"; case-insensitive.
std::optional<SgemmForm> parse_sgemm_form(std::string_view text);
std::string sgemm_form_name(SgemmForm f);

/// A rows × cols row-major matrix (leading dimension ld) stored transposed: cols rows of `rows`
/// values, each followed by `pad` NaNs (all bits set), ending at its last element (as
/// make_sgemm_input lays out its operands).
std::vector<float> stored_transposed(std::span<const float> x, std::size_t rows, std::size_t cols, std::size_t ld, std::size_t pad);

/// An input's A and B as the device holds them in `form` (each stored transposed where the form
/// says, its rows padded as the input's are) and their leading dimensions.
struct SgemmStored {
  std::vector<float> a, b;
  std::size_t lda = 0, ldb = 0;
};
SgemmStored stored_operands(const SgemmInput& in, SgemmForm form);

/// The double-precision reference, on the elements the checks look at: every element for
/// products up to kFullReferenceMacs multiply-adds and kFullReferenceElements elements; otherwise whole rows and columns (the first
/// and last, the tile edges at 63/64/127/128 and random ones) plus the randomized products.
struct SgemmReference {
  static constexpr double kFullReferenceMacs = 2.2e9;
  static constexpr std::size_t kFullReferenceElements = std::size_t{1} << 24;
  std::vector<std::size_t> rows, cols;  // rows: every element of each; cols: every element of each
  std::vector<double> row_c, row_s;     // rows.size() × n: cᵢⱼ and sᵢⱼ (the bound's scale)
  std::vector<double> col_c, col_s;     // cols.size() × m
  // Randomized products (Freivalds): C·x (m values) and yᵀ·C (n values) in double, with their scales
  // Σⱼ sᵢⱼ·|xⱼ| and Σᵢ |yᵢ|·sᵢⱼ. Used when the rows above are not all of them.
  std::vector<double> x, cx, cx_s;
  std::vector<double> y, yc, yc_s;
  // Each row of A's and column of B's 2-norm and sum of magnitudes: the Ozaki scheme's bound is
  // relative to them (sgemm_ozaki.hpp).
  std::vector<double> a_norm, a_abs, b_norm, b_abs;
  bool full() const;
  std::size_t m = 0, n = 0;
};
/// `sampled`: rows, columns and randomized products even where every element is affordable (tests).
SgemmReference sgemm_reference(const SgemmInput& in, std::uint64_t seed, bool sampled = false);
/// Whether the reference of this shape holds every element.
bool sgemm_full_reference(SgemmShape s);

/// The bound's factor for a rung's arithmetic and depth k (see above).
double sgemm_error_factor(SgemmMath math, std::size_t k);

/// `c` (the output read back: m × ldc floats) against the reference: padding untouched (NaN bits),
/// every element finite, the sampled elements and the randomized products within the bound.
/// error/tolerance: the worst |ĉ − c| / s seen and the factor allowed. `extra_depth`: roundings
/// per term beyond the fused chain's (1 for a separate multiply and add).
CheckResult check_sgemm(std::span<const float> c, const SgemmInput& in, const SgemmReference& ref, SgemmMath math,
                        std::size_t extra_depth = 0);

/// OpenMP baseline: rows over threads, each row accumulated over k in float (no fused multiply-add
/// promised: checked with one rounding more per term).
std::vector<float> sgemm_openmp(const SgemmInput& in);

}  // namespace gpulab
