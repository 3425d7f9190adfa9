// The CPU side of the histogram problem (the course's histogram lab, seed 002): the bin rule, the serial reference
// (the seed's calculateHistogramByCpu), the OpenMP baseline, the input distributions, and the
// raw int32 input file. The GPU ladder builds on these.
#pragma once

#include "core/check.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace gpulab {

/// The bin of v among m bins: ((v % m) + m) % m, so negative values land in [0, m) too
/// (v ≡ bin mod m). Exact for every int32 v and every m ≥ 1 (computed in 64 bits).
constexpr std::uint32_t histogram_bin(std::int32_t v, std::uint32_t m) {
  const std::int64_t r = static_cast<std::int64_t>(v) % static_cast<std::int64_t>(m);
  return static_cast<std::uint32_t>(r < 0 ? r + static_cast<std::int64_t>(m) : r);
}

/// Throws gpulab::Error unless 0 ≤ n < 2^32 (counts are uint32) and m ≥ 1.
void validate_histogram_shape(std::size_t n, std::uint64_t m);

/// Contention decides histogram speed, so inputs come in three shapes:
/// uniform over the whole int32 range; uniform over a narrow range ([-128, 127], 256 values);
/// degenerate: every element the same value (all in one bin).
enum class HistogramDistribution { uniform, narrow, degenerate };

std::optional<HistogramDistribution> parse_histogram_distribution(std::string_view s);
std::string_view histogram_distribution_name(HistogramDistribution d);

/// Reproducible input of the given shape (element i depends only on seed and i).
void fill_histogram_input(std::span<std::int32_t> out, HistogramDistribution d, std::uint64_t seed);

/// Serial and obviously right: counts[bin(v)] += 1 for every v.
std::vector<std::uint32_t> histogram_reference(std::span<const std::int32_t> values, std::uint32_t m);

/// OpenMP baseline: a private histogram per thread, then the per-thread histograms added.
std::vector<std::uint32_t> histogram_openmp(std::span<const std::int32_t> values, std::uint32_t m);

/// Float values counted into m equal-width bins over [lo, hi] (range_bin, torch.histc's rule) or
/// between m + 1 sorted edges (edge_bin, torch.histogram's): serial, the GPU's arithmetic.
template <class T>
std::vector<std::uint32_t> histogram_range_reference(std::span<const T> values, std::uint32_t m, T lo, T hi);
template <class T>
std::vector<std::uint32_t> histogram_edges_reference(std::span<const T> values, std::span<const T> edges);

/// Reproducible float values over [-1.5, 1.5) with the awkward ones among them (±1, 0.5, −0, NaN,
/// ±∞, 2: a range's ends and values outside it), for the range [-1, 1] and the edges below.
template <class T>
void fill_float_histogram_input(std::span<T> out, std::uint64_t seed);

/// m + 1 uneven sorted edges over [-1, 1]: sign(x)·x² of an even grid.
template <class T>
std::vector<T> uneven_edges(std::uint32_t m);

/// The weighted histogram's reference: each bin's sum of weights (Neumaier-compensated in double,
/// off by about 2^-53 of `abs`), the sum of their magnitudes and their count (for the tolerance).
struct WeightedHistogram {
  std::vector<double> sums, abs;
  std::vector<std::size_t> counts;
};

template <class W>
WeightedHistogram histogram_weighted_reference(std::span<const std::int32_t> values, std::span<const W> weights, std::uint32_t m);

/// A weighted histogram against the reference: bin b within u_W·|ref| (the one rounding to W) +
/// γ_depth(double)·abs[b] + the reference's own 2^-53·abs[b]; an empty bin exactly 0.
template <class W>
CheckResult check_histogram_weighted(std::span<const W> got, const WeightedHistogram& ref, std::size_t depth);

/// A weighted histogram summed in W, a weight at a time into its bin (float atomics): bin b within
/// γ_count[b](W)·abs[b] and the reference's own error; an empty bin exactly 0.
template <class W>
CheckResult check_histogram_weighted_in_w(std::span<const W> got, const WeightedHistogram& ref);

/// Exact comparison of a computed histogram with the reference: every bin equal. On a mismatch
/// the detail says how many bins differ, the first of them, and what the counts sum to.
CheckResult check_histogram(std::span<const std::uint32_t> got, std::span<const std::uint32_t> ref);

/// A file of raw little-endian int32 values (no header), as `--input FILE` reads it. Refused with
/// a clear gpulab::Error, before reading, when missing, unreadable, not a multiple of 4 bytes,
/// 2^32 values or more, or larger than `max_bytes` (the caller passes what memory allows).
std::vector<std::int32_t> load_raw_int32(const std::filesystem::path& path, std::size_t max_bytes);

}  // namespace gpulab
