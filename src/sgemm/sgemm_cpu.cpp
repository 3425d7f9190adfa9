#include "sgemm/sgemm_cpu.hpp"

#include "core/random.hpp"
#include "core/sizes.hpp"
#include "sgemm/sgemm_ozaki.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

namespace gpulab {

namespace {

constexpr std::size_t kMaxSide = (std::size_t{1} << 31) - 1025;  // gpulab::sgemm's limit
constexpr std::uint32_t kPaddingBits = 0xFFFFFFFFu;                // a NaN

/// rows × cols values of matrix `which` in rows `ld` apart, the padding NaN bits.
/// Values uniform in [−1, 1), each scaled by 2^e with e uniform in [−exponents, exponents].
std::vector<float> random_matrix(std::size_t rows, std::size_t cols, std::size_t ld, std::uint64_t seed, int exponents = 0) {
  std::vector<float> v(rows * ld, std::bit_cast<float>(kPaddingBits));
  const auto n = static_cast<std::int64_t>(rows);
  const auto span = static_cast<std::uint64_t>(2 * exponents + 1);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < cols; ++j) {
      const std::uint64_t h = hash64(seed, static_cast<std::size_t>(i) * cols + j);
      float x = uniform_float(h);
      if (exponents > 0) x = std::ldexp(x, static_cast<int>(hash64(h, 7) % span) - exponents);
      v[static_cast<std::size_t>(i) * ld + j] = x;
    }
  return v;
}

/// The rows (or columns) the sampled checks recompute: the edges, the tile edges, the middle and
/// eight chosen at random.
std::vector<std::size_t> sample_indices(std::size_t size, std::uint64_t seed) {
  std::vector<std::size_t> v;
  for (std::size_t i : {std::size_t{0}, std::size_t{1}, std::size_t{63}, std::size_t{64}, std::size_t{127},
                        std::size_t{128}, size / 2, size - 2, size - 1})
    if (i < size) v.push_back(i);
  for (std::uint64_t r = 0; r < 8; ++r) v.push_back(hash64(seed, r) % size);
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

/// This OpenMP thread's share [first, last) of `count` indices, in thread order.
std::pair<std::size_t, std::size_t> thread_share(std::size_t count) {
  const auto threads = static_cast<std::size_t>(omp_get_num_threads());
  const auto me = static_cast<std::size_t>(omp_get_thread_num());
  return {count * me / threads, count * (me + 1) / threads};
}

double gamma(double k) {
  const double ku = k * 0x1p-24;
  return ku < 1 ? ku / (1 - ku) : std::numeric_limits<double>::infinity();
}

}  // namespace

std::optional<SgemmShape> parse_sgemm_shape(std::string_view text) {
  std::vector<std::size_t> sides;
  while (true) {
    const auto x = text.find('x');
    const auto side = parse_size(text.substr(0, x));
    if (!side || *side > kMaxSide) return std::nullopt;
    sides.push_back(*side);
    if (x == std::string_view::npos) break;
    text.remove_prefix(x + 1);
  }
  if (sides.size() == 1) sides = {sides[0], sides[0], sides[0]};
  if (sides.size() != 3 || sides[0] < 1 || sides[1] < 1) return std::nullopt;
  return SgemmShape{sides[0], sides[1], sides[2]};
}

std::string sgemm_shape_name(SgemmShape s) { return fmt::format("{}x{}x{}", s.m, s.n, s.k); }

SgemmInput make_sgemm_input(SgemmShape shape, std::size_t pad, float alpha, float beta, std::uint64_t seed, int exponents) {
  SgemmInput in;
  in.shape = shape;
  in.lda = shape.k + pad, in.ldb = shape.n + pad, in.ldc = shape.n + pad;
  in.alpha = alpha, in.beta = beta, in.exponents = exponents;
  in.a = random_matrix(shape.m, shape.k, in.lda, hash64(seed, 1), exponents);
  in.b = random_matrix(shape.k, shape.n, in.ldb, hash64(seed, 2), exponents);
  // A and B end at their last element, as a caller's tightly sized allocation may (BLAS asks for
  // no padding after the last row): a kernel that addresses past it is then memcheck's finding.
  in.a.resize(shape.m == 0 ? 0 : (shape.m - 1) * in.lda + shape.k);
  in.b.resize(shape.k == 0 ? 0 : (shape.k - 1) * in.ldb + shape.n);
  in.c = random_matrix(shape.m, shape.n, in.ldc, hash64(seed, 3));
  return in;
}

std::optional<SgemmForm> parse_sgemm_form(std::string_view text) {
  if (text.size() != 2) return std::nullopt;
  auto side = [](char c) -> std::optional<bool> {
    if (c == 'N' || c == 'n') return false;
    if (c == 'T' || c == 't') return true;
    return std::nullopt;
  };
  const auto a = side(text[0]), b = side(text[1]);
  if (!a || !b) return std::nullopt;
  return SgemmForm{*a, *b};
}

std::string sgemm_form_name(SgemmForm f) { return std::string(f.a_transposed ? "T" : "N") + (f.b_transposed ? "T" : "N"); }

std::vector<float> stored_transposed(std::span<const float> x, std::size_t rows, std::size_t cols, std::size_t ld, std::size_t pad) {
  const std::size_t out_ld = rows + pad;
  std::vector<float> t(cols == 0 ? 0 : (cols - 1) * out_ld + rows, std::bit_cast<float>(~0u));
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j) t[j * out_ld + i] = x[i * ld + j];
  return t;
}

