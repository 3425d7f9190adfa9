// The CPU side of y = Aᵀ(A·x) (seed 004): the serial reference, the error bound every GPU result is
// checked against, and an OpenMP baseline.
#pragma once

#include "atax/atax_file.hpp"
#include "core/check.hpp"

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace gpulab {

/// t = A·x and y = Aᵀ·t accumulated in double, and per output the two sums the error bound
/// needs: abs_t[j] = Σᵢ |aᵢⱼ|·|tᵢ| and abs_s[j] = Σᵢ |aᵢⱼ|·sᵢ with sᵢ = Σⱼ' |aᵢⱼ'|·|xⱼ'|.
struct AtaxReference {
  std::vector<double> t, y, abs_t, abs_s;
  double step1_ms = 0.0, step2_ms = 0.0;  // serial times of A·x and Aᵀ·t (the seed's `check`)
};

AtaxReference atax_reference(const AtaxInput& in);

/// Float32 y passes at column j when |ŷⱼ − yⱼ| ≤ γ(k_y)·abs_t[j] + (1 + γ(k_y))·γ(k_t)·abs_s[j],
/// γ(k) = k·u/(1 − k·u), u = 2^-24: the classical bound for t̂ᵢ computed with k_t rounded
/// operations per term (products and additions) and ŷⱼ with k_y, in any order. For a variant
/// that does not say its depth, k_t = cols + 1 and k_y = rows + 1 hold for every summation order.
struct AtaxCheck {
  CheckResult result;             // ok, the worst error (and its tolerance), detail
  std::size_t mismatches = 0;     // columns over their tolerance (NaN/Inf included)
  std::size_t worst_column = 0;   // where error ÷ tolerance is largest
};
AtaxCheck check_atax(std::span<const float> y, const AtaxReference& ref, std::size_t depth_t, std::size_t depth_y);

/// OpenMP baseline: rows split over threads for t, then columns of each row's contribution
/// accumulated per thread and added (float, as the GPU computes).
std::vector<float> atax_openmp(const AtaxInput& in);

}  // namespace gpulab
