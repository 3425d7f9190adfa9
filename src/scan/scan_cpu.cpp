#include "scan/scan_cpu.hpp"

#include "lib/arith.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace gpulab {
namespace {

/// [begin, end) of chunk c of `chunks` equal chunks of n.
std::pair<std::size_t, std::size_t> chunk_range(std::size_t n, std::size_t chunks, std::size_t c) {
  const std::size_t per = (n + chunks - 1) / chunks;
  return {std::min(n, c * per), std::min(n, (c + 1) * per)};
}

}  // namespace

template <class In>
void scan_reference(std::span<const In> x, ScanKind kind, std::span<scan_ref_t<scan_out_t<In>>> out,
                    std::span<const std::uint8_t> heads) {
  using Out = scan_out_t<In>;
  const bool inclusive = kind == ScanKind::inclusive;
  const auto is_head = [&](std::size_t i) { return !heads.empty() && heads[i] != 0; };
  if constexpr (std::is_integral_v<Out>) {
    std::uint32_t s = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (is_head(i)) s = 0;
      if (!inclusive) out[i] = static_cast<Out>(s);
      s += static_cast<std::uint32_t>(static_cast<Out>(x[i]));
      if (inclusive) out[i] = static_cast<Out>(s);
    }
  } else {
    double s = 0.0, c = 0.0;  // Neumaier: c collects what each addition rounded away
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (is_head(i)) s = 0.0, c = 0.0;
      if (!inclusive) out[i] = s + c;
      const double v = static_cast<double>(x[i]);
      const double t = s + v;
      c += std::abs(s) >= std::abs(v) ? (s - t) + v : (v - t) + s;
      s = t;
      if (inclusive) out[i] = s + c;
    }
  }
}

template <class In>
void scan_openmp(std::span<const In> x, ScanKind kind, std::span<scan_out_t<In>> out) {
  using Out = scan_out_t<In>;
  using W = accum_t<Out>;
  const std::size_t n = x.size();
  const bool inclusive = kind == ScanKind::inclusive;
  const auto chunks = static_cast<std::size_t>(omp_get_max_threads());
  std::vector<W> offsets(chunks + 1, W(0));
#pragma omp parallel num_threads(static_cast<int>(chunks))
  {
    const auto c = static_cast<std::size_t>(omp_get_thread_num());
    const auto [begin, end] = chunk_range(n, chunks, c);
    W s = 0;
    for (std::size_t i = begin; i < end; ++i) s += static_cast<W>(static_cast<Out>(x[i]));
    offsets[c + 1] = s;
#pragma omp barrier
#pragma omp single
    for (std::size_t k = 1; k <= chunks; ++k) offsets[k] += offsets[k - 1];
    s = offsets[c];
    for (std::size_t i = begin; i < end; ++i) {
      if (!inclusive) out[i] = static_cast<Out>(s);
      s += static_cast<W>(static_cast<Out>(x[i]));
      if (inclusive) out[i] = static_cast<Out>(s);
    }
  }
}

ScanDepth scan_openmp_depth(std::size_t n, std::size_t threads) {
  const std::size_t chunk = (n + threads - 1) / std::max<std::size_t>(threads, 1);
  return {2 * chunk + threads + 1};
}

template <class In>
CheckResult check_scan(std::span<const scan_out_t<In>> got, std::span<const In> x,
                       std::span<const scan_ref_t<scan_out_t<In>>> ref, ScanKind kind, ScanDepth depth,
                       std::span<const std::uint8_t> heads) {
  if (got.size() != x.size()) return {false, 0, 0, fmt::format("scan: {} outputs for {} inputs", got.size(), x.size())};
  return check_scan_part(got, x, ref, 0, kind, depth, heads);
}