SgemmStored stored_operands(const SgemmInput& in, SgemmForm form) {
  const auto [m, n, k] = in.shape;
  const std::size_t pad_a = in.lda - k, pad_b = in.ldb - n;
  SgemmStored s;
  if (form.a_transposed) s.a = stored_transposed(in.a, m, k, in.lda, pad_a), s.lda = m + pad_a;
  else s.a = in.a, s.lda = in.lda;
  if (form.b_transposed) s.b = stored_transposed(in.b, k, n, in.ldb, pad_b), s.ldb = k + pad_b;
  else s.b = in.b, s.ldb = in.ldb;
  return s;
}

bool sgemm_full_reference(SgemmShape s) {
  return static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k) <= SgemmReference::kFullReferenceMacs &&
         s.m * s.n <= SgemmReference::kFullReferenceElements;
}

bool SgemmReference::full() const { return rows.size() == m; }

SgemmReference sgemm_reference(const SgemmInput& in, std::uint64_t seed, bool sampled) {
  const auto [m, n, k] = in.shape;
  SgemmReference r;
  r.m = m, r.n = n;
  const double alpha = in.alpha, beta = in.beta;
  const bool full = !sampled && sgemm_full_reference(in.shape);
  if (full) {
    r.rows.resize(m);
    for (std::size_t i = 0; i < m; ++i) r.rows[i] = i;
  } else {
    r.rows = sample_indices(m, hash64(seed, 11));
    r.cols = sample_indices(n, hash64(seed, 12));
  }
  const double c_weight = beta == 0 ? 0.0 : 1.0;  // beta = 0: C₀ not read (it may be anything)

  r.a_norm.assign(m, 0.0), r.a_abs.assign(m, 0.0), r.b_norm.assign(n, 0.0), r.b_abs.assign(n, 0.0);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t p = 0; p < k; ++p) {
      const double a = in.a[i * in.lda + p];
      r.a_norm[i] += a * a, r.a_abs[i] += std::fabs(a);
    }
  for (std::size_t p = 0; p < k; ++p)
    for (std::size_t j = 0; j < n; ++j) {
      const double b = in.b[p * in.ldb + j];
      r.b_norm[j] += b * b, r.b_abs[j] += std::fabs(b);
    }
  for (double& v : r.a_norm) v = std::sqrt(v);
  for (double& v : r.b_norm) v = std::sqrt(v);

  // Whole rows: cᵢ = alpha·Σₚ aᵢₚ·bₚ + beta·c₀ᵢ, row of B by row of B (storage order).
  r.row_c.assign(r.rows.size() * n, 0.0);
  r.row_s.assign(r.rows.size() * n, 0.0);
  const auto rows = static_cast<std::int64_t>(r.rows.size());
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t ri = 0; ri < rows; ++ri) {
    const std::size_t i = r.rows[static_cast<std::size_t>(ri)];
    double* c = r.row_c.data() + static_cast<std::size_t>(ri) * n;
    double* s = r.row_s.data() + static_cast<std::size_t>(ri) * n;
    for (std::size_t p = 0; p < k; ++p) {
      const double a = in.a[i * in.lda + p];
      const float* b = in.b.data() + p * in.ldb;
      for (std::size_t j = 0; j < n; ++j) {
        c[j] += a * b[j];
        s[j] += std::fabs(a * b[j]);
      }
    }
    for (std::size_t j = 0; j < n; ++j) {
      const double c0 = c_weight * in.c[i * in.ldc + j];
      c[j] = alpha * c[j] + beta * c0;
      s[j] = std::fabs(alpha) * s[j] + std::fabs(beta * c0);
    }
  }
  if (full) return r;

  // Whole columns: a column of B gathered once, then a dot product per row of A.
  r.col_c.assign(r.cols.size() * m, 0.0);
  r.col_s.assign(r.cols.size() * m, 0.0);
  for (std::size_t ci = 0; ci < r.cols.size(); ++ci) {
    const std::size_t j = r.cols[ci];
    std::vector<double> b(k);
    for (std::size_t p = 0; p < k; ++p) b[p] = in.b[p * in.ldb + j];
    const auto mm = static_cast<std::int64_t>(m);
#pragma omp parallel for schedule(static)
    for (std::int64_t ii = 0; ii < mm; ++ii) {
      const auto i = static_cast<std::size_t>(ii);
      const float* a = in.a.data() + i * in.lda;
      double c = 0, s = 0;
      for (std::size_t p = 0; p < k; ++p) {
        c += a[p] * b[p];
        s += std::fabs(a[p] * b[p]);
      }
      const double c0 = c_weight * in.c[i * in.ldc + j];
      r.col_c[ci * m + i] = alpha * c + beta * c0;
      r.col_s[ci * m + i] = std::fabs(alpha) * s + std::fabs(beta * c0);
    }
  }

  // Randomized products: C·x = alpha·A·(B·x) + beta·C₀·x and yᵀ·C = alpha·(yᵀ·A)·B + beta·yᵀ·C₀,
  // with their scales through |A|, |B|, |C₀|, |x|, |y|: O(mk + kn + mn).
  r.x.resize(n), r.y.resize(m);
  for (std::size_t j = 0; j < n; ++j) r.x[j] = uniform_float(hash64(hash64(seed, 13), j));
  for (std::size_t i = 0; i < m; ++i) r.y[i] = uniform_float(hash64(hash64(seed, 14), i));
  std::vector<double> bx(k), bx_abs(k);
  const auto kk = static_cast<std::int64_t>(k);
