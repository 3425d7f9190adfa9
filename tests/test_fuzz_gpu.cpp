// The fuzz run through the C++ API (python/tests/fuzz.py is its Python side): every
// library function in turn with random sizes (0, 1, odd), pitches and leading dimensions (padding
// filled with NaN, which must stay unread and untouched), alpha/beta, precisions and values (unit,
// integers, tiny, subnormal, huge, rows and elements powers of two apart, zeros, NaN and ±Inf),
// each result against a CPU reference in double (or exact) with the function's documented bound.
// GPULAB_FUZZ_CALLS sets the number of calls (default 3000), GPULAB_FUZZ_SEED the seed.
#include "gpu_test_support.hpp"

#include "conv/conv_cpu.hpp"
#include "histogram/histogram_cpu.hpp"

#include <gpulab/atax.hpp>
#include <gpulab/conv.hpp>
#include <gpulab/device_buffer.hpp>
#include <gpulab/histogram.hpp>
#include <gpulab/matrix.hpp>
#include <gpulab/reduce.hpp>
#include <gpulab/scan.hpp>
#include <gpulab/sgemm.hpp>

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace gpulab;

namespace {

constexpr double kTiny32 = 0x1p-149;  // FP32's smallest subnormal: each operation in its range may add half of it

double gamma(double k, double u) { return k * u / (1 - k * u); }

class Fuzz {
 public:
  explicit Fuzz(std::uint64_t seed) : rng_(seed) {}

  std::size_t failures = 0;
  std::vector<std::string> examples;

  int uniform_int(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng_); }

  /// A size: mostly small and awkward, sometimes 0 or 1.
  std::size_t side(int small) {
    const double r = uniform(0, 1);
    return r < 0.05 ? 0 : r < 0.15 ? 1 : static_cast<std::size_t>(uniform_int(2, small));
  }

