#include "histogram/histogram_cpu.hpp"

#include "core/random.hpp"
#include "histogram/bin_of_float.hpp"

#include <gpulab/error.hpp>

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <fstream>
#include <limits>

namespace gpulab {

void validate_histogram_shape(std::size_t n, std::uint64_t m) {
  if (n >= (std::size_t{1} << 32))
    throw Error(fmt::format("histogram: N = {} values; counts are 32-bit, so N must be below 2^32", n));
  if (m == 0 || m > 0xFFFFFFFFull)
    throw Error(fmt::format("histogram: M = {} bins; M must be in [1, 2^32)", m));
}

std::optional<HistogramDistribution> parse_histogram_distribution(std::string_view s) {
  if (s == "uniform") return HistogramDistribution::uniform;
  if (s == "narrow") return HistogramDistribution::narrow;
  if (s == "degenerate") return HistogramDistribution::degenerate;
  return std::nullopt;
}

std::string_view histogram_distribution_name(HistogramDistribution d) {
  switch (d) {
    case HistogramDistribution::uniform: return "uniform";
    case HistogramDistribution::narrow: return "narrow";
    case HistogramDistribution::degenerate: return "degenerate";
  }
  return "?";
}

void fill_histogram_input(std::span<std::int32_t> out, HistogramDistribution d, std::uint64_t seed) {
  if (d == HistogramDistribution::uniform) {
    fill_random(out, seed);
    return;
  }
  const auto n = static_cast<std::int64_t>(out.size());
  const auto constant = static_cast<std::int32_t>(static_cast<std::uint32_t>(hash64(seed, ~0ull) >> 32));
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    out[static_cast<std::size_t>(i)] =
        d == HistogramDistribution::narrow
            ? static_cast<std::int32_t>(hash64(seed, static_cast<std::uint64_t>(i)) >> 56) - 128
            : constant;
  }
}

std::vector<std::uint32_t> histogram_reference(std::span<const std::int32_t> values, std::uint32_t m) {
  validate_histogram_shape(values.size(), m);
  std::vector<std::uint32_t> counts(m, 0);
  for (std::int32_t v : values) ++counts[histogram_bin(v, m)];
  return counts;
}

template <class T>
std::vector<std::uint32_t> histogram_range_reference(std::span<const T> values, std::uint32_t m, T lo, T hi) {
  std::vector<std::uint32_t> counts(std::size_t{m} + 1, 0);
  for (T v : values) ++counts[range_bin(v, m, lo, hi)];
  counts.pop_back();  // the values not counted
  return counts;
}

template <class T>
std::vector<std::uint32_t> histogram_edges_reference(std::span<const T> values, std::span<const T> edges) {
  if (edges.size() < 2) throw Error("histogram_edges: at least 2 edges (1 bin)");
  const auto m = static_cast<std::uint32_t>(edges.size() - 1);
  std::vector<std::uint32_t> counts(std::size_t{m} + 1, 0);
  for (T v : values) ++counts[edge_bin(v, edges.data(), m)];
  counts.pop_back();
  return counts;
}

template <class T>
void fill_float_histogram_input(std::span<T> out, std::uint64_t seed) {
  fill_random(out, seed);
  const T specials[] = {T(-1), T(1), T(0.5), T(-0.0), std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity(),
                        -std::numeric_limits<T>::infinity(), T(2)};
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = i % 97 < 8 ? specials[i % 97] : T(1.5) * out[i];
}

template <class T>
std::vector<T> uneven_edges(std::uint32_t m) {
  std::vector<T> edges(std::size_t{m} + 1);
  for (std::size_t e = 0; e <= m; ++e) {
    const T x = T(2) * static_cast<T>(e) / static_cast<T>(m) - T(1);
    edges[e] = x < 0 ? -x * x : x * x;
  }
  return edges;
}