template <class In>
CheckResult check_scan_part(std::span<const scan_out_t<In>> got_part, std::span<const In> x_all,
                            std::span<const scan_ref_t<scan_out_t<In>>> ref_all, std::size_t first, ScanKind kind,
                            ScanDepth depth, std::span<const std::uint8_t> heads_all) {
  using Out = scan_out_t<In>;
  const std::size_t n = got_part.size();
  if (ref_all.size() != x_all.size() || first + n > x_all.size() || (!heads_all.empty() && heads_all.size() != x_all.size()))
    return {false, 0, 0, fmt::format("scan: outputs {}..{} of {} inputs", first, first + n, x_all.size())};
  const auto is_head = [&](std::size_t i) { return !heads_all.empty() && heads_all[i] != 0; };  // i from element 0
  const auto x = x_all.subspan(first, n);
  const auto ref = ref_all.subspan(first, n);
  const auto got = got_part;

  // Chunks in parallel; each needs Σ|x| before it (from element 0, or from the start of its
  // segment), so first the chunks' own sums: a chunk holding a head restarts the sum.
  const auto chunks = static_cast<std::size_t>(std::max(1, omp_get_max_threads())) * 4;
  std::vector<double> abs_before(chunks + 1, 0.0);
  std::vector<char> restarts(chunks + 1, 0);
  if constexpr (!std::is_integral_v<Out>) {
    for (std::size_t i = 0; i < first; ++i) {
      if (is_head(i)) abs_before[0] = 0.0;
      abs_before[0] += std::abs(static_cast<double>(x_all[i]));
    }
#pragma omp parallel for schedule(static)
    for (std::size_t c = 0; c < chunks; ++c) {
      const auto [begin, end] = chunk_range(n, chunks, c);
      double a = 0.0;
      for (std::size_t i = begin; i < end; ++i) {
        if (is_head(first + i)) a = 0.0, restarts[c + 1] = 1;
        a += std::abs(static_cast<double>(x[i]));
      }
      abs_before[c + 1] = a;
    }
    for (std::size_t c = 1; c <= chunks; ++c)
      if (!restarts[c]) abs_before[c] += abs_before[c - 1];
  }

  struct Bad {
    std::size_t count = 0;
    std::size_t first = std::numeric_limits<std::size_t>::max();
    double error = 0.0, tolerance = 0.0;  // at the first bad element
  };
  std::vector<Bad> bad(chunks);
  double worst_error = 0.0, worst_tolerance = 0.0;
#pragma omp parallel for schedule(static) reduction(max : worst_error, worst_tolerance)
  for (std::size_t c = 0; c < chunks; ++c) {
    const auto [begin, end] = chunk_range(n, chunks, c);
    double a = abs_before[c];
    for (std::size_t i = begin; i < end; ++i) {
      double error = 0.0, tolerance = 0.0;
      bool ok;
      if constexpr (std::is_integral_v<Out>) {
        ok = got[i] == ref[i];
      } else {
        if (is_head(first + i)) a = 0.0;
        if (kind == ScanKind::inclusive) a += std::abs(static_cast<double>(x[i]));
        error = std::abs(static_cast<double>(got[i]) - ref[i]);
        tolerance = float_tolerance(depth.at(first + i), unit_roundoff<Out>(), a);
        ok = std::isfinite(static_cast<double>(got[i])) && error <= tolerance;
        if (kind == ScanKind::exclusive) a += std::abs(static_cast<double>(x[i]));
        worst_error = std::max(worst_error, error);
        worst_tolerance = std::max(worst_tolerance, tolerance);
      }
      if (!ok && bad[c].count++ == 0) bad[c] = {1, i, error, tolerance};
    }
  }

  std::size_t count = 0;
  const Bad* first_bad = nullptr;
  for (const Bad& b : bad) {
    count += b.count;
    if (b.count > 0 && first_bad == nullptr) first_bad = &b;
  }
  if (count == 0) return {true, worst_error, worst_tolerance, {}};
  const std::size_t i = first_bad->first;
  std::string detail;
  if constexpr (std::is_integral_v<Out>)
    detail = fmt::format("{} of {} elements differ; first at {}: got {}, expected {}", count, n, first + i, got[i], ref[i]);
  else
    detail = fmt::format("{} of {} elements out of tolerance; first at {}: got {:.9g}, expected {:.17g} (error {:.3g}, "
                         "tolerance {:.3g}, k = {})",
                         count, n, first + i, got[i], ref[i], first_bad->error, first_bad->tolerance, depth.at(first + i));
  return {false, first_bad->error, first_bad->tolerance, detail};
}

#define GPULAB_INSTANTIATE_SCAN_CPU(In)                                                                        \
  template void scan_reference<In>(std::span<const In>, ScanKind, std::span<scan_ref_t<scan_out_t<In>>>,      \
                                   std::span<const std::uint8_t>);                                           \
  template void scan_openmp<In>(std::span<const In>, ScanKind, std::span<scan_out_t<In>>);                    \
  template CheckResult check_scan<In>(std::span<const scan_out_t<In>>, std::span<const In>,                   \
                                      std::span<const scan_ref_t<scan_out_t<In>>>, ScanKind, ScanDepth,       \
                                      std::span<const std::uint8_t>);                                        \
  template CheckResult check_scan_part<In>(std::span<const scan_out_t<In>>, std::span<const In>,              \
                                           std::span<const scan_ref_t<scan_out_t<In>>>, std::size_t, ScanKind, \
                                           ScanDepth, std::span<const std::uint8_t>);
GPULAB_INSTANTIATE_SCAN_CPU(std::int8_t)
GPULAB_INSTANTIATE_SCAN_CPU(std::int16_t)
GPULAB_INSTANTIATE_SCAN_CPU(std::int32_t)
GPULAB_INSTANTIATE_SCAN_CPU(float)
GPULAB_INSTANTIATE_SCAN_CPU(double)
#undef GPULAB_INSTANTIATE_SCAN_CPU

}  // namespace gpulab
