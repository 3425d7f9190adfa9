// The CPU side of the reduction: the serial reference every rung is checked against, the OpenMP
// baseline the GPU is compared with, and the check that applies SPEC.md's rules to a sum.
#pragma once

#include "core/check.hpp"

#include <cstddef>
#include <span>

namespace gpulab {

template <class T>
struct ReduceReference {
  T value{};             // the sum as the output type holds it (int32: wrapped modulo 2^32)
  double exact = 0.0;    // floats: the compensated double-precision sum
  double sum_abs = 0.0;  // Σ|xᵢ|, the scale of the float tolerance
};

/// Serial and simple: int32 in uint32 (wraps), floats with Neumaier-compensated double
/// accumulation (error ≈ 2^-53·|S| + n·2^-106·Σ|xᵢ|, far below any float32 or float64 tolerance).
template <class T>
ReduceReference<T> reduce_reference(std::span<const T> x);

/// The honest multi-threaded baseline: OpenMP reduction in T's own accumulator (the same
/// arithmetic the GPU does), vectorised.
template <class T>
T reduce_openmp(std::span<const T> x);

/// The depth of reduce_openmp for `threads` threads: each thread's chain, then up to `threads`
/// partials combined in an order the runtime chooses (bounded sequentially).
std::size_t reduce_openmp_depth(std::size_t n, std::size_t threads);

/// int32: same bits; floats: |got − exact| within the tolerance for `depth` (core/check.hpp).
template <class T>
CheckResult check_reduce(T got, const ReduceReference<T>& ref, std::size_t depth);

}  // namespace gpulab