template void fill_float_histogram_input<float>(std::span<float>, std::uint64_t);
template void fill_float_histogram_input<double>(std::span<double>, std::uint64_t);
template std::vector<float> uneven_edges<float>(std::uint32_t);
template std::vector<double> uneven_edges<double>(std::uint32_t);
template std::vector<std::uint32_t> histogram_range_reference<float>(std::span<const float>, std::uint32_t, float, float);
template std::vector<std::uint32_t> histogram_range_reference<double>(std::span<const double>, std::uint32_t, double, double);
template std::vector<std::uint32_t> histogram_edges_reference<float>(std::span<const float>, std::span<const float>);
template std::vector<std::uint32_t> histogram_edges_reference<double>(std::span<const double>, std::span<const double>);

template <class W>
WeightedHistogram histogram_weighted_reference(std::span<const std::int32_t> values, std::span<const W> weights, std::uint32_t m) {
  if (m == 0) throw Error("histogram_weighted: m = 0 bins; m must be at least 1");
  if (weights.size() != values.size()) throw Error("histogram_weighted: a weight a value");
  WeightedHistogram r{std::vector<double>(m, 0.0), std::vector<double>(m, 0.0), std::vector<std::size_t>(m, 0)};
  std::vector<double> carry(m, 0.0);  // Neumaier's compensation, a bin each
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::uint32_t b = histogram_bin(values[i], m);
    const double w = static_cast<double>(weights[i]), s = r.sums[b] + w;
    carry[b] += std::abs(r.sums[b]) >= std::abs(w) ? (r.sums[b] - s) + w : (w - s) + r.sums[b];
    r.sums[b] = s;
    r.abs[b] += std::abs(w);
    ++r.counts[b];
  }
  for (std::uint32_t b = 0; b < m; ++b) r.sums[b] += carry[b];
  return r;
}

namespace {

/// Every bin of `got` against the reference, bin b within tolerance(b) (an empty bin exactly 0).
template <class W, class Tolerance>
CheckResult check_weighted_bins(std::span<const W> got, const WeightedHistogram& ref, Tolerance tolerance_of) {
  if (got.size() != ref.sums.size())
    return {false, 0, 0, fmt::format("histogram_weighted: {} bins for {}", got.size(), ref.sums.size())};
  CheckResult r{true, 0, 0, {}};
  std::size_t bad = 0, first = 0;
  for (std::size_t b = 0; b < got.size(); ++b) {
    const double g = static_cast<double>(got[b]), want = ref.sums[b];
    const double tolerance = ref.abs[b] == 0.0 ? 0.0 : tolerance_of(b);
    const double error = std::abs(g - want);
    r.error = std::max(r.error, error);
    r.tolerance = std::max(r.tolerance, tolerance);
    if (!std::isfinite(g) || error > tolerance) {
      if (bad++ == 0) first = b;
    }
  }
  if (bad == 0) return r;
  r.ok = false;
  r.detail = fmt::format("{} of {} bins out of tolerance; first bin {}: got {:.17g}, expected {:.17g} (sum of |w| {:.6g})", bad,
                         got.size(), first, static_cast<double>(got[first]), ref.sums[first], ref.abs[first]);
  return r;
}

}  // namespace

template <class W>
CheckResult check_histogram_weighted(std::span<const W> got, const WeightedHistogram& ref, std::size_t depth) {
  return check_weighted_bins(got, ref, [&](std::size_t b) {
    return unit_roundoff<W>() * std::abs(ref.sums[b]) + float_tolerance(depth, unit_roundoff<double>(), ref.abs[b]);
  });
}

template <class W>
CheckResult check_histogram_weighted_in_w(std::span<const W> got, const WeightedHistogram& ref) {
  return check_weighted_bins(got, ref, [&](std::size_t b) {
    return float_tolerance(ref.counts[b], unit_roundoff<W>(), ref.abs[b]);
  });
}