#pragma omp parallel for schedule(static)
  for (std::int64_t pp = 0; pp < kk; ++pp) {
    const float* b = in.b.data() + static_cast<std::size_t>(pp) * in.ldb;
    double v = 0, w = 0;
    for (std::size_t j = 0; j < n; ++j) v += b[j] * r.x[j], w += std::fabs(b[j] * r.x[j]);
    bx[static_cast<std::size_t>(pp)] = v, bx_abs[static_cast<std::size_t>(pp)] = w;
  }
  r.cx.resize(m), r.cx_s.resize(m);
  const auto mm = static_cast<std::int64_t>(m);
#pragma omp parallel for schedule(static)
  for (std::int64_t ii = 0; ii < mm; ++ii) {
    const auto i = static_cast<std::size_t>(ii);
    const float* a = in.a.data() + i * in.lda;
    double v = 0, w = 0, cv = 0, cw = 0;
    for (std::size_t p = 0; p < k; ++p) v += a[p] * bx[p], w += std::fabs(a[p]) * bx_abs[p];
    for (std::size_t j = 0; j < n; ++j) {
      const double c0 = c_weight * in.c[i * in.ldc + j];
      cv += c0 * r.x[j], cw += std::fabs(c0 * r.x[j]);
    }
    r.cx[i] = alpha * v + beta * cv;
    r.cx_s[i] = std::fabs(alpha) * w + std::fabs(beta) * cw;
  }
  // yᵀ·A and |y|ᵀ·|A|: each thread a range of A's columns, rows in storage order.
  std::vector<double> ya(k, 0.0), ya_abs(k, 0.0);