  /// n integers of T over its whole range.
  template <class T>
  std::vector<T> integers(std::size_t n) {
    std::vector<T> v(n);
    for (T& x : v) x = static_cast<T>(uniform_int(std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
    return v;
  }

  /// rows × cols values of T in a kind picked at random (rows: the unit of the "rows" kind).
  template <class T>
  std::vector<T> values(std::size_t rows, std::size_t cols) {
    const int kind = uniform_int(0, 9);
    const bool wide = sizeof(T) == 8;
    std::vector<T> v(rows * cols);
    for (std::size_t i = 0; i < rows; ++i) {
      const double row_scale = std::ldexp(1.0, uniform_int(-60, 60));
      for (std::size_t j = 0; j < cols; ++j) {
        double x = uniform(-1, 1);
        switch (kind) {
          case 1: x = std::round(x * 8); break;
          case 2: x = std::ldexp(x, wide ? -900 : -100); break;
          case 3: x = std::ldexp(x, wide ? -1060 : -135); break;
          case 4: x = std::ldexp(x, wide ? 900 : 100); break;
          case 5: x *= row_scale; break;
          case 6: x = std::ldexp(x, uniform_int(-30, 30)); break;
          case 7: x = uniform(0, 1) < 0.02 ? x : 0.0; break;
          default: break;
        }
        v[i * cols + j] = static_cast<T>(x);
      }
    }
    if (kind == 8 && !v.empty())
      for (int s = uniform_int(1, 3); s > 0; --s) {
        const double specials[3] = {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                                    -std::numeric_limits<double>::infinity()};
        v[static_cast<std::size_t>(uniform_int(0, static_cast<int>(v.size()) - 1))] = static_cast<T>(specials[uniform_int(0, 2)]);
      }
    return v;
  }

  void fail(const std::string& what) {
    if (failures++ < 20) examples.push_back(what);
  }

  /// got against the double reference: NaN for NaN, the same infinity for an infinity, within
  /// bound + slack where finite; any value where the terms' magnitude reaches half T's range.
  template <class T>
  void expect_close(T got, double ref, double bound, double slack, double magnitude, const std::string& what) {
    const double g = static_cast<double>(got);
    bool ok;
    if (std::isnan(ref)) ok = std::isnan(g);
    else if (std::isinf(ref)) ok = g == ref;
    else if (!(magnitude < static_cast<double>(std::numeric_limits<T>::max()) / 2)) ok = true;
    else ok = std::isfinite(g) && std::fabs(g - ref) <= bound + slack;
    if (!ok) fail(fmt::format("{}: got {}, reference {}, bound {:.3g}", what, g, ref, bound + slack));
  }

  template <class T>
  void sum() {
    const std::size_t n = side(5000);
    std::vector<T> x;
    if constexpr (std::is_integral_v<T>) x = integers<T>(n);
    else x = values<T>(1, n);
    const auto d = test::upload<T>(x);
    DeviceBuffer<T> out(1);
    const std::size_t temp_bytes = reduce_sum_temp_bytes<T>(n);
    DeviceBuffer<std::byte> temp(temp_bytes);
    GPULAB_CUDA_CHECK(cudaMemset(temp.data(), 0, temp_bytes));
    reduce_sum(d.data(), n, out.data(), temp.data(), temp_bytes);
    const T got = test::download(out.data(), 1)[0];
    if constexpr (std::is_integral_v<T>) {
      std::uint32_t wrapped = 0;
      for (T v : x) wrapped += static_cast<std::uint32_t>(v);
      if (got != static_cast<std::int32_t>(wrapped)) fail(fmt::format("reduce_sum<int32> of {}: got {}, want {}", n, got, static_cast<std::int32_t>(wrapped)));
      return;
    }
    double ref = 0, magnitude = 0;
    for (T v : x) ref += static_cast<double>(v), magnitude += std::fabs(static_cast<double>(v));
    const double u = std::numeric_limits<T>::epsilon() / 2;
    expect_close(got, ref, gamma(static_cast<double>(reduce_sum_accumulation_depth<T>(n)), u) * magnitude + gamma(static_cast<double>(n), 0x1p-53) * magnitude, 0,
                 magnitude, fmt::format("reduce_sum<{}> of {}", sizeof(T), n));
  }

  template <class In>
  void scan() {
    const std::size_t n = side(5000);
    std::vector<In> x;
    if constexpr (std::is_integral_v<In>) x = integers<In>(n);
    else x = values<In>(1, n);
    using Out = scan_result_t<In>;
    const bool inclusive = uniform(0, 1) < 0.5;
    const auto d = test::upload<In>(x);
    DeviceBuffer<Out> out(std::max<std::size_t>(n, 1));
    const std::size_t temp_bytes = scan_temp_bytes<In>(n);
    DeviceBuffer<std::byte> temp(temp_bytes);
    GPULAB_CUDA_CHECK(cudaMemset(temp.data(), 0, temp_bytes));
    // (qualified: std::byte's namespace brings <numeric>'s scans in by argument-dependent lookup)
    if (inclusive) gpulab::inclusive_scan(d.data(), out.data(), n, temp.data(), temp_bytes);
    else gpulab::exclusive_scan(d.data(), out.data(), n, temp.data(), temp_bytes);
    const std::vector<Out> got = test::download(out.data(), n);
    std::uint32_t wrapped = 0;
    double ref = 0, magnitude = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::string what = fmt::format("{}clusive scan of {} ({}-byte input), element {}", inclusive ? "in" : "ex", n, sizeof(In), i);
      if (inclusive) wrapped += static_cast<std::uint32_t>(static_cast<std::int64_t>(x[i])), ref += static_cast<double>(x[i]),
                     magnitude += std::fabs(static_cast<double>(x[i]));
      if constexpr (std::is_integral_v<In>) {
        if (got[i] != static_cast<std::int32_t>(wrapped)) {
          fail(fmt::format("{}: got {}, want {}", what, got[i], static_cast<std::int32_t>(wrapped)));
          return;
        }
      } else {
        const double u = std::numeric_limits<Out>::epsilon() / 2;
        const std::size_t before = failures;
        expect_close(got[i], ref, gamma(static_cast<double>(scan_accumulation_depth<In>(i)), u) * magnitude + gamma(static_cast<double>(i + 1), 0x1p-53) * magnitude,
                     0, magnitude, what);
        if (failures != before) return;
      }
      if (!inclusive) wrapped += static_cast<std::uint32_t>(static_cast<std::int64_t>(x[i])), ref += static_cast<double>(x[i]),
                      magnitude += std::fabs(static_cast<double>(x[i]));
    }
  }

  void histogram_call() {
    const std::size_t n = side(5000);
    const int choices[] = {1, 2, 3, 7, 256, 1000, 4096, 65537, 1 << 20};
    const auto m = static_cast<std::uint32_t>(uniform(0, 1) < 0.2 ? uniform_int(1, 1 << 18) : choices[uniform_int(0, 8)]);
    std::vector<std::int32_t> v = integers<std::int32_t>(n);
    if (uniform(0, 1) < 0.5)
      for (auto& x : v) x %= 101;  // narrow: -100..100
    const auto d = test::upload<std::int32_t>(v);
    DeviceBuffer<std::uint32_t> counts(m);
    histogram(d.data(), n, m, counts.data());
    if (test::download(counts.data(), m) != histogram_reference(v, m)) fail(fmt::format("histogram of {} values in {} bins", n, m));
  }

  /// A rows × cols matrix with `pad` NaN floats after each row, on the device, and its view.
  struct Matrix {
    std::vector<float> host;  // with the padding
    DeviceBuffer<float> device;
    std::size_t rows, cols, ld;
    MatrixView<float> view() { return {device.data(), rows, cols, std::max<std::size_t>(ld, 1) * sizeof(float)}; }
  };
  Matrix matrix(std::size_t rows, std::size_t cols, const std::vector<float>& v) {
    const std::size_t ld = cols + (uniform(0, 1) < 0.4 ? static_cast<std::size_t>(uniform_int(1, 8)) : 0);
    std::vector<float> host(std::max<std::size_t>(rows * ld, 1), std::numeric_limits<float>::quiet_NaN());
    for (std::size_t i = 0; i < rows; ++i)
      for (std::size_t j = 0; j < cols; ++j) host[i * ld + j] = v[i * cols + j];
    return {host, test::upload<float>(host), rows, cols, ld};
  }
  /// The padding of `m` read back is still NaN.
  bool padding_kept(const Matrix& m) {
    const std::vector<float> back = test::download(m.device.data(), m.host.size());
    for (std::size_t i = 0; i < m.rows; ++i)
      for (std::size_t j = m.cols; j < m.ld; ++j)
        if (!std::isnan(back[i * m.ld + j])) return false;
    return true;
  }
  static float at(const std::vector<float>& h, const Matrix& m, std::size_t i, std::size_t j) { return h[i * m.ld + j]; }

  void transpose_call() {
    const std::size_t rows = side(96), cols = side(96);
    Matrix a = matrix(rows, cols, values<float>(rows, cols)), b = matrix(cols, rows, std::vector<float>(rows * cols, 0.f));
    transpose(MatrixView<const float>(a.view()), b.view());
    const std::vector<float> got = test::download(b.device.data(), b.host.size());
    for (std::size_t i = 0; i < rows; ++i)
      for (std::size_t j = 0; j < cols; ++j)
        if (std::bit_cast<std::uint32_t>(at(got, b, j, i)) != std::bit_cast<std::uint32_t>(at(a.host, a, i, j))) {
          fail(fmt::format("transpose {}x{} at ({}, {})", rows, cols, i, j));
          return;
        }
    if (!padding_kept(b)) fail(fmt::format("transpose {}x{} wrote padding", rows, cols));
  }

  void add_call() {
    const std::size_t rows = side(96), cols = side(96);
    const float alpha = static_cast<float>(uniform(-3, 3)), beta = uniform(0, 1) < 0.3 ? 0.f : static_cast<float>(uniform(-3, 3));
    Matrix a = matrix(rows, cols, values<float>(rows, cols)), b = matrix(rows, cols, values<float>(rows, cols));
    Matrix c = matrix(rows, cols, std::vector<float>(rows * cols, 0.f));
    add(alpha, MatrixView<const float>(a.view()), beta, MatrixView<const float>(b.view()), c.view());
    const std::vector<float> got = test::download(c.device.data(), c.host.size());
    for (std::size_t i = 0; i < rows; ++i)
      for (std::size_t j = 0; j < cols; ++j) {
        const double x = static_cast<double>(alpha) * at(a.host, a, i, j), y = static_cast<double>(beta) * at(b.host, b, i, j);
        const std::size_t before = failures;
        expect_close(at(got, c, i, j), x + y, 0x1p-24 * std::fabs(x) + 0x1p-23 * std::fabs(y), kTiny32, std::fabs(x) + std::fabs(y),
                     fmt::format("add {}x{} at ({}, {})", rows, cols, i, j));
        if (failures != before) return;
      }
    if (!padding_kept(c)) fail(fmt::format("add {}x{} wrote padding", rows, cols));
  }

  void zero_triangle_call() {
    const std::size_t rows = side(96), cols = side(96);
    Matrix m = matrix(rows, cols, values<float>(rows, cols));
    const bool upper = uniform(0, 1) < 0.5;
    zero_triangle(m.view(), upper ? Triangle::upper : Triangle::lower);
    const std::vector<float> got = test::download(m.device.data(), m.host.size());
    for (std::size_t i = 0; i < rows; ++i)
      for (std::size_t j = 0; j < cols; ++j) {
        const float want = (upper ? j > i : j < i) ? 0.f : at(m.host, m, i, j);
        if (std::bit_cast<std::uint32_t>(at(got, m, i, j)) != std::bit_cast<std::uint32_t>(want)) {
          fail(fmt::format("zero_triangle {}x{} at ({}, {})", rows, cols, i, j));
          return;
        }
      }
    if (!padding_kept(m)) fail(fmt::format("zero_triangle {}x{} wrote padding", rows, cols));
  }

  void sgemm_call() {
    std::size_t m = side(80), n = side(80), k = side(80);
    if (sgemm_calls_++ % 100 == 0) m = static_cast<std::size_t>(uniform_int(512, 640)), n = static_cast<std::size_t>(uniform_int(512, 640)), k = 4100;
    const SgemmPrecision precisions[3] = {SgemmPrecision::fp32, SgemmPrecision::fp32_tensor, SgemmPrecision::tf32};
    const SgemmPrecision precision = precisions[uniform_int(0, 2)];
    const float alphas[4] = {1.f, -0.5f, 0.f, 3.f}, betas[3] = {0.f, 1.f, -2.f};
    const float alpha = alphas[uniform_int(0, 3)], beta = betas[uniform_int(0, 2)];
    Matrix a = matrix(m, k, values<float>(m, k)), b = matrix(k, n, values<float>(k, n));
    std::vector<float> c0(m * n);
    for (float& v : c0) v = beta == 0.f ? std::numeric_limits<float>::quiet_NaN() : static_cast<float>(uniform_int(-4, 4));
    Matrix c = matrix(m, n, c0);
    if (!sgemm_precision_supported(precision)) {
      try {  // no TF32 tensor cores (sm_75): refused, but where m or n is 0 (nothing is checked then)
        sgemm(m, n, k, alpha, a.device.data(), a.ld, b.device.data(), b.ld, beta, c.device.data(), c.ld, nullptr, precision);
        if (m > 0 && n > 0) fail(fmt::format("sgemm {}x{}x{} tf32 ran without TF32 tensor cores", m, n, k));
      } catch (const Error&) {
        if (m == 0 || n == 0) fail(fmt::format("sgemm {}x{}x{} tf32 refused an empty product", m, n, k));
      }
      return;
    }
    sgemm(m, n, k, alpha, a.device.data(), a.ld, b.device.data(), b.ld, beta, c.device.data(), c.ld, nullptr, precision);
    const std::vector<float> got = test::download(c.device.data(), c.host.size());
    const double depth = static_cast<double>(k);
    const double unit = precision == SgemmPrecision::fp32          ? gamma(depth + 2, 0x1p-24)
                        : precision == SgemmPrecision::fp32_tensor ? gamma(6 * depth + 4, 0x1p-24) + 0x1p-20
                                                                   : gamma(2 * depth + 4, 0x1p-24) + 0x1p-10 + 0x1p-20;
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        double product = 0, magnitude = 0;
        if (alpha != 0.f)
          for (std::size_t p = 0; p < k; ++p) {
            const double x = at(a.host, a, i, p), y = at(b.host, b, p, j);
            product += x * y, magnitude += std::fabs(x) * std::fabs(y);
          }
        double ref = alpha != 0.f ? alpha * product : 0.0, scale = std::fabs(alpha) * magnitude;
        if (beta != 0.f) ref += static_cast<double>(beta) * c0[i * n + j], scale += std::fabs(static_cast<double>(beta) * c0[i * n + j]);
        const std::size_t before = failures;
        expect_close(at(got, c, i, j), ref, unit * scale, kTiny32 * (2 * depth + 8) * std::max(1.0, std::fabs(static_cast<double>(alpha))),
                     std::max(scale, alpha != 0.f ? magnitude : 0.0),
                     fmt::format("sgemm {}x{}x{} precision {} alpha {} beta {} at ({}, {})", m, n, k, static_cast<int>(precision), alpha, beta, i, j));
        if (failures != before) return;
      }
    if (!padding_kept(c)) fail(fmt::format("sgemm {}x{}x{} wrote padding", m, n, k));
  }