template WeightedHistogram histogram_weighted_reference<float>(std::span<const std::int32_t>, std::span<const float>, std::uint32_t);
template WeightedHistogram histogram_weighted_reference<double>(std::span<const std::int32_t>, std::span<const double>, std::uint32_t);
template CheckResult check_histogram_weighted<float>(std::span<const float>, const WeightedHistogram&, std::size_t);
template CheckResult check_histogram_weighted<double>(std::span<const double>, const WeightedHistogram&, std::size_t);
template CheckResult check_histogram_weighted_in_w<float>(std::span<const float>, const WeightedHistogram&);
template CheckResult check_histogram_weighted_in_w<double>(std::span<const double>, const WeightedHistogram&);

std::vector<std::uint32_t> histogram_openmp(std::span<const std::int32_t> values, std::uint32_t m) {
  validate_histogram_shape(values.size(), m);
  const int threads = omp_get_max_threads();
  std::vector<std::uint32_t> privates(static_cast<std::size_t>(threads) * m, 0);
  const auto n = static_cast<std::int64_t>(values.size());
#pragma omp parallel num_threads(threads)
  {
    std::uint32_t* mine = privates.data() + static_cast<std::size_t>(omp_get_thread_num()) * m;
#pragma omp for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) ++mine[histogram_bin(values[static_cast<std::size_t>(i)], m)];
  }
  std::vector<std::uint32_t> counts(m, 0);
  const auto bins = static_cast<std::int64_t>(m);
#pragma omp parallel for schedule(static)
  for (std::int64_t b = 0; b < bins; ++b)
    for (int t = 0; t < threads; ++t)
      counts[static_cast<std::size_t>(b)] += privates[static_cast<std::size_t>(t) * m + static_cast<std::size_t>(b)];
  return counts;
}

CheckResult check_histogram(std::span<const std::uint32_t> got, std::span<const std::uint32_t> ref) {
  CheckResult r;
  if (got.size() != ref.size()) {
    r.detail = fmt::format("{} bins, expected {}", got.size(), ref.size());
    return r;
  }
  std::size_t wrong = 0, first = 0;
  std::uint64_t got_total = 0, ref_total = 0;
  for (std::size_t b = 0; b < ref.size(); ++b) {
    got_total += got[b];
    ref_total += ref[b];
    if (got[b] != ref[b] && wrong++ == 0) first = b;
  }
  r.ok = wrong == 0;
  if (!r.ok) {
    r.error = static_cast<double>(wrong);
    r.detail = fmt::format("{} of {} bins differ (first: bin {} = {}, expected {}); counts sum to {}, expected {}",
                           wrong, ref.size(), first, got[first], ref[first], got_total, ref_total);
  }
  return r;
}

std::vector<std::int32_t> load_raw_int32(const std::filesystem::path& path, std::size_t max_bytes) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status))
    throw Error(fmt::format("input file '{}' does not exist", path.string()));
  if (!std::filesystem::is_regular_file(status))
    throw Error(fmt::format("input file '{}' is not a regular file", path.string()));
  const std::uintmax_t bytes = std::filesystem::file_size(path, ec);
  if (ec) throw Error(fmt::format("cannot read the size of '{}': {}", path.string(), ec.message()));
  if (bytes % 4 != 0)
    throw Error(fmt::format("input file '{}' has {} bytes, not a whole number of int32 values", path.string(), bytes));
  validate_histogram_shape(static_cast<std::size_t>(bytes / 4), 1);
  if (bytes > max_bytes)
    throw Error(fmt::format("input file '{}' has {} bytes, more than the {} bytes of memory allowed for it",
                            path.string(), bytes, max_bytes));
  static_assert(std::endian::native == std::endian::little, "raw int32 files are little-endian");
  std::vector<std::int32_t> values(static_cast<std::size_t>(bytes / 4));
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error(fmt::format("cannot open '{}' for reading", path.string()));
  f.read(reinterpret_cast<char*>(values.data()), static_cast<std::streamsize>(bytes));
  if (static_cast<std::uintmax_t>(f.gcount()) != bytes)
    throw Error(fmt::format("input file '{}' ended after {} of {} bytes", path.string(), f.gcount(), bytes));
  return values;
}

}  // namespace gpulab