#pragma omp parallel
  {
    const auto [first, last] = thread_share(k);
    for (std::size_t i = 0; i < m; ++i) {
      const float* a = in.a.data() + i * in.lda;
      for (std::size_t p = first; p < last; ++p) ya[p] += r.y[i] * a[p], ya_abs[p] += std::fabs(r.y[i] * a[p]);
    }
  }
  std::vector<double> yc(n, 0.0), yc_s(n, 0.0), yc0(n, 0.0), yc0_abs(n, 0.0);
#pragma omp parallel
  {
    const auto [first, last] = thread_share(n);
    for (std::size_t p = 0; p < k; ++p) {
      const float* b = in.b.data() + p * in.ldb;
      for (std::size_t j = first; j < last; ++j) yc[j] += ya[p] * b[j], yc_s[j] += ya_abs[p] * std::fabs(b[j]);
    }
    for (std::size_t i = 0; i < m; ++i) {
      const float* c = in.c.data() + i * in.ldc;
      for (std::size_t j = first; j < last; ++j) {
        const double c0 = c_weight * c[j];
        yc0[j] += r.y[i] * c0, yc0_abs[j] += std::fabs(r.y[i] * c0);
      }
    }
  }
  r.yc.resize(n), r.yc_s.resize(n);
  for (std::size_t j = 0; j < n; ++j) {
    r.yc[j] = alpha * yc[j] + beta * yc0[j];
    r.yc_s[j] = std::fabs(alpha) * yc_s[j] + std::fabs(beta) * yc0_abs[j];
  }
  return r;
}

double sgemm_error_factor(SgemmMath math, std::size_t k) {
  const double kd = static_cast<double>(k);
  switch (math) {
    case SgemmMath::fp32: return gamma(kd + 2);
    case SgemmMath::tf32x3: return gamma(6 * kd + 4) + 0x1p-20;
    case SgemmMath::tf32: return gamma(2 * kd + 4) + 0x1p-10 + 0x1p-20;
    case SgemmMath::ozaki8:
    case SgemmMath::ozaki7: return gamma(2);  // the conversions after the exact product; plus OzakiAllowance
  }
  return 0;
}

namespace {

/// The Ozaki scheme's term of the bound (sgemm_ozaki.hpp), |alpha|·2^−Q·(‖aᵢ‖·Σ|bⱼ| + ‖bⱼ‖·Σ|aᵢ| +
/// 3k·2^−Q·‖aᵢ‖·‖bⱼ‖), (1 + 2^−30) for the device's norms' rounding; for other arithmetic none.
/// Each part is a product of a row's and a column's numbers, so the randomized products' allowance,
/// Σⱼ term(i, j)·|xⱼ|, is the same expression with the column's numbers weighted by |x|.
struct OzakiAllowance {
  bool on = false;
  double weight = 0, cross = 0;  // |alpha|·2^−Q·(1 + 2^−30), 3k·2^−Q
  double operator()(double a_norm, double a_abs, double b_norm, double b_abs) const {
    return on ? weight * (a_norm * b_abs + b_norm * a_abs + cross * a_norm * b_norm) : 0.0;
  }
};

}  // namespace