  void atax_call() {
    const auto rows = static_cast<std::uint32_t>(std::max<std::size_t>(side(200), 1)),
               cols = static_cast<std::uint32_t>(std::max<std::size_t>(side(300), 1));
    const std::vector<float> a = values<float>(rows, cols);
    std::vector<float> x(cols);
    for (float& v : x) v = static_cast<float>(uniform(-1, 1));
    const auto da = test::upload<float>(a), dx = test::upload<float>(x);
    DeviceBuffer<float> y(cols);
    const std::size_t temp_bytes = atax_temp_bytes(rows, cols);
    DeviceBuffer<std::byte> temp(std::max<std::size_t>(temp_bytes, 1));
    atax(da.data(), dx.data(), rows, cols, y.data(), temp.data(), temp_bytes);
    const std::vector<float> got = test::download(y.data(), cols);
    std::vector<double> t(rows), s(rows);
    for (std::size_t i = 0; i < rows; ++i)
      for (std::size_t j = 0; j < cols; ++j) t[i] += static_cast<double>(a[i * cols + j]) * x[j], s[i] += std::fabs(static_cast<double>(a[i * cols + j]) * x[j]);
    for (std::size_t j = 0; j < cols; ++j) {
      double ref = 0, bound_t = 0, bound_s = 0, column_abs = 0, magnitude = 0;
      for (std::size_t i = 0; i < rows; ++i) {
        const double aij = a[i * cols + j];
        ref += aij * t[i], bound_t += std::fabs(aij * t[i]), bound_s += std::fabs(aij) * s[i], column_abs += std::fabs(aij);
        magnitude += std::fabs(aij) * s[i] + (s[i] >= std::numeric_limits<float>::max() / 2 && aij != 0 ? 1e300 : 0.0);
      }
      const std::size_t before = failures;
      expect_close(got[j], ref, gamma(cols + 2, 0x1p-24) * bound_s * 2 + gamma(rows + 2, 0x1p-24) * bound_t,
                   kTiny32 * (cols * column_abs + rows + 4), magnitude, fmt::format("atax {}x{} at {}", rows, cols, j));
      if (failures != before) return;
    }
  }

