#include "reduce/reduce_cpu.hpp"

#include <cmath>
#include <cstdint>
#include <type_traits>

namespace gpulab {

template <class T>
ReduceReference<T> reduce_reference(std::span<const T> x) {
  ReduceReference<T> r;
  if constexpr (std::is_integral_v<T>) {
    std::uint32_t sum = 0;
    for (T v : x) sum += static_cast<std::uint32_t>(v);
    r.value = static_cast<T>(sum);
    r.exact = static_cast<double>(r.value);
  } else {
    double sum = 0.0, compensation = 0.0, sum_abs = 0.0;
    for (T v : x) {
      const double d = static_cast<double>(v);
      const double t = sum + d;
      // Neumaier: recover the low-order bits lost by whichever operand was smaller.
      compensation += std::fabs(sum) >= std::fabs(d) ? (sum - t) + d : (d - t) + sum;
      sum = t;
      sum_abs += std::fabs(d);
    }
    r.exact = sum + compensation;
    r.value = static_cast<T>(r.exact);
    r.sum_abs = sum_abs;
  }
  return r;
}

template <class T>
T reduce_openmp(std::span<const T> x) {
  using A = std::conditional_t<std::is_integral_v<T>, std::uint32_t, T>;
  const auto n = static_cast<std::int64_t>(x.size());
  const T* data = x.data();
  A sum = 0;
#pragma omp parallel for simd reduction(+ : sum) schedule(static)
  for (std::int64_t i = 0; i < n; ++i) sum += static_cast<A>(data[i]);
  return static_cast<T>(sum);
}

std::size_t reduce_openmp_depth(std::size_t n, std::size_t threads) {
  if (threads == 0) threads = 1;
  // simd splits a thread's chain into lanes, which only shortens it; the bound stays valid.
  return (n + threads - 1) / threads + threads + 1;
}

template <class T>
CheckResult check_reduce(T got, const ReduceReference<T>& ref, std::size_t depth) {
  if constexpr (std::is_integral_v<T>) {
    return check_exact(got, ref.value);
  } else {
    return check_float(static_cast<double>(got), ref.exact, ref.sum_abs, depth, unit_roundoff<T>());
  }
}

#define GPULAB_INSTANTIATE(T)                                                  \
  template ReduceReference<T> reduce_reference<T>(std::span<const T>);         \
  template T reduce_openmp<T>(std::span<const T>);                             \
  template CheckResult check_reduce<T>(T, const ReduceReference<T>&, std::size_t);
GPULAB_INSTANTIATE(std::int32_t)
GPULAB_INSTANTIATE(float)
GPULAB_INSTANTIATE(double)
#undef GPULAB_INSTANTIATE

}  // namespace gpulab
