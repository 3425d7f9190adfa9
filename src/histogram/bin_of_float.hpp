// The bin of a float value, on the GPU and in the CPU reference alike (so the tests compare the
// same arithmetic): equal-width bins over [lo, hi] as torch.histc computes them, and the bins between
// sorted edges as torch.histogram's. A value that is not counted (outside, NaN) gets bin m.
#pragma once

#include "lib/host_device.hpp"
#include "lib/unsigned_divider.hpp"

#include <cstddef>
#include <cstdint>

namespace gpulab {

/// torch.histc's rule: (v − lo)·m / (hi − lo) in T, truncated; v == hi (and any value the rounding
/// puts at m) into bin m − 1; v outside [lo, hi], and NaN, to m.
template <class T>
GPULAB_HOST_DEVICE std::uint32_t range_bin(T v, std::uint32_t m, T lo, T hi) {
  if (!(v >= lo && v <= hi)) return m;  // (NaN fails both)
  const T x = (v - lo) * static_cast<T>(m) / (hi - lo);
  return x < static_cast<T>(m) ? static_cast<std::uint32_t>(x) : m - 1;
}

/// torch.histogram's rule over m + 1 sorted edges: the b with edges[b] ≤ v < edges[b + 1], the last
/// bin closed (v == edges[m] in m − 1); v outside [edges[0], edges[m]], and NaN, to m. A binary
/// search: the first edge above v, less one.
template <class T>
GPULAB_HOST_DEVICE std::uint32_t edge_bin(T v, const T* edges, std::uint32_t m) {
  if (!(v >= edges[0] && v <= edges[m])) return m;
  std::uint32_t low = 0, high = m;  // edges[low] ≤ v; the answer is below high
  while (high - low > 1) {
    const std::uint32_t mid = low + (high - low) / 2;
    if (edges[mid] <= v) low = mid;
    else high = mid;
  }
  return low;
}

/// Element i's bin under range_bin (values from `values`).
template <class T>
struct RangeBins {
  const T* values;
  std::uint32_t m;
  T lo, hi;
  GPULAB_HOST_DEVICE std::uint32_t operator()(std::size_t i) const { return range_bin(values[i], m, lo, hi); }
};

/// Element i's bin under edge_bin.
template <class T>
struct EdgeBins {
  const T* values;
  const T* edges;
  std::uint32_t m;
  GPULAB_HOST_DEVICE std::uint32_t operator()(std::size_t i) const { return edge_bin(values[i], edges, m); }
};

/// A histogram per row of `cols` elements: element i counted among its row's m + 1 bins (the last
/// for values not counted), row r's bins at r·(m + 1). i < 2^32.
template <class Rule>
struct PerRow {
  Rule rule;
  UnsignedDivider cols;
  std::uint32_t m;
  GPULAB_HOST_DEVICE std::uint32_t operator()(std::size_t i) const {
    return cols.divide(static_cast<std::uint32_t>(i)) * (m + 1) + rule(i);
  }
};

}  // namespace gpulab