  void conv_call() {
    const std::size_t w = std::max<std::size_t>(side(120), 1), h = std::max<std::size_t>(side(120), 1);
    const std::size_t pitch = 3 * w + (uniform(0, 1) < 0.4 ? static_cast<std::size_t>(uniform_int(1, 13)) : 0);
    RgbImage in = make_image(w, h, pitch);
    for (std::size_t y = 0; y < h; ++y)
      for (std::size_t x = 0; x < 3 * w; ++x) in.row(y)[x] = static_cast<std::uint8_t>(uniform_int(0, 255));
    Filter3x3 filter;
    for (int& k : filter.k) k = uniform_int(-16, 16);
    filter.divisor = uniform(0, 1) < 0.5 ? uniform_int(1, 300) : -uniform_int(1, 20);
    const Border borders[3] = {Border::replicate, Border::zero, Border::mirror};
    const Border border = borders[uniform_int(0, 2)];
    RgbImage want = make_image(w, h, pitch);
    conv_cpu(in, want, filter, border, false);
    const auto din = test::upload<std::uint8_t>(in.bytes);
    std::vector<std::uint8_t> poisoned(in.bytes.size(), 0xA5);
    auto dout = test::upload<std::uint8_t>(poisoned);
    conv3x3(din.data(), pitch, dout.data(), pitch, w, h, filter, border);
    const CheckResult r = check_image(test::download(dout.data(), poisoned.size()), pitch, want, 0xA5);
    if (!r.ok) fail(fmt::format("conv3x3 {}x{} pitch {}: {}", w, h, pitch, r.detail));
  }

