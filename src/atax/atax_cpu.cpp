#include "atax/atax_cpu.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>

namespace gpulab {

AtaxReference atax_reference(const AtaxInput& in) {
  const std::size_t rows = in.shape.rows, cols = in.shape.cols;
  AtaxReference r;
  r.t.assign(rows, 0.0);
  std::vector<double> s(rows, 0.0);
  auto t0 = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < rows; ++i) {
    const float* a = in.a.data() + i * cols;
    double t = 0.0, abs = 0.0;
    for (std::size_t j = 0; j < cols; ++j) {
      t += static_cast<double>(a[j]) * in.x[j];
      abs += std::fabs(static_cast<double>(a[j]) * in.x[j]);
    }
    r.t[i] = t;
    s[i] = abs;
  }
  auto t1 = std::chrono::steady_clock::now();
  r.y.assign(cols, 0.0);
  r.abs_t.assign(cols, 0.0);
  r.abs_s.assign(cols, 0.0);
  for (std::size_t i = 0; i < rows; ++i) {  // row by row: A is read in its storage order
    const float* a = in.a.data() + i * cols;
    for (std::size_t j = 0; j < cols; ++j) {
      const double aij = a[j];
      r.y[j] += aij * r.t[i];
      r.abs_t[j] += std::fabs(aij * r.t[i]);
      r.abs_s[j] += std::fabs(aij) * s[i];
    }
  }
  auto t2 = std::chrono::steady_clock::now();
  r.step1_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  r.step2_ms = std::chrono::duration<double, std::milli>(t2 - t1).count();
  return r;
}

AtaxCheck check_atax(std::span<const float> y, const AtaxReference& ref, std::size_t depth_t, std::size_t depth_y) {
  AtaxCheck c;
  if (y.size() != ref.y.size()) {
    c.result.detail = fmt::format("{} values, expected {}", y.size(), ref.y.size());
    c.mismatches = std::max(y.size(), ref.y.size());
    return c;
  }
  const double u = unit_roundoff<float>();
  auto gamma = [u](std::size_t k) { return static_cast<double>(k) * u / (1.0 - static_cast<double>(k) * u); };
  const double gt = gamma(depth_t), gy = gamma(depth_y);
  double worst_ratio = -1.0;
  for (std::size_t j = 0; j < y.size(); ++j) {
    // + 2^-50·|y|: the double reference's own rounding, far below float's.
    const double tol = gy * ref.abs_t[j] + (1 + gy) * gt * ref.abs_s[j] + 0x1p-50 * ref.abs_t[j];
    const double err = std::fabs(static_cast<double>(y[j]) - ref.y[j]);
    const bool bad = !std::isfinite(y[j]) || err > tol;
    c.mismatches += bad;
    const double ratio = !std::isfinite(y[j]) ? INFINITY : (tol > 0 ? err / tol : (err > 0 ? INFINITY : 0.0));
    if (ratio > worst_ratio) {
      worst_ratio = ratio;
      c.worst_column = j;
      c.result.error = std::isfinite(y[j]) ? err : INFINITY;
      c.result.tolerance = tol;
    }
  }
  c.result.ok = c.mismatches == 0;
  if (!c.result.ok)
    c.result.detail = fmt::format("{} of {} values out of tolerance; worst y[{}] = {} vs {:.9g} (error {:.3g}, tolerance {:.3g})",
                                  c.mismatches, y.size(), c.worst_column, y[c.worst_column], ref.y[c.worst_column],
                                  c.result.error, c.result.tolerance);
  return c;
}

std::vector<float> atax_openmp(const AtaxInput& in) {
  const std::int64_t rows = in.shape.rows;
  const std::size_t cols = in.shape.cols;
  std::vector<float> t(static_cast<std::size_t>(rows));
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < rows; ++i) {
    const float* a = in.a.data() + static_cast<std::size_t>(i) * cols;
    float acc = 0.f;
    for (std::size_t j = 0; j < cols; ++j) acc += a[j] * in.x[j];
    t[static_cast<std::size_t>(i)] = acc;
  }
  const int threads = omp_get_max_threads();
  std::vector<float> partial(static_cast<std::size_t>(threads) * cols, 0.f);
#pragma omp parallel num_threads(threads)
  {
    float* mine = partial.data() + static_cast<std::size_t>(omp_get_thread_num()) * cols;
#pragma omp for schedule(static)
    for (std::int64_t i = 0; i < rows; ++i) {
      const float* a = in.a.data() + static_cast<std::size_t>(i) * cols;
      const float ti = t[static_cast<std::size_t>(i)];
      for (std::size_t j = 0; j < cols; ++j) mine[j] += a[j] * ti;
    }
  }
  std::vector<float> y(cols, 0.f);
  for (int k = 0; k < threads; ++k)
    for (std::size_t j = 0; j < cols; ++j) y[j] += partial[static_cast<std::size_t>(k) * cols + j];
  return y;
}

}  // namespace gpulab