CheckResult check_sgemm(std::span<const float> c, const SgemmInput& in, const SgemmReference& ref, SgemmMath math,
                        std::size_t extra_depth) {
  const auto [m, n, k] = in.shape;
  CheckResult r;
  OzakiAllowance ozaki;
  if (math == SgemmMath::ozaki8 || math == SgemmMath::ozaki7) {
    const int q = sgemm_ozaki::norm_bits(math == SgemmMath::ozaki8 ? 8 : 7);
    ozaki.on = true;
    ozaki.weight = std::fabs(static_cast<double>(in.alpha)) * std::ldexp(1.0 + 0x1p-30, -q);
    ozaki.cross = 3.0 * static_cast<double>(k) * std::ldexp(1.0, -q);
  }
  // + 2^-50: the double reference's own rounding.
  r.tolerance = sgemm_error_factor(math, k + extra_depth) + 0x1p-50;
  if (c.size() != m * in.ldc) {
    r.detail = fmt::format("{} values, expected {}", c.size(), m * in.ldc);
    return r;
  }
  // Padding untouched, every element finite.
  std::size_t bad_padding = 0, not_finite = 0, first_i = 0, first_j = 0;
  for (std::size_t i = 0; i < m; ++i) {
    const float* row = c.data() + i * in.ldc;
    for (std::size_t j = n; j < in.ldc; ++j) bad_padding += std::bit_cast<std::uint32_t>(row[j]) != kPaddingBits;
    for (std::size_t j = 0; j < n; ++j)
      if (!std::isfinite(row[j]) && not_finite++ == 0) first_i = i, first_j = j;
  }
  if (bad_padding > 0) {
    r.detail = fmt::format("{} padding elements (columns {} to {}) were written", bad_padding, n, in.ldc - 1);
    return r;
  }
  if (not_finite > 0) {
    r.error = std::numeric_limits<double>::infinity();
    r.detail = fmt::format("{} elements are not finite, the first C[{}][{}] = {}", not_finite, first_i, first_j,
                           c[first_i * in.ldc + first_j]);
    return r;
  }

  // Sampled (or all) elements: the componentwise relative error |ĉ − c| / s.
  std::size_t bad = 0;
  std::string first_bad;
  std::vector<double> ratios;
  ratios.reserve(ref.rows.size() * n + ref.cols.size() * m);
  double loosest = r.tolerance;  // the largest allowance / s seen (the Ozaki scheme's differs per element)
  auto judge = [&](std::size_t i, std::size_t j, double want, double scale) {
    const double got = c[i * in.ldc + j], err = std::fabs(got - want);
    const double allowed = r.tolerance * scale + ozaki(ref.a_norm[i], ref.a_abs[i], ref.b_norm[j], ref.b_abs[j]);
    const double ratio = err == 0 ? 0.0 : (scale > 0 ? err / scale : std::numeric_limits<double>::infinity());
    r.error = std::max(r.error, ratio);
    if (scale > 0) loosest = std::max(loosest, allowed / scale);
    ratios.push_back(ratio);
    if (err > allowed && bad++ == 0)
      first_bad = fmt::format("C[{}][{}] = {:.9g}, expected {:.17g} (error {:.3g} x the scale, allowed {:.3g})", i, j, got,
                              want, ratio, scale > 0 ? allowed / scale : 0.0);
  };
  for (std::size_t ri = 0; ri < ref.rows.size(); ++ri)
    for (std::size_t j = 0; j < n; ++j) judge(ref.rows[ri], j, ref.row_c[ri * n + j], ref.row_s[ri * n + j]);
  for (std::size_t ci = 0; ci < ref.cols.size(); ++ci)
    for (std::size_t i = 0; i < m; ++i) judge(i, ref.cols[ci], ref.col_c[ci * m + i], ref.col_s[ci * m + i]);
  if (!ratios.empty()) {
    const auto middle = ratios.begin() + static_cast<std::ptrdiff_t>(ratios.size() / 2);
    std::nth_element(ratios.begin(), middle, ratios.end());
    r.median_error = *middle;
  }
  const double factor = r.tolerance;
  r.tolerance = loosest;
  if (bad > 0) {
    r.detail = fmt::format("{} of the {} elements checked are out of bound; the first: {}", bad,
                           ref.rows.size() * n + ref.cols.size() * m, first_bad);
    return r;
  }

  // The randomized products: every element's error enters them, weighted by x or y.
  if (!ref.full()) {
    auto product_check = [&](double got, double got_abs, double want, double scale, double ozaki_allowed) {
      const double allowed = factor * scale + ozaki_allowed + 0x1p-40 * (scale + got_abs);
      return std::fabs(got - want) <= allowed;
    };
    // The column numbers weighted by |x| (rows of C·x), the row numbers by |y| (columns of yᵀ·C).
    double xb_norm = 0, xb_abs = 0, ya_norm = 0, ya_abs = 0;
    for (std::size_t j = 0; j < n; ++j) xb_norm += ref.b_norm[j] * std::fabs(ref.x[j]), xb_abs += ref.b_abs[j] * std::fabs(ref.x[j]);
    for (std::size_t i = 0; i < m; ++i) ya_norm += ref.a_norm[i] * std::fabs(ref.y[i]), ya_abs += ref.a_abs[i] * std::fabs(ref.y[i]);
    for (std::size_t i = 0; i < m; ++i) {
      const float* row = c.data() + i * in.ldc;
      double v = 0, w = 0;
      for (std::size_t j = 0; j < n; ++j) v += row[j] * ref.x[j], w += std::fabs(row[j] * ref.x[j]);
      if (!product_check(v, w, ref.cx[i], ref.cx_s[i], ozaki(ref.a_norm[i], ref.a_abs[i], xb_norm, xb_abs))) {
        r.detail = fmt::format("row {} of C·x is {:.9g}, expected {:.17g}: some element of row {} is wrong", i, v, ref.cx[i], i);
        return r;
      }
    }
    std::vector<double> v(n, 0.0), w(n, 0.0);
    for (std::size_t i = 0; i < m; ++i) {
      const float* row = c.data() + i * in.ldc;
      for (std::size_t j = 0; j < n; ++j) v[j] += ref.y[i] * row[j], w[j] += std::fabs(ref.y[i] * row[j]);
    }
    for (std::size_t j = 0; j < n; ++j)
      if (!product_check(v[j], w[j], ref.yc[j], ref.yc_s[j], ozaki(ya_norm, ya_abs, ref.b_norm[j], ref.b_abs[j]))) {
        r.detail = fmt::format("column {} of y·C is {:.9g}, expected {:.17g}: some element of column {} is wrong", j, v[j],
                               ref.yc[j], j);
        return r;
      }
  }
  r.ok = true;
  return r;
}

std::vector<float> sgemm_openmp(const SgemmInput& in) {
  const auto [m, n, k] = in.shape;
  std::vector<float> out(m * in.ldc, std::bit_cast<float>(kPaddingBits));
  const auto rows = static_cast<std::int64_t>(m);
#pragma omp parallel
  {
    std::vector<float> acc(n);
#pragma omp for schedule(static)
    for (std::int64_t ii = 0; ii < rows; ++ii) {
      const auto i = static_cast<std::size_t>(ii);
      std::fill(acc.begin(), acc.end(), 0.f);
      for (std::size_t p = 0; p < k; ++p) {
        const float a = in.a[i * in.lda + p];
        const float* b = in.b.data() + p * in.ldb;
        for (std::size_t j = 0; j < n; ++j) acc[j] += a * b[j];
      }
      float* c = out.data() + i * in.ldc;
      for (std::size_t j = 0; j < n; ++j)
        c[j] = in.beta == 0.f ? in.alpha * acc[j] : in.alpha * acc[j] + in.beta * in.c[i * in.ldc + j];
    }
  }
  return out;
}

}  // namespace gpulab