  void call(std::size_t i) {
    switch (i % 14) {
      case 0: return sum<float>();
      case 1: return sum<double>();
      case 2: return sum<std::int32_t>();
      case 3: return scan<float>();
      case 4: return scan<double>();
      case 5: return scan<std::int8_t>();
      case 6: return scan<std::int32_t>();
      case 7: return histogram_call();
      case 8: return transpose_call();
      case 9: return add_call();
      case 10: return zero_triangle_call();
      case 11: return sgemm_call();
      case 12: return atax_call();
      default: return conv_call();
    }
  }

 private:
  std::mt19937_64 rng_;
  std::size_t sgemm_calls_ = 0;
};

std::size_t env_or(const char* name, std::size_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr ? static_cast<std::size_t>(std::strtoull(v, nullptr, 10)) : fallback;
}

}  // namespace

TEST(Fuzz, EveryLibraryFunctionAgainstItsCpuReference) {
  const std::size_t calls = env_or("GPULAB_FUZZ_CALLS", 3000);
  Fuzz fuzz(env_or("GPULAB_FUZZ_SEED", 61));
  for (std::size_t i = 0; i < calls; ++i) fuzz.call(i);
  for (const std::string& e : fuzz.examples) ADD_FAILURE() << e;
  EXPECT_EQ(fuzz.failures, 0u) << "of " << calls << " calls";
  RecordProperty("calls", static_cast<int>(calls));
}
